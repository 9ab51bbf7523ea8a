"""What a write's preview and its result say: a write that creates a file diffs from /dev/null and a
delete to /dev/null, as `git diff` and `diff -u` print them (so the preview is a patch git, patch
and fs.patch itself apply), and a delete's summary says what was moved to the trash, not a line
count as if the file had been edited."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.executor import Engine, approve_all
from operator_app.engine.state.session import Session
from operator_app.protocol.results import CommandResult
from tests.support.blocks import b64, block

NEW_TEXT = "first line\nsecond line\n"


@pytest.fixture(autouse=True)
def session_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")


def run(ws: Path, state: Path, message: str) -> list[CommandResult]:
    return Engine(Workspace(ws), Session(state), decide=approve_all).run_text(message).results


@pytest.mark.parametrize("action", ["fs.write", "fs.patch", "fs.insertRegion"])
def test_a_write_that_creates_a_file_diffs_from_dev_null(action: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    if action == "fs.insertRegion":  # edits an existing file: its diff keeps a/ and b/
        (ws / "notes.py").write_text("import os\n")
        message = block(
            "c1",
            action,
            path="notes.py",
            marker_id="m",
            anchor="import os",
            content_b64=b64("X = 1\n"),
        )
    elif action == "fs.patch":
        message = block(
            "c1",
            action,
            path="notes/new.txt",
            patch_b64=b64(
                "--- /dev/null\n+++ b/notes/new.txt\n@@ -0,0 +1,2 @@\n+first line\n+second line\n"
            ),
        )
    else:
        message = block("c1", action, path="notes/new.txt", content_b64=b64(NEW_TEXT))
    (result,) = run(ws, tmp_path / "st", message)
    assert result.ok and result.diff is not None, result
    head = result.diff.split("\n")[:3]
    if action == "fs.insertRegion":
        assert head[:2] == ["--- a/notes.py", "+++ b/notes.py"]
    else:
        assert head == ["--- /dev/null", "+++ b/notes/new.txt", "@@ -0,0 +1,2 @@"]


def test_the_preview_of_a_new_file_is_a_patch_that_creates_it(tmp_path: Path) -> None:
    """The round trip: the preview diff of a created file, sent back as fs.patch to a workspace
    without the file, creates the same bytes; git apply and patch create them too."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (result,) = run(
        ws,
        tmp_path / "st",
        block("c1", "fs.write", path="notes/new.txt", content_b64=b64(NEW_TEXT)),
    )
    assert result.diff is not None
    other = tmp_path / "other"
    other.mkdir()
    (again,) = run(
        other,
        tmp_path / "st2",
        block("p1", "fs.patch", path="notes/new.txt", patch_b64=b64(result.diff)),
    )
    assert again.ok, again.summary
    assert (other / "notes" / "new.txt").read_bytes() == (ws / "notes" / "new.txt").read_bytes()
    for tool, args in (("git", ["git", "apply", "-"]), ("patch", ["patch", "-p1", "--quiet"])):
        if shutil.which(tool) is None:
            continue
        folder = tmp_path / tool
        folder.mkdir()
        done = subprocess.run(args, input=result.diff, text=True, cwd=folder, capture_output=True)
        assert done.returncode == 0, done.stderr
        assert (folder / "notes" / "new.txt").read_text() == NEW_TEXT


def test_the_preview_of_a_deleted_file_diffs_to_dev_null_and_git_applies_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "plan.txt").write_text("Alpha\nBeta\n")
    (result,) = run(ws, tmp_path / "st", block("d1", "fs.delete", path="notes/plan.txt"))
    assert result.diff is not None and result.diff.startswith(
        "--- a/notes/plan.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n"
    )
    if shutil.which("git") is not None:
        copy = tmp_path / "copy"
        (copy / "notes").mkdir(parents=True)
        (copy / "notes" / "plan.txt").write_text("Alpha\nBeta\n")
        done = subprocess.run(
            ["git", "apply", "-"], input=result.diff, text=True, cwd=copy, capture_output=True
        )
        assert done.returncode == 0, done.stderr
        assert not (copy / "notes" / "plan.txt").exists()


def test_the_preview_of_an_edit_keeps_a_and_b(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("one\n")
    (result,) = run(ws, tmp_path / "st", block("w1", "fs.write", path="a.txt", content="two"))
    assert result.diff is not None and result.diff.startswith(
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n"
    )


@pytest.mark.parametrize(
    ("entry", "summary"),
    [
        ("text", "Moved notes/plan.txt (2 lines, 11 bytes) to the trash"),
        ("one line", "Moved notes/plan.txt (1 line, 5 bytes) to the trash"),
        ("empty", "Moved notes/plan.txt (empty file) to the trash"),
        ("binary", "Moved notes/plan.txt (3 bytes) to the trash"),
        ("symlink", "Moved notes/plan.txt (symlink to ../README.md) to the trash"),
        ("folder", "Moved folder notes/ (2 files) to the trash"),
    ],
)
def test_a_delete_summary_says_what_went_to_the_trash(
    entry: str, summary: str, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "README.md").write_text("hello\n")
    plan = ws / "notes" / "plan.txt"
    if entry == "symlink":
        os.symlink("../README.md", plan)
    else:
        plan.write_bytes(
            {
                "text": b"Alpha\nBeta\n",
                "one line": b"Alpha",
                "empty": b"",
                "binary": b"\x00\x01\x02",
                "folder": b"x",
            }[entry]
        )
    if entry == "folder":
        (ws / "notes" / "other.txt").write_text("y")
    path = "notes" if entry == "folder" else "notes/plan.txt"
    (result,) = run(ws, tmp_path / "st", block("d1", "fs.delete", path=path))
    # OPERATOR_TRASH=session: the summary also says which trash.
    assert (result.ok, result.summary) == (
        True,
        summary + " (Operator's own trash in its state folder)",
    )
