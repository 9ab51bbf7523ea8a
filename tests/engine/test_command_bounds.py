"""How much a sandboxed command may take (issue 34, item 5), on a real sandbox: a fork bomb, a
memory hog, a file past the size bound, a command that fills the workspace, /tmp filled, core
files and open files. Each runs through the sandbox's own command line and process.py's start,
with small limits, and its `Finished` says which bound it reached where that can be told (a
cgroup counts refused forks and memory kills; Operator watches the workspace's upper layer)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from operator_app.engine.shell.limits import Limits, MiB
from operator_app.engine.shell.output import OutputLog
from operator_app.engine.shell.process import Control, Finished, run_process
from operator_app.engine.shell.sandbox import find_sandbox
from tests.cli.test_shell import sandbox_or_skip

AS_ROOT = hasattr(os, "getuid") and os.getuid() == 0


@pytest.fixture
def place() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="operator-bounds-"))
    for name in ("ws", "upper", "work"):
        (folder / name).mkdir()
    yield folder
    for path in folder.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o700)  # the overlay's work folder is left mode 000
    shutil.rmtree(folder, ignore_errors=True)


def run_bounded(
    place: Path, script: str, limits: Limits, timeout_s: float = 60
) -> tuple[Finished, str]:
    sandbox_or_skip()
    said_r, said_w = os.pipe()
    log = OutputLog(place / f"output-{len(list(place.glob('output-*')))}.log")
    wrapper = f"printf + >&{said_w}; {script}"
    try:
        argv = find_sandbox().argv(
            workspace=place / "ws",
            upper=place / "upper",
            work=place / "work",
            cwd=place / "ws",
            network=False,
            command=["bash", "--noprofile", "--norc", "-c", wrapper],
            limits=limits,
        )
        finished = run_process(
            argv,
            cwd=str(place),
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
            timeout_s=timeout_s,
            log=log,
            pass_fds=(said_w,),
            cwd_fd=said_r,
            control=Control(),
            tick=lambda seconds: None,
        )
    finally:
        os.close(said_w)
        os.close(said_r)
        log.close()
    assert finished.started, log.kept().text
    return finished, log.kept().text


def small(**changed: int) -> Limits:
    from msgspec.structs import replace

    return replace(Limits.default(), **changed)


def group_bounds(finished: Finished) -> bool:
    return finished.bounded_by in ("cgroup", "systemd")


FORK_BOMB = """python3 - <<'EOF'
import os, time
made = 0
try:
    while made < 1000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        made += 1
except OSError as exc:
    print(f"refused after {made}: {exc.strerror}")
EOF
"""


def test_a_fork_bomb_is_bounded_and_said_so(place: Path) -> None:
    finished, text = run_bounded(place, FORK_BOMB, small(tasks=64))
    if AS_ROOT and not group_bounds(finished):
        pytest.skip("as root without a cgroup the number of processes cannot be bounded here")
    assert "refused after" in text and "Resource temporarily unavailable" in text, text
    made = int(text.split("refused after ")[1].split(":")[0])
    assert made < 64
    if group_bounds(finished):
        assert "tasks" in finished.bounds_hit, finished
    else:  # rlimits alone: bounded, but no trace of it to read
        assert finished.bounded_by == "rlimits"


MEMORY_HOG = """python3 - <<'EOF'
chunks = []
try:
    for _ in range(64):
        chunks.append(bytearray(16 * 1024 * 1024))  # written: really taken, 1 GiB in all
    print("took it all")
except MemoryError:
    print("refused: MemoryError")
EOF
echo after=$?
"""


def test_a_memory_hog_is_bounded_and_said_so(place: Path) -> None:
    finished, text = run_bounded(place, MEMORY_HOG, small(memory=160 * MiB, tmp=16 * MiB))
    assert "took it all" not in text.splitlines(), text
    if group_bounds(finished):
        assert "memory" in finished.bounds_hit, (finished, text)
        assert "after=137" in text  # killed for memory (SIGKILL)
    else:
        assert "refused: MemoryError" in text and finished.bounded_by == "rlimits"


def test_a_file_past_the_size_bound_stops_at_it_and_is_said(place: Path) -> None:
    script = "head -c 3M /dev/zero > big.bin; echo head=$?; stat -c size=%s big.bin\n"
    finished, text = run_bounded(place, script, small(file_size=1 * MiB))
    assert "head=153" in text and "size=1048576" in text, text  # SIGXFSZ, at the bound
    assert finished.bounds_hit == ("file_size",) and finished.stopped_by_bound is None


def test_a_command_that_fills_the_workspace_is_stopped_at_its_bound(place: Path) -> None:
    script = (
        "for i in $(seq 40); do head -c 1M /dev/urandom > f$i.bin; sleep 0.1; done; echo done\n"
    )
    finished, text = run_bounded(place, script, small(upper=4 * MiB))
    assert finished.stopped_by_bound == "upper" and "upper" in finished.bounds_hit
    assert finished.upper_bound == 4 * MiB
    assert "done" not in text and not finished.timed_out and not finished.stopped
    written = sum(p.stat().st_size for p in (place / "upper").iterdir())
    assert written < 12 * MiB  # stopped within a few seconds of passing 4 MiB


def test_tmp_is_bounded_and_core_files_and_open_files_too(place: Path) -> None:
    script = (
        "head -c 3M /dev/zero > /tmp/fill 2>/dev/null; echo tmp=$?\n"
        "echo tmp_size=$(stat -c %s /tmp/fill)\n"
        "echo core=$(ulimit -c) files=$(ulimit -Hn)\n"
    )
    finished, text = run_bounded(place, script, small(tmp=1 * MiB, open_files=256))
    assert "tmp=1" in text and "tmp_size=1048576" in text, text  # no space left on /tmp
    assert "core=0 files=256" in text
    assert finished.bounds_hit == ()


def test_limits_come_from_the_settings_with_bad_values_ignored() -> None:
    limits = Limits.from_settings(
        {"memory_mb": 512, "tasks": 100, "tmp_mb": "big", "upper_mb": -1, "open_files": True}
    )
    default = Limits.default()
    assert limits.memory == 512 * MiB and limits.tasks == 100
    assert (limits.tmp, limits.upper, limits.open_files) == (
        default.tmp,
        default.upper,
        default.open_files,
    )
    assert Limits.from_settings(None) == default


AS_USER = """
import json, os, sys
sys.path.insert(0, {root!r})
from msgspec import to_builtins
from pathlib import Path
from tests.engine.test_command_bounds import FORK_BOMB, run_bounded, small
finished, text = run_bounded(Path({place!r}), FORK_BOMB, small(tasks=64))
print(json.dumps({{"finished": to_builtins(finished), "text": text}}))
"""


def test_as_an_ordinary_user_a_fork_bomb_is_bounded_by_rlimits() -> None:
    """A user's processes are counted in the sandbox's own user namespace: RLIMIT_NPROC set in
    the handshake bounds the command's processes, not the person's others."""
    import json
    import subprocess

    from tests.support.other_user import (
        NOBODY,
        ROOT,
        give_to_nobody,
        nobodys_folder,
        python_for_nobody_or_skip,
    )
    from tests.support.other_user import _import_path as import_path

    python = python_for_nobody_or_skip()
    with nobodys_folder() as folder:
        for name in ("ws", "upper", "work"):
            (folder / name).mkdir()
        give_to_nobody(folder)
        done = subprocess.run(
            [python, "-c", AS_USER.format(root=str(ROOT), place=str(folder))],
            user=NOBODY,
            cwd=str(folder),
            env={"PYTHONPATH": import_path(), "HOME": str(folder), "PATH": os.environ["PATH"]},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if "no sandbox on this machine" in done.stdout + done.stderr:
            pytest.skip("no sandbox for an ordinary user here")
        assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    text = found["text"]
    assert "refused after" in text, text
    assert int(text.split("refused after ")[1].split(":")[0]) < 64
    assert found["finished"]["bounded_by"] == "rlimits"
