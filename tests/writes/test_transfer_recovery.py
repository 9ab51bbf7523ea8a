"""fs.copy and fs.move when things go wrong: a move to another file system (a tmpfs mounted inside
the workspace; root only) is copy + fsync + trash of the original and undo brings it back; and an
app killed at any step of a copy or move leaves the session able to tell the model exactly what
happened (the change made, or not made), never a temporary copy in the person's tree, and undo
still reverses what was made."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.blocks import block
from tests.support.cases import in_session
from tests.support.dying_engine import die_during_a_write
from tests.support.exec_folder import entries, notes_tree

ENV = dict(os.environ, OPERATOR_TRASH="session")


def run(ws: Path, state: Path, message: str) -> list[dict[str, Any]]:
    path = state.parent / "message.txt"
    path.write_text(message)
    done = in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        "--json",
        str(path),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["data"]
    return [] if data is None else list(data["results"])  # None: every block repeated one that ran


def last_results(ws: Path, state: Path) -> list[dict[str, Any]]:
    done = in_session("results", ws, state, "--last", "--json")
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)["data"]["results"]
    return results


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = notes_tree(tmp_path / "ws")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o750)
    return root


@pytest.fixture
def other_fs(ws: Path) -> Iterator[Path]:
    """A tmpfs mounted at ws/mnt: a second file system inside the workspace."""
    mount = ws / "mnt"
    mount.mkdir()
    if (
        os.geteuid() != 0
        or shutil.which("mount") is None
        or subprocess.run(
            ["mount", "-t", "tmpfs", "tmpfs", str(mount)], capture_output=True
        ).returncode
        != 0
    ):
        pytest.skip("needs to mount a tmpfs inside the workspace (root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_move_to_another_file_system_copies_syncs_and_trashes_the_original(
    what: str, ws: Path, other_fs: Path, tmp_path: Path
) -> None:
    before = entries(ws, exact=True)
    path = "run.sh" if what == "file" else "notes"
    state = tmp_path / "st"
    (result,) = run(ws, state, block("m1", "fs.move", path=path, path_to=f"mnt/deep/{path}"))
    assert result["ok"], result
    assert result["summary"].endswith(
        "; it was on another file system: copied, and the original moved to the trash"
    )
    assert not (ws / path).exists()
    assert (
        entries(other_fs / "deep" / path, exact=True)
        == {k[len(path) + 1 :]: v for k, v in before.items() if k.startswith(path + "/")}
        if what == "folder"
        else (other_fs / "deep" / path).read_bytes() == b"#!/bin/sh\n"
    )
    assert (
        state / "trash" / "1" / path
    ).exists()  # the original, in Operator's own trash (OPERATOR_TRASH=session)
    assert [p.name for p in (other_fs / "deep").iterdir()] == [
        path
    ]  # no temporary copy left beside it
    undo = in_session("undo", ws, state)
    assert undo.returncode == 0, undo.stderr
    assert undo.stdout == f"Moved mnt/deep/{path} back to {path} (undid fs.move m1)\n"
    assert (
        entries(ws, exact=True) == before
    )  # modes and mtimes too: the very entry came back from the trash


def test_a_move_over_a_file_on_another_file_system_and_its_undo(
    ws: Path, other_fs: Path, tmp_path: Path
) -> None:
    (other_fs / "plan.txt").write_text("Alpha\nold\n")
    before = entries(ws, exact=True)
    state = tmp_path / "st"
    (result,) = run(
        ws,
        state,
        block("m1", "fs.move", path="notes/plan.txt", path_to="mnt/plan.txt", overwrite="true"),
    )
    assert (
        result["ok"]
        and "replacing the file there (2 lines, 10 bytes: +1 -1 lines)" in result["summary"]
    ), result
    assert (other_fs / "plan.txt").read_text() == "Alpha\nBeta\n" and not (
        ws / "notes" / "plan.txt"
    ).exists()
    undo = in_session("undo", ws, state)
    assert undo.returncode == 0, undo.stderr
    assert entries(ws, exact=True) == before


@pytest.mark.parametrize("point", ["before-trashing-the-original", "after-replace"])
def test_a_move_to_another_file_system_the_app_died_in_after_the_copy_is_finished(
    point: str, ws: Path, other_fs: Path, tmp_path: Path
) -> None:
    """The copy is whole at the destination: the move the person approved is completed (the
    original goes to the trash, or its trash is recorded) and the model gets its ok result."""
    before = entries(ws, exact=True)
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(block("m1", "fs.move", path="notes", path_to="mnt/notes"))
    die_during_a_write(ws, state, message, point, env=ENV)
    assert (other_fs / "notes" / "plan.txt").exists()
    (result,) = last_results(ws, state)
    assert (result["id"], result["ok"]) == ("m1", True), result
    assert not (ws / "notes").exists() and (state / "trash" / "1" / "notes" / "plan.txt").exists()
    undo = in_session("undo", ws, state)
    assert undo.returncode == 0, undo.stderr
    assert entries(ws, exact=True) == before


def test_a_move_to_another_file_system_killed_before_its_copy_was_in_place_was_not_made(
    ws: Path, other_fs: Path, tmp_path: Path
) -> None:
    before = entries(ws, exact=True)
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(block("m1", "fs.move", path="notes", path_to="mnt/notes"))
    die_during_a_write(ws, state, message, "after-copy", env=ENV)
    assert [p.name for p in other_fs.iterdir()] != []  # the whole copy under its temporary name
    (result,) = last_results(ws, state)
    assert (result["ok"], result["error_code"]) == (
        False,
        "ERR_INTERNAL",
    ) and "the change was not made" in result["summary"]
    assert (
        entries(ws, exact=True) == before
    )  # and the temporary copy swept from the other file system


@pytest.mark.parametrize(
    ("action", "path", "path_to"),
    [
        ("fs.move", "notes", "archive/notes"),
        ("fs.rename", "notes/plan.txt", "notes/plan.md"),
        ("fs.copy", "notes", "archive/notes"),
        ("fs.copy", "run.sh", "bin/run.sh"),
    ],
)
def test_a_copy_or_move_whose_journal_record_was_cut_short_gets_its_ok_result_and_can_be_undone(
    action: str, path: str, path_to: str, ws: Path, tmp_path: Path
) -> None:
    """Killed after the entry reached its place, before the journal's "commit" record: what stands
    at the two places says the change was made; its result is ok, and undo reverses it."""
    before = entries(ws, exact=True)
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(block("t1", action, path=path, path_to=path_to))
    die_during_a_write(ws, state, message, "after-replace", env=ENV)
    assert (ws / path_to).exists()
    (result,) = last_results(ws, state)
    assert (result["id"], result["ok"]) == ("t1", True), result
    again = run(ws, state, block("t1", action, path=path, path_to=path_to))
    # a repeat of a command that ran: not applied twice, answered with its recovered result
    assert [(r["id"], r["ok"]) for r in again] == [("t1", True)]
    assert again[0]["summary"].startswith("already ran in message 1: ")
    undo = in_session("undo", ws, state)
    assert undo.returncode == 0, undo.stderr
    assert entries(ws, exact=True) == before


@pytest.mark.parametrize(
    ("action", "point", "overwrite"),
    [
        ("fs.move", "before-moving", "false"),
        ("fs.move", "before-moving", "true"),
        ("fs.copy", "before-moving", "true"),
        ("fs.copy", "after-copy", "false"),
        ("fs.copy", "after-copy", "true"),
    ],
)
def test_a_copy_or_move_killed_before_it_took_effect_says_nothing_changed_and_leaves_no_copy(
    action: str, point: str, overwrite: str, ws: Path, tmp_path: Path
) -> None:
    path, path_to = (
        ("notes/plan.txt", "notes/old/v1.txt")
        if overwrite == "true"
        else ("notes", "archive/notes")
    )
    before = entries(ws, exact=True)
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(block("t1", action, path=path, path_to=path_to, overwrite=overwrite))
    die_during_a_write(ws, state, message, point, env=ENV)
    (result,) = last_results(ws, state)
    assert (result["ok"], result["error_code"]) == (False, "ERR_INTERNAL"), result
    assert "the change was not made; send the command again" in result["summary"]
    # Nothing changed: no temporary copy is left, nor the folder made for the destination.
    assert entries(ws, exact=True) == before
    again = run(ws, state, block("t1", action, path=path, path_to=path_to, overwrite=overwrite))
    assert [r["ok"] for r in again] == [True]  # the id stayed free: sent again, it is applied


def test_a_moved_entry_changed_after_the_crash_is_not_said_either_way(
    ws: Path, tmp_path: Path
) -> None:
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(block("m1", "fs.move", path="notes/plan.txt", path_to="archive/plan.txt"))
    die_during_a_write(ws, state, message, "after-replace", env=ENV)
    (ws / "archive" / "plan.txt").write_text("edited after the crash\n")
    (result,) = last_results(ws, state)
    assert (result["ok"], result["error_code"]) == (False, "ERR_INTERNAL")
    assert "not made" not in result["summary"] and "read" in result["summary"], result["summary"]


def test_undo_right_after_a_crash_completes_the_move_first_and_undoes_it_not_an_older_change(
    ws: Path, tmp_path: Path
) -> None:
    """Until recovery records it, a move cut short has no "commit" record, and undo would pass it
    over and undo the change before it. `undo` recovers first, and says so."""
    state, message = tmp_path / "st", tmp_path / "m.txt"
    assert run(ws, state, block("w1", "fs.write", path="notes/plan.txt", content="rewritten"))[0][
        "ok"
    ]
    message.write_text(block("m1", "fs.move", path="notes/plan.txt", path_to="archive/plan.txt"))
    die_during_a_write(ws, state, message, "after-replace", env=ENV)
    undo = in_session("undo", ws, state)
    assert undo.returncode == 0, undo.stderr
    assert undo.stdout == "Moved archive/plan.txt back to notes/plan.txt (undid fs.move m1)\n"
    assert (
        "Operator stopped during a write of message 2 last time; the result of m1 (ok) is now "
        "recorded"
    ) in undo.stderr
    assert (ws / "notes" / "plan.txt").read_text() == "rewritten\n" and not (
        ws / "archive"
    ).exists()
