"""The state folder is the person's alone (issue 26, item 15): every message the model sent, every
result, the journal and the copies of results were 0644 files in 0755 folders, which any user of
the computer could read. Checked on what `operator-app exec` and the TUI really write, and by a
process of another uid trying to read it."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.blocks import b64, block
from tests.support.cases import exec_app
from tests.support.pilot import press_copy
from tests.support.tui_app import DEMO, READS, app_pasted

NOBODY = 65534
AS_ROOT = hasattr(os, "getuid") and os.getuid() == 0


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter (0755, as a home folder often is): what keeps the state
    folder private must be its own modes, not a private folder around it as pytest's own."""
    folder = Path(tempfile.mkdtemp(prefix="operator-shared-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def modes(state: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(state.stat().st_mode)}
    for path in state.rglob("*"):
        if path.is_symlink() or ("trash" in path.relative_to(state).parts[:1] and path.is_file()):
            continue
        found[str(path.relative_to(state))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def owner_only(state: Path) -> list[str]:
    """What under `state` is not owner-only (folders 0700, files 0600)."""
    return [
        f"{name} {oct(mode)}"
        for name, mode in modes(state).items()
        if mode != (0o700 if (state / name).is_dir() else 0o600)
    ]


def read_as_nobody(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/cat", str(path)], user=NOBODY, cwd="/", capture_output=True, text=True, check=False
    )


def test_what_exec_writes_in_the_state_folder_is_the_owners_only(shared: Path) -> None:
    workspace = shared / "ws"
    shutil.copytree(DEMO, workspace)
    os.chmod(workspace, 0o755)
    state = shared / "state"
    message = shared / "message.txt"
    message.write_text(
        "Secret plans ahead.\n"
        + block("r1", "fs.read", path="notes/plan.txt")
        + block("w1", "fs.write", path="notes/new.txt", content_b64=b64("new\n"))
        + block("d1", "fs.delete", path="notes/new.txt")
    )
    done = exec_app(workspace, state, message, "--approve", "all")
    assert done.returncode == 0, done.stderr
    assert (state / "session" / "messages" / "1.txt").read_text().startswith("Secret plans")
    assert (state / "journal" / "pre").is_dir() and (state / "trash").is_dir()
    assert owner_only(state) == []
    if AS_ROOT:
        for path in (state / "session" / "messages" / "1.txt", state / "session" / "results.jsonl"):
            denied = read_as_nobody(path)
            assert denied.returncode != 0 and "Permission denied" in denied.stderr, path


def test_a_state_folder_an_older_operator_left_readable_is_narrowed_when_opened(
    shared: Path,
) -> None:
    workspace = shared / "ws"
    shutil.copytree(DEMO, workspace)
    state = shared / "state"
    (state / "session" / "messages").mkdir(parents=True)
    (state / "session" / "messages" / "1.txt").write_text("an old answer\n")
    for folder in (state, state / "session", state / "session" / "messages"):
        folder.chmod(0o755)
    (state / "session" / "messages" / "1.txt").chmod(0o644)
    message = shared / "message.txt"
    message.write_text(block("r1", "fs.read", path="notes/plan.txt"))
    assert exec_app(workspace, state, message).returncode == 0
    assert owner_only(state) == []
    if AS_ROOT:
        assert read_as_nobody(state / "session" / "messages" / "1.txt").returncode != 0


@pytest.mark.asyncio
async def test_the_copies_of_results_the_tui_saves_are_the_owners_only(shared: Path) -> None:
    workspace = shared / "ws"
    shutil.copytree(DEMO, workspace)
    state = shared / "state"
    async with app_pasted(workspace, state, READS) as (app, pilot):
        copied = await press_copy(pilot, app)
    saved = state / "copies" / "message-1.txt"
    assert saved.read_text() == copied
    assert owner_only(state) == []
    if AS_ROOT:
        denied = read_as_nobody(saved)
        assert denied.returncode != 0 and "Permission denied" in denied.stderr
