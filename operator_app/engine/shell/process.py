"""One command's process: started in a session (and process group) of its own with no standard
input (/dev/null: end of file at once) and stdout and stderr on one pipe (the output in the order
it was written), its output read as it comes, and the whole group ended when the time limit passes
or the person stops it: SIGTERM, then SIGKILL after a grace period, which no child ignores. In the
sandbox the PID namespace takes every process with it; outside it, whatever is left of the group
when the command itself exits is killed too.

A sandboxed command line (launch.SandboxCommand) is started with its descriptors and bounded in
bwrap's handshake before anything of the command runs; while it runs, what it writes in the
workspace is watched, and past its bound it is stopped like a command past its time limit. Its
`Finished` says how it was bounded and which bounds it reached, as far as that can be told."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable

from msgspec import Struct

from .launch import BoundedBy, Launch, SandboxCommand
from .limits import Bound
from .output import OutputLog

GRACE_S = 2.0  # between SIGTERM and SIGKILL
_TICK_S = 0.25  # how often the person watching is told
_HANDSHAKE_S = 30.0  # at most, for bwrap to build the sandbox before its bounds are set


class Finished(Struct, frozen=True):
    exit: int | None  # the exit status; None when it ended by a signal
    signal: int | None
    seconds: float
    timed_out: bool
    stopped: bool  # by the person
    started: bool  # the command itself began (False: the sandbox could not be built)
    cwd: str | None  # the folder it ended in, as it said ($PWD at its exit)
    # How its memory and processes were bounded (launch.py): by its cgroup ("systemd": the
    # person's systemd scope; "cgroup": one Operator made), or per process ("rlimits"); None when
    # it ran unsandboxed, unbounded.
    bounded_by: BoundedBy | None = None
    # The bounds it reached, as far as Operator can tell (launch.Launch.bounds_hit): "memory" (a
    # process of it killed for memory), "tasks" (a fork or thread refused), "file_size" (a file
    # in the workspace stopped at the size bound), "upper" (its writes in the workspace passed
    # their bound). Under rlimits alone a refused allocation or fork leaves no trace.
    bounds_hit: tuple[Bound, ...] = ()
    # The bound Operator stopped it for (its whole group, as at the time limit), or None.
    stopped_by_bound: Bound | None = None
    # The bound its writes in the workspace had, in bytes (limits.upper, or half the disk's
    # free space when that is less); None when it ran unsandboxed.
    upper_bound: int | None = None


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


def _exit_fd(pid: int) -> int:
    """A descriptor that becomes readable when the command ends (a pidfd, Linux 5.3+), so its
    end is seen at once rather than at the next look; -1 where there is none."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return -1
    try:
        return int(pidfd_open(pid))
    except OSError:
        return -1


def _pause(exit_fd: int, control: Control, seconds: float) -> None:
    """Wait `seconds`, or less: until the command ends (its pidfd) or, without one, until the
    person stops it."""
    if exit_fd < 0:
        control.wait(seconds)
        return
    try:
        select.select([exit_fd], [], [], seconds)
    except OSError:
        control.wait(seconds)


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
    launch = argv.launch if isinstance(argv, SandboxCommand) else None
    try:
        return _run(argv, launch, cwd, env, timeout_s, log, pass_fds, cwd_fd, control, tick)
    finally:
        if launch is not None:
            launch.close()


class _Ended(Struct, frozen=True):
    timed_out: bool = False
    stopped: bool = False
    by_bound: Bound | None = None


def _run(
    argv: list[str],
    launch: Launch | None,
    cwd: str,
    env: dict[str, str],
    timeout_s: float,
    log: OutputLog,
    pass_fds: tuple[int, ...],
    cwd_fd: int,
    control: Control,
    tick: Callable[[float], None],
) -> Finished:
    started_at = time.monotonic()
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=pass_fds + (launch.child_fds() if launch is not None else ()),
        start_new_session=True,
    )
    assert process.stdout is not None
    out = process.stdout
    reader = threading.Thread(target=_pump, args=(out.fileno(), log), daemon=True)
    reader.name = "command-output"
    reader.start()
    refused = ""
    if launch is not None:
        launch.started()
        refused = launch.handshake(started_at + min(timeout_s, _HANDSHAKE_S))
        if refused:  # it must not run unbounded: nothing of it has run yet
            _kill_group(process.pid, signal.SIGKILL)
    ended = _watch(process.pid, launch, started_at, started_at + timeout_s, control, tick)
    # What is left of the group (a child that ignored SIGTERM, or, outside the sandbox, what the
    # command left running: it would hold the output pipe open for good) goes with it.
    _kill_group(process.pid, signal.SIGKILL)
    process.wait()
    seconds = time.monotonic() - started_at
    reader.join(5)
    out.close()
    if refused:
        log.write(f"operator: {refused}\n".encode())
    code = process.returncode
    said = _read_all(cwd_fd).decode("utf-8", "surrogateescape")
    started = said.startswith("+")
    cwd_said = said[1:].strip() if started else ""
    return Finished(
        exit=code if code is not None and code >= 0 else None,
        signal=-code if code is not None and code < 0 else None,
        seconds=seconds,
        timed_out=ended.timed_out,
        stopped=ended.stopped,
        started=started,
        cwd=cwd_said or None,
        bounded_by=launch.bounded_by if launch is not None else None,
        bounds_hit=launch.bounds_hit() if launch is not None else (),
        stopped_by_bound=ended.by_bound,
        upper_bound=launch.watch.bound if launch is not None and launch.watch else None,
    )


def _pump(fd: int, log: OutputLog) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        log.write(chunk)


def _watch(
    pid: int,
    launch: Launch | None,
    started_at: float,
    deadline: float,
    control: Control,
    tick: Callable[[float], None],
) -> _Ended:
    """Wait for the command to end, or end it: at its time limit, when the person stops it, or
    when it passes a bound Operator watches. The command is looked at without reaping it
    (WNOWAIT): while it is a zombie its process group's number cannot be handed to another
    group, so killing the group never hits a stranger."""
    next_tick = started_at + _TICK_S
    ended = _Ended()
    exit_fd = _exit_fd(pid)
    try:
        while not _exited(pid):
            now = time.monotonic()
            bound = launch.over_bound(now) if launch is not None else None
            if now >= deadline or control.stopping or bound is not None:
                ended = _Ended(
                    timed_out=bound is None and not control.stopping,
                    stopped=control.stopping,
                    by_bound=bound,
                )
                _kill_group(pid, signal.SIGTERM)
                grace = time.monotonic() + GRACE_S
                while not _exited(pid) and time.monotonic() < grace:
                    time.sleep(0.02)
                break
            if now >= next_tick:
                tick(now - started_at)
                next_tick = now + _TICK_S
            _pause(exit_fd, control, min(0.05, max(deadline - now, 0.001)))
    finally:
        if exit_fd >= 0:
            os.close(exit_fd)
    return ended
