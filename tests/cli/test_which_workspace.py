"""`operator-app undo` and `results` act on the folder you mean (issue 36): --workspace when given;
else the workspace you stand in (the nearest folder, from the current one up, that has a session;
with --state-dir, the workspace that state folder serves), said on stderr; else they refuse
(exit 2) and name the workspaces that have a session. Never the TUI's last workspace: standing in
one project, `undo` must not change another. Every option of every sub-command has a line of
help, and undo's and results' help speak of their own exit codes. Run through the installed
command in scratch folders (OPERATOR_CONFIG_DIR, OPERATOR_STATE_DIR)."""

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
    """The person's folders, in scratch: settings and every session."""
    return dict(
        os.environ,
        OPERATOR_TRASH="session",
        OPERATOR_CONFIG_DIR=str(tmp_path / "config"),
        OPERATOR_STATE_DIR=str(tmp_path / "operator-state"),
        XDG_STATE_HOME=str(tmp_path / "state-home"),
    )


def run(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [APP, *args], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, cwd=cwd
    )


def remember(env: dict[str, str], workspace: Path) -> None:
    """What the TUI does when it opens a workspace."""
    config = Path(env["OPERATOR_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(
        json.dumps({"last_workspace": str(workspace), "recent_workspaces": [str(workspace)]})
    )


def written(env: dict[str, str], root: Path, tmp_path: Path, *state: str) -> None:
    """A session for `root` (its default state folder, or `state`): one write, made by exec."""
    message = tmp_path / "m.txt"
    message.write_text(block("w1", "fs.write", path="notes/plan.txt", content="changed"))
    done = run(env, "exec", "--workspace", str(root), "--approve", "all", *state, str(message))
    assert done.returncode == 0, done.stderr


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(DEMO, root)
    return root


@pytest.fixture
def ws(tmp_path: Path, env: dict[str, str]) -> Path:
    root = project(tmp_path, "ws")
    written(env, root, tmp_path)
    return root


def said(workspace: Path) -> str:
    return (
        f"operator-app: using the workspace you are in, {workspace.resolve()} (--workspace names "
        "another)\n"
    )


def test_results_and_undo_act_on_the_workspace_you_stand_in_not_the_one_the_tui_remembers(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    other = project(tmp_path, "other")
    written(env, other, tmp_path)
    remember(env, other)  # the TUI's last workspace is another project
    inside = ws / "src"  # a folder inside the workspace: the nearest one with a session
    shown = run(env, "results", cwd=inside)
    assert shown.returncode == 0, shown.stderr
    assert "id: w1\nok: true\nsummary: Wrote notes/plan.txt" in shown.stdout
    assert shown.stderr == said(ws)
    listed = run(env, "undo", "--list", "--json", cwd=inside)
    assert listed.returncode == 0 and json.loads(listed.stdout)["warnings"] == [
        said(ws).removeprefix("operator-app: ").strip()
    ]
    undone = run(env, "undo", cwd=ws)
    assert undone.returncode == 0, undone.stderr
    assert (
        undone.stdout == "Restored notes/plan.txt as it was before w1 (fs.write)\n"
        and undone.stderr == said(ws)
    )
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"
    assert (other / "notes" / "plan.txt").read_text() == "changed\n"  # the other project untouched


def test_outside_every_workspace_it_refuses_and_names_those_with_a_session(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    older = project(tmp_path, "older")
    written(env, older, tmp_path)
    # A session made before sessions recorded their workspace: the TUI's recent list names it.
    record = next(
        folder / "workspace"
        for folder in (tmp_path / "operator-state" / "workspaces").iterdir()
        if (folder / "workspace").read_text() == str(older.resolve())
    )
    record.unlink()
    remember(env, older)
    elsewhere = tmp_path / "unrelated-project"
    elsewhere.mkdir()
    for command in (["undo"], ["undo", "--list"], ["results"]):
        done = run(env, *command, cwd=elsewhere)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert (
            f"operator-app: USAGE_ERROR: no --workspace given, and {elsewhere.resolve()} is in no "
            "workspace Operator has a session for; run it from inside one, or name one: "
            "--workspace DIR. Workspaces with a session, most recent first: "
        ) in done.stderr
        assert (
            f"{ws.resolve()} (used " in done.stderr and f"{older.resolve()} (used " in done.stderr
        )
    assert (ws / "notes" / "plan.txt").read_text() == "changed\n"  # nothing was undone
    envelope = json.loads(run(env, "undo", "--json", cwd=elsewhere).stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "USAGE_ERROR"
    assert str(ws.resolve()) in envelope["error"]["message"]


def test_a_named_workspace_wins_over_the_one_you_stand_in(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    other = project(tmp_path, "other")
    written(env, other, tmp_path)
    done = run(env, "undo", "--workspace", str(ws), cwd=other)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"
    assert (other / "notes" / "plan.txt").read_text() == "changed\n"


def test_the_nearest_workspace_with_a_session_is_the_one_you_stand_in(
    env: dict[str, str], tmp_path: Path
) -> None:
    outer = project(tmp_path, "outer")
    inner = outer / "vendor" / "inner"
    shutil.copytree(DEMO, inner)
    written(env, outer, tmp_path)
    written(env, inner, tmp_path)
    done = run(env, "undo", cwd=inner / "notes")
    assert done.returncode == 0 and done.stderr == said(inner)
    assert (inner / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"
    assert (outer / "notes" / "plan.txt").read_text() == "changed\n"
    # A folder with no session of its own, between the two: the outer workspace holds it.
    done = run(env, "undo", cwd=outer / "vendor")
    assert done.returncode == 0 and done.stderr == said(outer)
    assert (outer / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"


def test_with_a_state_dir_it_is_the_workspace_that_folder_serves(
    env: dict[str, str], tmp_path: Path
) -> None:
    root = project(tmp_path, "trial")
    state = tmp_path / "own-state"
    written(env, root, tmp_path, "--state-dir", str(state))
    shown = run(env, "results", "--state-dir", str(state), cwd=root / "src")
    assert shown.returncode == 0 and "id: w1" in shown.stdout and shown.stderr == said(root)
    elsewhere = run(env, "results", "--state-dir", str(state), cwd=tmp_path)
    assert elsewhere.returncode == 2
    assert (
        f"no --workspace given, and {tmp_path.resolve()} is not in {root.resolve()}, the workspace "
        f"the state folder {state} serves; name it: --workspace {root.resolve()}"
    ) in elsewhere.stderr


@pytest.mark.parametrize("command", ["undo", "results"])
def test_without_workspace_and_no_session_anywhere_it_says_how_to_name_one(
    command: str, env: dict[str, str], tmp_path: Path
) -> None:
    remember(env, project(tmp_path, "opened-but-never-used"))
    done = run(env, command, cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "operator-app: USAGE_ERROR: no --workspace given, and Operator has no session for any "
        "workspace yet (exec and the TUI make one); name one: --workspace DIR"
    ) in done.stderr
    envelope = json.loads(run(env, command, "--json", cwd=tmp_path).stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "USAGE_ERROR"


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
    shown = run(env, "results", cwd=root)
    assert shown.returncode == 0 and "id: w1\nok: true" in shown.stdout
