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


SIGIL = "\U0001d49e"


def test_what_commands_and_string_topics_leave_in_the_state_folder_is_the_owners_only(
    shared: Path,
) -> None:
    """Issues 24 and 28 write there too: a command's output log and run folders, its change-set
    in the journal (journal/sets/N), String's topics; all of it the owner's only."""
    from operator_app.engine import find_sandbox

    if not find_sandbox().usable:
        pytest.skip("no sandbox on this machine: shell.run would not run")
    workspace = shared / "ws"
    shutil.copytree(DEMO, workspace)
    state = shared / "state"
    message = shared / "message.txt"
    message.write_text(
        block("c1", "shell.run", command_b64=b64("echo built > notes/built.txt; echo printed"))
        + f"<{SIGIL}=string:file:notes>/open notes/plan.txt</{SIGIL}>\n"
    )
    done = exec_app(workspace, state, message, "--approve", "all")
    assert done.returncode == 0, done.stderr
    assert (workspace / "notes" / "built.txt").read_text() == "built\n"
    assert list((state / "journal" / "sets").iterdir()), "the change-set's journal folder"
    assert list((state / "shell" / "output").glob("*.log")) and (state / "shell" / "runs").is_dir()
    assert list((state / "topics").iterdir()), "String's topic"
    assert owner_only(state) == []
    if AS_ROOT:
        for log in (state / "shell" / "output").glob("*.log"):
            denied = read_as_nobody(log)
            assert denied.returncode != 0 and "Permission denied" in denied.stderr, log


def test_a_commands_upper_layer_is_out_of_other_users_reach_while_it_waits(shared: Path) -> None:
    """What a command wrote waits in its overlay's upper layer, with the command's own modes,
    until the person answers: the run folder around it is 0700."""
    from operator_app.engine import Engine, Session, Workspace, find_sandbox

    if not find_sandbox().usable:
        pytest.skip("no sandbox on this machine: shell.run would not run")
    workspace = shared / "ws"
    shutil.copytree(DEMO, workspace)
    state = shared / "state"
    seen: dict[str, object] = {}

    def decide(plan: object, outlook: object) -> bool:
        if getattr(plan, "kind", None) == "changeset":
            (run,) = (state / "shell" / "runs").iterdir()
            written = run / "upper" / "notes" / "built.txt"
            seen["written"] = written.read_text()
            seen["file mode"] = stat.S_IMODE(written.stat().st_mode)
            seen["run folder"] = stat.S_IMODE(run.stat().st_mode)
            if AS_ROOT:
                seen["other user"] = read_as_nobody(written).returncode
        return True

    session = Session(state)
    engine = Engine(Workspace(workspace), session, decide=decide)
    script = "umask 022; echo built > notes/built.txt"
    run = engine.run_text(block("c1", "shell.run", command_b64=b64(script)))
    assert run.results[0].ok, run.results[0].summary
    assert seen["written"] == "built\n" and seen["file mode"] == 0o644  # the command's own
    assert seen["run folder"] == 0o700
    if AS_ROOT:
        assert seen["other user"] != 0
    assert owner_only(state) == []


def test_the_internal_errors_log_is_the_owners_only(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28's log of Operator's own failures names the person's files: 0600, even when a log
    an older Operator made was readable."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from operator_app.cli.main import main as cli_main
    from operator_app.engine.reads import handlers as reads

    def broken(cmd: object, ctx: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setitem(reads.READ_HANDLERS, "fs.stat", broken)
    workspace = shared / "ws"
    shutil.copytree(DEMO, workspace)
    state = shared / "state"
    message = shared / "message.txt"
    message.write_text(block("s1", "fs.stat", path="notes/plan.txt"))
    args = ["exec", "--workspace", str(workspace), "--state-dir", str(state), str(message)]
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli_main(args) == 0
    log = state / "internal-errors.log"
    assert "RuntimeError: boom" in log.read_text()
    assert owner_only(state) == []
    log.chmod(0o644)  # as an older Operator left it
    message.write_text(block("s2", "fs.stat", path="notes/plan.txt"))
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli_main(args) == 0
    assert log.read_text().count("RuntimeError: boom") == 2
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
