"""`operator-app undo` and `results` without --workspace take the workspace the TUI opened last
(from the person's settings) and say which on stderr; with none remembered they say how to name
one. Every option of every sub-command has a line of help, and undo's and results' help speak of
their own exit codes. Run through the installed command, with the config and state folders
pointed at scratch folders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.blocks import block

ROOT = Path(__file__).resolve().parents[2]
APP = str(Path(sys.executable).with_name("operator-app"))
DEMO = ROOT / "fixtures" / "demo-workspace"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The person's folders, in scratch: settings (OPERATOR_CONFIG_DIR) and the default state
    folder."""
    return dict(
        os.environ,
        OPERATOR_TRASH="session",
        OPERATOR_CONFIG_DIR=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state-home"),
    )


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [APP, *args], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL
    )


def remember(env: dict[str, str], workspace: Path) -> None:
    """What the TUI does when it opens a workspace."""
    config = Path(env["OPERATOR_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(
        json.dumps({"last_workspace": str(workspace), "recent_workspaces": [str(workspace)]})
    )


@pytest.fixture
def ws(tmp_path: Path, env: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    message = tmp_path / "m.txt"
    message.write_text(block("w1", "fs.write", path="notes/plan.txt", content="changed"))
    done = run(
        env, "exec", "--workspace", str(root), "--approve", "all", str(message)
    )  # the default state folder
    assert done.returncode == 0, done.stderr
    return root


def test_results_and_undo_without_workspace_use_the_last_one_and_say_which(
    ws: Path, env: dict[str, str]
) -> None:
    remember(env, ws)
    said = f"operator-app: using the last workspace, {ws.resolve()} (--workspace names another)\n"
    shown = run(env, "results")
    assert shown.returncode == 0, shown.stderr
    assert "id: w1\nok: true\nsummary: Wrote notes/plan.txt" in shown.stdout
    assert shown.stderr == said
    listed = run(env, "undo", "--list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["warnings"] == [
        said.removeprefix("operator-app: ").strip()
    ]
    undone = run(env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert (
        undone.stdout == "Restored notes/plan.txt as it was before w1 (fs.write)\n"
        and undone.stderr == said
    )
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"


def test_a_named_workspace_wins_over_the_remembered_one(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    remember(env, other)
    done = run(env, "results", "--workspace", str(ws))
    assert done.returncode == 0 and "id: w1" in done.stdout and done.stderr == ""


@pytest.mark.parametrize("command", ["undo", "results"])
def test_without_workspace_and_none_remembered_it_says_how_to_name_one(
    command: str, env: dict[str, str]
) -> None:
    done = run(env, command)
    assert done.returncode == 2
    assert (
        "operator-app: USAGE_ERROR: no --workspace given, and no workspace is remembered "
        "(the TUI remembers the last one it opened); name one: --workspace DIR"
    ) in done.stderr
    envelope = json.loads(run(env, command, "--json").stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "USAGE_ERROR"


def test_a_remembered_workspace_that_is_gone_counts_as_none(
    env: dict[str, str], tmp_path: Path
) -> None:
    remember(env, tmp_path / "removed-since")
    done = run(env, "results")
    assert done.returncode == 2 and "no workspace is remembered" in done.stderr


def test_every_option_of_every_sub_command_has_a_line_of_help() -> None:
    """Read from the parser the console script builds (the TUI's options, every front end's
    sub-commands), and from --help as printed."""
    import argparse

    from operator_app import entry
    from operator_app.cli.parser import command_line
    from operator_app.tui.launch import add_options

    parser = command_line(
        options=add_options,
        sub_commands={name: c.declare for name, c in entry.SUB_COMMANDS.items()},
    )
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parsers = {
        "operator-app": parser,
        **{f"operator-app {name}": sub for name, sub in subparsers.choices.items()},
    }
    assert set(entry.SUB_COMMANDS) <= {name.split()[-1] for name in parsers}
    missing = [
        f"{name} {'/'.join(action.option_strings)}"
        for name, each in parsers.items()
        for action in each._actions
        if action.option_strings and not action.help
    ]
    assert missing == []
    for name in entry.SUB_COMMANDS:
        shown = subprocess.run([APP, name, "--help"], capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr
        for action in subparsers.choices[name]._actions:
            if action.option_strings and action.help != argparse.SUPPRESS:
                assert str(action.help).split("%")[0][:30] in " ".join(shown.stdout.split()), (
                    name,
                    action.option_strings,
                )


@pytest.mark.parametrize(
    ("command", "own", "not_theirs"),
    [
        (
            "undo",
            [
                "0 the change(s) were undone",
                "6 nothing to undo, or the undo was refused",
                "3 workspace missing",
            ],
            ["message was processed", "message unreadable", "no results"],
        ),
        (
            "results",
            [
                "0 the result blocks were printed",
                "6 no such message, or it has no results",
                "3 workspace missing",
            ],
            ["message was processed", "message unreadable", "nothing to undo"],
        ),
    ],
)
def test_undo_and_results_help_speaks_of_their_own_exit_codes(
    command: str, own: list[str], not_theirs: list[str]
) -> None:
    shown = subprocess.run([APP, command, "--help"], capture_output=True, text=True)
    text = " ".join(shown.stdout.split())
    for words in own:
        assert words in text
    for words in not_theirs:
        assert words not in text


def test_operator_state_dir_moves_every_session_beside_the_config_folder(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """$OPERATOR_STATE_DIR beside $OPERATOR_CONFIG_DIR: with the two, nothing of Operator's is
    written anywhere else (a trial, a test)."""
    env = dict(env, OPERATOR_STATE_DIR=str(tmp_path / "operator-state"))
    root = tmp_path / "trial"
    shutil.copytree(DEMO, root)
    message = tmp_path / "m.txt"
    message.write_text(block("w1", "fs.write", path="notes/plan.txt", content="changed"))
    done = run(env, "exec", "--workspace", str(root), "--approve", "all", str(message))
    assert done.returncode == 0, done.stderr
    [session] = (tmp_path / "operator-state" / "workspaces").iterdir()
    assert session.name.startswith("trial-") and any(session.iterdir())
    assert not (tmp_path / "state-home").exists()  # the user's state folder was not touched
    remember(env, root)
    shown = run(env, "results")
    assert shown.returncode == 0 and "id: w1\nok: true" in shown.stdout
