"""The session's state folder on real temporary folders: records survive a record torn by a crash,
used ids cost the same however long the session is, large diffs are not stored whole, and a state
folder the model could reach is refused (engine API and the real `operator-app exec` / `undo`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.executor import Engine, approve_all
from operator_app.engine.state.session import (
    STORED_DIFF_LIMIT,
    Session,
    StateUnusable,
    append_jsonl,
    check_state_location,
    read_jsonl,
)
from operator_app.protocol import render_results
from tests.support.blocks import b64, block

APP = str(Path(sys.executable).with_name("operator-app"))
EXIT_STATE = 5


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_text("line\n")
    return root


def exec_app(
    ws: Path, state: Path | None, message: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    state_args = ["--state-dir", str(state)] if state is not None else []
    return subprocess.run(
        [APP, "exec", "--workspace", str(ws), *state_args, *args],
        input=message.encode(),
        capture_output=True,
        timeout=60,
        env=env,
    )


def edits(anchor: str, text: str) -> str:
    return b64(
        json.dumps({"version": 1, "edits": [{"op": "insertAfter", "anchor": anchor, "text": text}]})
    )


# --- a record torn by a crash --------------------------------------------------------------


def test_append_after_a_torn_line_starts_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    append_jsonl(path, {"n": 1})
    with path.open("ab") as handle:
        handle.write(b'{"n": 2, "cut')  # the app died in the middle of this append
    append_jsonl(path, {"n": 3})
    assert [r["n"] for r in read_jsonl(path)] == [1, 3]
    assert path.read_bytes().endswith(b'\n{"n": 3}\n')


def test_read_jsonl_skips_a_line_cut_inside_a_utf8_character(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"n": 1}\n{"s": "caf\xc3\n{"n": 2}\n')
    assert [r.get("n") for r in read_jsonl(path)] == [1, 2]


def test_a_torn_result_record_does_not_let_a_command_run_twice(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert exec_app(ws, state, block("r0", "fs.stat", path="f.txt")).returncode == 0
    with (state / "session" / "results.jsonl").open("a") as handle:
        handle.write('{"message": 9, "resu')
    message = block("e1", "fs.applyEdits", path="f.txt", edits_b64=edits("line", "added"))
    first = exec_app(ws, state, message, "--approve", "all")
    second = exec_app(ws, state, message, "--approve", "all")
    assert first.returncode == second.returncode == 0
    assert b"id: e1\nok: true" in first.stdout
    assert b"id: e1\nok: true\nsummary: already ran in message 2: " in second.stdout
    assert b"repeats a command" in second.stderr
    assert (ws / "f.txt").read_text() == "line\nadded\n"
    assert [r.id for r in Session(state).results_of(2)] == [
        "e1"
    ]  # the record after the tear is kept


def test_a_torn_journal_record_does_not_misdirect_undo(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    for name in "fgh":
        (ws / f"{name}.txt").write_text(f"{name} original\n")
    assert (
        exec_app(
            ws, state, block("w1", "fs.write", path="f.txt", content="f new"), "--approve", "all"
        ).returncode
        == 0
    )
    with (state / "journal" / "entries.jsonl").open("a") as handle:
        handle.write('{"event": "begin", "seq": 2, "time": 17')
    for cid, name in (("w2", "g"), ("w3", "h")):
        done = exec_app(
            ws,
            state,
            block(cid, "fs.write", path=f"{name}.txt", content=f"{name} new"),
            "--approve",
            "all",
        )
        assert b"ok: true" in done.stdout, done.stdout
    # Every record after the tear is on a line of its own (glued to the torn line, g's first was
    # lost).
    lines = (state / "journal" / "entries.jsonl").read_text().splitlines()
    unreadable = [line for line in lines if not _is_json(line)]
    assert unreadable == ['{"event": "begin", "seq": 2, "time": 17']
    undo = subprocess.run(
        [APP, "undo", "--workspace", str(ws), "--state-dir", str(state), "--steps", "2"],
        capture_output=True,
        timeout=60,
    )
    assert undo.returncode == 0, undo.stderr
    assert [(ws / f"{n}.txt").read_text() for n in "fgh"] == [
        "f new\n",
        "g original\n",
        "h original\n",
    ]


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


# --- used ids: linear in the session --------------------------------------------------------


def test_checking_ids_reads_each_record_once_however_long_the_session(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    earlier = "".join(block(f"old{i}", "fs.stat", path="f.txt") for i in range(300))
    Engine(Workspace(ws), Session(state)).run_text(earlier)
    session = Session(state)
    run = Engine(Workspace(ws), session).run_text(
        "".join(block(f"new{i}", "fs.stat", path="f.txt") for i in range(200))
    )
    assert len(run.results) == 200 and all(r.ok for r in run.results)
    # 300 earlier records read once, then each new record once: not 300 x 200 (the old re-read
    # per block).
    assert session.result_records_parsed <= 300 + 200 + 5


def test_ids_used_by_another_process_meanwhile_are_seen(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    mine = Engine(Workspace(ws), Session(state))
    mine.run_text(block("a", "fs.stat", path="f.txt"))  # the index is loaded now
    other = Engine(Workspace(ws), Session(state), decide=approve_all)
    other.run_text(block("w", "fs.write", path="f.txt", content="x"))
    run = mine.run_text(block("w", "fs.write", path="f.txt", content="y"))
    assert [r.error_code for r in run.results] == ["ERR_DUPLICATE_ID"]
    assert (ws / "f.txt").read_text() == "x\n"


# --- large diffs -------------------------------------------------------------------------


def test_a_huge_diff_is_stored_clipped_and_the_result_text_is_unchanged(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    (ws / "big.txt").write_text("a\n" * 200_000)
    edit = b64(
        json.dumps({"version": 1, "edits": [{"op": "replaceAll", "find": "a", "text": "b"}]})
    )
    run = Engine(Workspace(ws), Session(state), decide=approve_all).run_text(
        block("e", "fs.applyEdits", path="big.txt", edits_b64=edit)
    )
    (result,) = run.results
    assert result.ok and result.diff is not None and len(result.diff) > 4 * STORED_DIFF_LIMIT
    records = (state / "session" / "results.jsonl").read_bytes()
    assert len(records) < 2 * STORED_DIFF_LIMIT  # JSON escapes each line break as two characters
    (stored,) = Session(state).results_of(run.number)
    assert stored.extra["diff_clipped"] == len(result.diff)
    assert stored.diff is not None and stored.diff.endswith("are not kept in the session]")
    assert render_results([stored]) == render_results(run.results)


# --- where the state folder may be ----------------------------------------------------------


@pytest.mark.parametrize("where", ["inside", "itself", "symlink", "holds"])
def test_a_state_folder_the_model_could_reach_is_refused(
    ws: Path, tmp_path: Path, where: str
) -> None:
    state = {
        "inside": ws / ".operator",
        "itself": ws,
        "symlink": tmp_path / "link",
        "holds": tmp_path,
    }[where]
    if where == "symlink":
        (ws / "sub").mkdir()
        (tmp_path / "link").symlink_to(ws / "sub")
    before = sorted(p.name for p in ws.rglob("*"))
    with pytest.raises(StateUnusable):
        check_state_location(Workspace(ws).root, state)
    with pytest.raises(StateUnusable):
        Session(state, workspace_root=ws)
    done = exec_app(
        ws,
        state,
        block("w", "fs.write", path="f.txt", content="changed") + block("l", "fs.list", path="."),
        "--approve",
        "all",
    )
    assert done.returncode == EXIT_STATE and done.stdout == b""
    assert b"state folder" in done.stderr and b"outside the workspace" in done.stderr
    assert (ws / "f.txt").read_text() == "line\n"
    assert sorted(p.name for p in ws.rglob("*")) == before  # no session folder was made in it
    for command in (["undo"], ["results"]):
        other = subprocess.run(
            [APP, *command, "--workspace", str(ws), "--state-dir", str(state)],
            capture_output=True,
            timeout=60,
        )
        assert other.returncode == EXIT_STATE, other.stderr


def test_the_engine_refuses_a_session_inside_its_workspace(ws: Path) -> None:
    session = Session(ws / ".operator")  # built without the check, as an older front end would
    with pytest.raises(StateUnusable):
        Engine(Workspace(ws), session)


def test_a_default_state_folder_inside_the_workspace_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    env = {**os.environ, "XDG_STATE_HOME": str(home / ".local" / "state")}
    done = exec_app(home, None, block("s", "fs.stat", path="project"), env=env)
    assert done.returncode == EXIT_STATE and b"--state-dir" in done.stderr
    assert not (home / ".local").exists()
    fine = exec_app(home / "project", None, block("s", "fs.stat", path="."), env=env)
    assert fine.returncode == 0 and b"ok: true" in fine.stdout


def test_a_state_folder_beside_the_workspace_is_fine(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "ws-state").mkdir()  # a sibling whose name starts like the workspace's
    check_state_location(ws, tmp_path / "ws-state")
    assert exec_app(ws, tmp_path / "ws-state", block("s", "fs.stat", path="f.txt")).returncode == 0
