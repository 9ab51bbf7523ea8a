"""fs.copy, fs.move and fs.rename on real folders, through the real `exec` entry point: files and
folders go where path_to says (missing folders made), an existing file is replaced only with
overwrite: true, both paths stay inside the workspace, a rename stays in its folder, and undo
reverses each exactly, also several in a row. What the person is shown before saying yes is
checked too: what goes where, and the diff of a file that is replaced."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.changes.plan import WritePlan
from operator_app.engine.executor import Engine
from operator_app.engine.state.session import Session
from tests.support.blocks import block
from tests.support.exec_folder import cli, entries, exec_json, notes_tree


@pytest.fixture(autouse=True)
def session_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")


def undo(ws: Path, state: Path, steps: int = 1) -> tuple[int, str]:
    code, out, err = cli(
        "undo", "--workspace", str(ws), "--state-dir", str(state), "--steps", str(steps)
    )
    return code, out + err


def refused(ws: Path, tmp_path: Path, message: str) -> dict[str, Any]:
    """The one result of a command that must change nothing, checked to have changed nothing."""
    before = entries(ws)
    (result,) = exec_json(ws, tmp_path / "st", message)
    assert entries(ws) == before, result
    return result


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = notes_tree(tmp_path / "ws")
    (root / "src").mkdir()
    (root / "src" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "src" / "run.sh").chmod(0o755)
    os.symlink("run.sh", root / "src" / "start")
    (root / "README.md").write_text("# Demo\n")
    return root


def test_a_copy_makes_the_missing_folders_keeps_mode_and_undo_removes_both(
    ws: Path, tmp_path: Path
) -> None:
    before = entries(ws)
    (result,) = exec_json(
        ws, tmp_path / "st", block("c1", "fs.copy", path="src/run.sh", path_to="bin/tools/run.sh")
    )
    assert result["ok"], result
    assert result["summary"] == "Copied src/run.sh to bin/tools/run.sh (2 lines, 18 bytes)"
    copy = ws / "bin" / "tools" / "run.sh"
    assert (
        copy.read_bytes() == (ws / "src" / "run.sh").read_bytes()
        and copy.stat().st_mode & 0o777 == 0o755
    )
    assert copy.stat().st_ino != (ws / "src" / "run.sh").stat().st_ino
    assert undo(ws, tmp_path / "st") == (
        0,
        "Removed bin/tools/run.sh, the copy of src/run.sh that c1 (fs.copy) made\n",
    )
    assert entries(ws) == before  # bin/ and bin/tools/ went with it


def test_a_folder_copy_takes_everything_in_it_symlinks_as_symlinks(
    ws: Path, tmp_path: Path
) -> None:
    before = entries(ws)
    (result,) = exec_json(
        ws, tmp_path / "st", block("c1", "fs.copy", path="src", path_to="backup/src")
    )
    assert result["ok"] and result["summary"] == "Copied folder src/ to backup/src/ (2 files)", (
        result
    )
    assert entries(ws / "backup" / "src") == entries(ws / "src")
    assert os.readlink(ws / "backup" / "src" / "start") == "run.sh"
    assert not [p for p in (ws / "backup").iterdir() if p.name != "src"]  # no temporary copy left
    assert undo(ws, tmp_path / "st")[0] == 0
    assert entries(ws) == before


@pytest.mark.parametrize(
    ("action", "path", "path_to"),
    [
        ("fs.move", "notes/plan.txt", "archive/2024/plan.txt"),
        ("fs.move", "notes", "archive/notes"),
        ("fs.rename", "notes/plan.txt", "notes/plan-v2.txt"),
        ("fs.rename", "notes/old", "notes/older"),
        ("fs.move", "src/start", "start"),  # a symlink moves as itself
    ],
)
def test_a_move_or_rename_is_one_rename_and_undo_puts_it_back(
    action: str, path: str, path_to: str, ws: Path, tmp_path: Path
) -> None:
    before = entries(ws)
    inode = os.lstat(ws / path).st_ino
    (result,) = exec_json(ws, tmp_path / "st", block("m1", action, path=path, path_to=path_to))
    assert result["ok"], result
    assert result["summary"].startswith(
        ("Moved " if action == "fs.move" else "Renamed ")
        + ("folder " if (ws / path_to).is_dir() and not (ws / path_to).is_symlink() else "")
    )
    assert (
        not os.path.lexists(ws / path) and os.lstat(ws / path_to).st_ino == inode
    )  # the same entry, renamed
    code, said = undo(ws, tmp_path / "st")
    assert code == 0 and said == f"Moved {path_to} back to {path} (undid {action} m1)\n"
    assert entries(ws) == before and os.lstat(ws / path).st_ino == inode


def test_a_rename_stays_in_its_folder(ws: Path, tmp_path: Path) -> None:
    before = entries(ws)
    results = [
        *exec_json(
            ws,
            tmp_path / "st",
            block("r1", "fs.rename", path="notes/plan.txt", path_to="plan-v2.txt"),
        ),
        *exec_json(
            ws,
            tmp_path / "st",
            block("r2", "fs.rename", path="notes/plan.txt", path_to="archive/plan.txt"),
        ),
    ]
    assert [r["error_code"] for r in results] == ["ERR_INVALID_PATH_TO"] * 2
    assert (
        "fs.rename keeps notes/plan.txt in its folder (notes/), and path_to plan-v2.txt is in the "
        "workspace root; to rename it send path_to: notes/plan-v2.txt, to move it there use fs.move"
    ) in results[0]["summary"]
    assert (
        "path_to archive/plan.txt is in archive/; to rename it send path_to: notes/plan.txt"
        not in results[1]["summary"]
    )
    assert results[1]["summary"].endswith("is in archive/; to move it there use fs.move")
    assert entries(ws) == before


@pytest.mark.parametrize(
    ("action", "path", "path_to", "why"),
    [
        ("fs.move", "notes", "notes/inner/notes", "lies inside the folder notes/ that is to move"),
        ("fs.copy", "notes", "notes/copy", "lies inside the folder notes/ that is to copy"),
        ("fs.copy", "notes/plan.txt", "notes/./plan.txt", "is notes/plan.txt itself"),
        ("fs.move", ".", "elsewhere", "of the workspace root (.) is refused"),
    ],
)
def test_an_entry_never_goes_onto_or_into_itself(
    action: str, path: str, path_to: str, why: str, ws: Path, tmp_path: Path
) -> None:
    result = refused(ws, tmp_path, block("x1", action, path=path, path_to=path_to))
    assert result["error_code"] == "ERR_INVALID_PATH_TO" and why in result["summary"], result


def test_an_existing_file_is_replaced_only_with_overwrite_and_undo_brings_both_back(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "notes" / "todo.txt").write_text("Alpha\nold line\n")
    before = entries(ws)
    (refused,) = exec_json(
        ws, tmp_path / "st", block("m1", "fs.move", path="notes/plan.txt", path_to="notes/todo.txt")
    )
    assert refused["error_code"] == "ERR_TARGET_EXISTS"
    assert refused["summary"] == (
        "ERR_TARGET_EXISTS: path_to notes/todo.txt exists (2 lines, 15 bytes); "
        "send overwrite: true to replace it (the person sees the diff of the file it replaces), "
        "or choose another path_to"
    )
    assert entries(ws) == before
    (moved,) = exec_json(
        ws,
        tmp_path / "st",
        block("m2", "fs.move", path="notes/plan.txt", path_to="notes/todo.txt", overwrite="true"),
    )
    assert moved["ok"] and moved["summary"] == (
        "Moved notes/plan.txt to notes/todo.txt (2 lines, 11 bytes), replacing the "
        "file there (2 lines, 15 bytes: +1 -1 lines)"
    ), moved
    assert (ws / "notes" / "todo.txt").read_text() == "Alpha\nBeta\n" and not (
        ws / "notes" / "plan.txt"
    ).exists()
    code, said = undo(ws, tmp_path / "st")
    assert code == 0 and said.endswith(
        ", and put back the file it had replaced at notes/todo.txt\n"
    ), said
    assert entries(ws) == before


def test_a_copy_over_a_file_shows_the_diff_of_the_file_it_replaces(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "notes" / "todo.txt").write_text("Alpha\nold line\n")
    shown: list[WritePlan] = []

    def look(plan: WritePlan, outlook: object = None) -> bool:
        shown.append(plan)
        return True

    run = Engine(Workspace(ws), Session(tmp_path / "st"), decide=look).run_text(
        block("c1", "fs.copy", path="notes/plan.txt", path_to="notes/todo.txt", overwrite="true")
    )
    (plan,) = shown
    assert (plan.added, plan.removed, plan.where) == (1, 1, "notes/plan.txt -> notes/todo.txt")
    assert plan.diff == (
        "notes/plan.txt -> notes/todo.txt (2 lines, 11 bytes)\n"
        "replaces notes/todo.txt (2 lines, 15 bytes); its content changes:\n"
        "--- a/notes/todo.txt\n+++ b/notes/todo.txt\n@@ -1,2 +1,2 @@\n Alpha\n-old line\n+Beta\n"
    )
    assert run.results[0].ok and (ws / "notes" / "todo.txt").read_text() == "Alpha\nBeta\n"
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"


def test_the_preview_says_what_goes_where_and_which_folders_are_made(
    ws: Path, tmp_path: Path
) -> None:
    shown: list[WritePlan] = []
    Engine(
        Workspace(ws),
        Session(tmp_path / "st"),
        decide=lambda plan, outlook=None: shown.append(plan) or False,
    ).run_text(block("m1", "fs.move", path="notes", path_to="archive/2024/notes"))
    (plan,) = shown
    assert (
        plan.diff == "notes/ -> archive/2024/notes/ (folder, 2 files)\n  plan.txt\n  old/v1.txt\n"
    )
    assert plan.notes == ("creates the folders archive/, archive/2024/",)


@pytest.mark.parametrize(
    ("setup", "path_to", "code", "says"),
    [
        (
            "folder",
            "notes/old",
            "ERR_TARGET_EXISTS",
            "a folder is never replaced; to put README.md in it, name the new path "
            "itself: path_to: notes/old/README.md",
        ),
        (
            "symlink",
            "src/start",
            "ERR_SYMLINK_TARGET",
            "is a symlink; Operator never replaces or writes through one",
        ),
        ("root", ".", "ERR_TARGET_EXISTS", "path_to . is the workspace root"),
        (
            "file in the way",
            "README.md/x.md",
            "ERR_NOT_A_DIRECTORY",
            "goes through README.md, which is a file",
        ),
    ],
)
def test_what_is_never_replaced_even_with_overwrite(
    setup: str, path_to: str, code: str, says: str, ws: Path, tmp_path: Path
) -> None:
    path = "notes/plan.txt" if setup == "file in the way" else "README.md"
    result = refused(
        ws, tmp_path, block("c1", "fs.copy", path=path, path_to=path_to, overwrite="true")
    )
    assert result["error_code"] == code and says in result["summary"], result


def test_a_folder_never_replaces_a_file(ws: Path, tmp_path: Path) -> None:
    (result,) = exec_json(
        ws,
        tmp_path / "st",
        block("m1", "fs.move", path="notes", path_to="README.md", overwrite="true"),
    )
    assert (
        result["error_code"] == "ERR_TARGET_EXISTS"
        and "only a file replaces a file" in result["summary"]
    )


@pytest.mark.parametrize(
    ("path", "path_to", "code"),
    [
        ("README.md", "../outside.md", "ERR_PATH_OUTSIDE_WORKSPACE"),
        ("README.md", "/tmp/x.md", "ERR_PATH_OUTSIDE_WORKSPACE"),
        (
            "README.md",
            "out/x.md",
            "ERR_PATH_OUTSIDE_WORKSPACE",
        ),  # through a symlink that leads outside
        ("out/secret.txt", "secret.txt", "ERR_PATH_OUTSIDE_WORKSPACE"),
        ("../outside.md", "inside.md", "ERR_PATH_OUTSIDE_WORKSPACE"),
        ("pipe", "pipe2", "ERR_SPECIAL_FILE"),
        ("README.md", "a\\b.md", "ERR_INVALID_PATH"),
        ("missing.md", "b.md", "ERR_NOT_FOUND"),
    ],
)
def test_both_paths_are_checked_against_the_workspace(
    path: str, path_to: str, code: str, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside, ws / "out")
    os.mkfifo(ws / "pipe")
    before, beyond = entries(ws), entries(outside)
    for action in ("fs.copy", "fs.move"):
        (result,) = exec_json(
            ws, tmp_path / f"st-{action}", block("t1", action, path=path, path_to=path_to)
        )
        assert result["error_code"] == code, result
    assert entries(ws) == before and entries(outside) == beyond


def test_a_folder_holding_a_fifo_moves_but_is_not_copied(ws: Path, tmp_path: Path) -> None:
    os.mkfifo(ws / "notes" / "pipe")
    (copied, moved) = exec_json(
        ws,
        tmp_path / "st",
        block("c1", "fs.copy", path="notes", path_to="copy")
        + block("m1", "fs.move", path="notes", path_to="moved"),
    )
    assert (
        copied["error_code"] == "ERR_SPECIAL_FILE"
        and "notes/pipe" in copied["summary"]
        and not (ws / "copy").exists()
    )
    assert moved["ok"] and (ws / "moved" / "pipe").exists()


def test_a_rejected_copy_or_move_changes_nothing_and_leaves_its_id_free(
    ws: Path, tmp_path: Path
) -> None:
    before = entries(ws)
    message = block("m1", "fs.move", path="README.md", path_to="docs/README.md")
    (rejected,) = exec_json(ws, tmp_path / "st", message, approve="none")
    assert rejected["error_code"] == "ERR_REJECTED" and entries(ws) == before
    (again,) = exec_json(ws, tmp_path / "st", message)
    assert again["ok"] and (ws / "docs" / "README.md").exists()


def test_several_changes_in_a_row_undo_in_reverse_to_the_very_start(
    ws: Path, tmp_path: Path
) -> None:
    """A move, a write to the moved file, a copy over it and a rename, then four undos: each undo
    finds what the one after it left (an undone write is new bytes in a new inode, and still the
    file the move put there)."""
    before = entries(ws)
    message = (
        block("m1", "fs.move", path="notes/plan.txt", path_to="docs/plan.txt")
        + block("w1", "fs.write", path="docs/plan.txt", content="rewritten")
        + block("c1", "fs.copy", path="README.md", path_to="docs/plan.txt", overwrite="true")
        + block("r1", "fs.rename", path="docs/plan.txt", path_to="docs/plan.md")
    )
    assert all(r["ok"] for r in exec_json(ws, tmp_path / "st", message))
    assert (ws / "docs" / "plan.md").read_text() == "# Demo\n"
    code, said = undo(ws, tmp_path / "st", steps=4)
    assert code == 0, said
    assert entries(ws) == before


def test_undo_refuses_when_the_moved_entry_changed_and_touches_nothing(
    ws: Path, tmp_path: Path
) -> None:
    exec_json(ws, tmp_path / "st", block("m1", "fs.move", path="notes", path_to="archive/notes"))
    (ws / "archive" / "notes" / "new.txt").write_text("added by the person\n")
    after = entries(ws)
    code, said = undo(ws, tmp_path / "st")
    assert (
        code == 6
        and (
            "cannot undo fs.move m1 (notes -> archive/notes): archive/notes changed since "
            "Operator put it there; nothing was touched"
        )
        in said
    )
    assert entries(ws) == after


def test_undo_never_moves_back_over_a_new_entry_at_the_old_place(ws: Path, tmp_path: Path) -> None:
    exec_json(
        ws, tmp_path / "st", block("m1", "fs.move", path="README.md", path_to="docs/README.md")
    )
    (ws / "README.md").write_text("a new readme\n")
    code, said = undo(ws, tmp_path / "st")
    assert code == 6 and "something is at README.md again; move it away first" in said
    assert (ws / "README.md").read_text() == "a new readme\n" and (
        ws / "docs" / "README.md"
    ).read_text() == "# Demo\n"


@pytest.mark.parametrize("meddle", ["source edited", "destination created", "replaced file edited"])
def test_either_side_changing_between_preview_and_commit_is_a_conflict(
    meddle: str, ws: Path, tmp_path: Path
) -> None:
    (ws / "notes" / "todo.txt").write_text("todo\n")
    path_to = "notes/new.txt" if meddle == "destination created" else "notes/todo.txt"

    meddled: list[dict[str, object]] = []

    def change(plan: WritePlan, outlook: object = None) -> bool:
        if meddle == "source edited":
            (ws / "notes" / "plan.txt").write_text("Alpha\nBeta\nedited meanwhile\n")
        elif meddle == "destination created":
            (ws / "notes" / "new.txt").write_text("saved meanwhile\n")
        else:
            (ws / "notes" / "todo.txt").write_text("todo, edited meanwhile\n")
        meddled.append(entries(ws))
        return True

    for action in ("fs.copy", "fs.move"):
        run = Engine(Workspace(ws), Session(tmp_path / f"st-{action}"), decide=change).run_text(
            block("t1", action, path="notes/plan.txt", path_to=path_to, overwrite="true")
        )
        (result,) = run.results
        assert (
            result.error_code == "ERR_CONFLICT"
            and "since the preview; nothing was changed" in result.summary
        ), result
        assert (
            entries(ws) == meddled[-1]
        )  # what the meddling left, untouched: nothing of Operator's
        if meddle == "destination created":
            (ws / "notes" / "new.txt").unlink()


def test_links_that_stay_inside_are_carried_and_one_that_would_lead_out_is_refused(
    ws: Path, tmp_path: Path
) -> None:
    """A relative link keeps meaning "from where I stand": moved deeper it still leads inside
    (src/start -> run.sh goes along with run.sh); an absolute one points where it pointed. Moved
    to where its ../ climbs out of the workspace, it is refused and nothing changes."""
    os.symlink(str(ws / "README.md"), ws / "src" / "abs-readme")
    os.symlink("../README.md", ws / "src" / "readme")
    (result,) = exec_json(
        ws, tmp_path / "st", block("m1", "fs.move", path="src", path_to="deep/er/src")
    )
    assert result["ok"], result
    assert os.readlink(ws / "deep" / "er" / "src" / "start") == "run.sh"
    assert (ws / "deep" / "er" / "src" / "abs-readme").read_text() == "# Demo\n"
    refused_result = refused(
        ws, tmp_path, block("m2", "fs.move", path="deep/er/src/readme", path_to="readme")
    )
    assert refused_result["error_code"] == "ERR_SYMLINK_WOULD_ESCAPE"
    assert "the symlink deep/er/src/readme (-> ../README.md) at readme" in refused_result["summary"]
    for action in ("fs.copy", "fs.rename"):
        new_name = f"deep/er/src/{action[3:]}-start"
        ok = exec_json(
            ws,
            tmp_path / "st",
            block(f"x-{action}", action, path="deep/er/src/start", path_to=new_name),
        )
        assert ok[0]["ok"] and os.readlink(ws / new_name) == "run.sh", ok
