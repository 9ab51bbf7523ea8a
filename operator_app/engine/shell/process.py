"""One command's process: started in a session (and process group) of its own with no standard
input (/dev/null: end of file at once) and stdout and stderr on one pipe (the output in the order
it was written), its output read as it comes, and the whole group ended when the time limit passes
or the person stops it: SIGTERM, then SIGKILL after a grace period, which no child ignores. In the
sandbox the PID namespace takes every process with it; outside it, whatever is left of the group
when the command itself exits is killed too."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable

from msgspec import Struct

from .output import OutputLog

GRACE_S = 2.0  # between SIGTERM and SIGKILL
_TICK_S = 0.25  # how often the person watching is told


class Finished(Struct, frozen=True):
    exit: int | None  # the exit status; None when it ended by a signal
    signal: int | None
    seconds: float
    timed_out: bool
    stopped: bool  # by the person
    started: bool  # the command itself began (False: the sandbox could not be built)
    cwd: str | None  # the folder it ended in, as it said ($PWD at its exit)


class Control:
    """What the person watching a command may do with it: stop it."""

    def __init__(self) -> None:
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def wait(self, seconds: float) -> bool:
        return self._stop.wait(seconds)


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _exited(pid: int) -> bool:
    if not hasattr(os, "waitid"):  # macOS: a reaped leader's group may be reused (rare, and
        return _poll_reaps(pid)  # only unsandboxed commands run there)
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _poll_reaps(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done != 0


def _read_all(fd: int, limit: int = 65536) -> bytes:
    chunks = []
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], 0)
            if not ready:
                break
            chunk = os.read(fd, limit)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def run_process(
    argv: list[str],
    *,
    cwd: str,
    env: dict[str, str],
    timeout_s: float,
    log: OutputLog,
    pass_fds: tuple[int, ...],
    cwd_fd: int,
    control: Control,
    tick: Callable[[float], None],
) -> Finished:
    """Run `argv`, its output into `log`; `cwd_fd` is the read end the command writes "+" to as
    it starts and its final folder to as it ends. `tick` is called with the seconds so far while
    it runs."""
    started_at = time.monotonic()
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=pass_fds,
        start_new_session=True,
    )
    assert process.stdout is not None
    out = process.stdout

    def pump() -> None:
        while True:
            try:
                chunk = os.read(out.fileno(), 65536)
            except OSError:
                return
            if not chunk:
                return
            log.write(chunk)

    reader = threading.Thread(target=pump, daemon=True, name="command-output")
    reader.start()
    timed_out = stopped = False
    deadline = started_at + timeout_s
    next_tick = started_at + _TICK_S
    # The command is looked at without reaping it (WNOWAIT): while it is a zombie its process
    # group's number cannot be handed to another group, so killing the group never hits a stranger.
    while not _exited(process.pid):
        now = time.monotonic()
        if now >= deadline or control.stopping:
            timed_out, stopped = not control.stopping, control.stopping
            _kill_group(process.pid, signal.SIGTERM)
            grace = time.monotonic() + GRACE_S
            while not _exited(process.pid) and time.monotonic() < grace:
                time.sleep(0.02)
            break
        if now >= next_tick:
            tick(now - started_at)
            next_tick = now + _TICK_S
        control.wait(min(0.05, max(deadline - now, 0.001)))
    # What is left of the group (a child that ignored SIGTERM, or, outside the sandbox, what the
    # command left running: it would hold the output pipe open for good) goes with it.
    _kill_group(process.pid, signal.SIGKILL)
    process.wait()
    seconds = time.monotonic() - started_at
    reader.join(5)
    out.close()
    code = process.returncode
    said = _read_all(cwd_fd).decode("utf-8", "surrogateescape")
    started = said.startswith("+")
    cwd_said = said[1:].strip() if started else ""
    return Finished(
        exit=code if code is not None and code >= 0 else None,
        signal=-code if code is not None and code < 0 else None,
        seconds=seconds,
        timed_out=timed_out,
        stopped=stopped,
        started=started,
        cwd=cwd_said or None,
    )
