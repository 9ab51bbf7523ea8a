"""What a sandbox's command line needs as it starts, beside its words: the descriptors its options
name (the compiled seccomp filter, and the two pipes of a handshake with bwrap), the bounds set
in that handshake, and the watch on what the command writes in the workspace.

The handshake: bwrap builds the sandbox, tells its first process's PID on `--info-fd`, and waits
on `--block-fd` before anything of the command runs. Operator then puts that process into the
command's cgroup (cgroup.py) and sets its rlimits (limits.py), which everything the command starts
inherits, and only then lets it go. Limits set on bwrap before it starts would count the
person's own processes too (RLIMIT_NPROC counts per user, in each user namespace up to the
first), and a cgroup joined after the start would miss what forked before it.

`SandboxCommand` is the command line as a list of words that carries its `Launch`: the code that
builds a command line and the code that starts it (process.py) meet only through it."""

from __future__ import annotations

import json
import os
import resource
import select
import time
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from .cgroup import GroupWay, RunGroup
from .limits import Bound, Limits, rlimits

BoundedBy = Literal["systemd", "cgroup", "rlimits"]
_INFO_LIMIT = 65536  # bwrap's --info-fd document is a few hundred bytes


def _close(fds: list[int]) -> None:
    for fd in list(fds):
        fds.remove(fd)
        try:
            os.close(fd)
        except OSError:
            pass


class UpperWatch:
    """What the command has written in the workspace (the overlay's upper layer), looked at now
    and then while it runs: its bound is `limits.upper`, and never more than half of what its
    disk had free when the command started, so a command cannot fill the disk."""

    def __init__(self, upper: Path, limits: Limits) -> None:
        self.upper = upper
        self.file_size = limits.file_size
        try:
            info = os.statvfs(upper)
            free = info.f_bavail * info.f_frsize
        except OSError:
            free = limits.upper * 2
        self.bound = min(limits.upper, free // 2)
        self.used = 0
        self.largest = 0
        self._next = 0.0

    def over(self, now: float) -> bool:
        """Measured again when due (at most once a second, and less often when a measure takes
        long: a big upper layer is not walked over and over): past the bound?"""
        if now < self._next:
            return False
        self.measure()
        spent = time.monotonic() - now
        self._next = now + max(1.0, 5 * spent)
        return self.used > self.bound

    def measure(self) -> None:
        used = largest = 0
        folders = [str(self.upper)]
        while folders:
            try:
                entries = list(os.scandir(folders.pop()))
            except OSError:
                continue
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                used += info.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    largest = max(largest, info.st_size)
        self.used, self.largest = used, largest


class Launch:
    """The descriptors, bounds and watch of one sandboxed command line. Made with the command
    line (sandbox.py), used once by process.py; whatever it holds is closed by `close`, or when
    it is dropped unused."""

    def __init__(
        self,
        *,
        limits: Limits,
        group_way: GroupWay | None,
        seccomp: bytes | None,
        upper: Path | None,
    ) -> None:
        self.limits = limits
        self.group_way = group_way
        self._seccomp_fd = -1
        if seccomp is not None:
            self._seccomp_fd = os.memfd_create("operator-seccomp", 0)
            os.write(self._seccomp_fd, seccomp)
            os.lseek(self._seccomp_fd, 0, os.SEEK_SET)
        self._info_r, self._info_w = os.pipe()
        self._block_r, self._block_w = os.pipe()
        self._empty: list[int] = []  # what bwrap reads an empty file's content from, each once
        self._open = [
            fd
            for fd in (self._seccomp_fd, self._info_r, self._info_w, self._block_r, self._block_w)
            if fd >= 0
        ]
        # The same list, so a descriptor closed meanwhile (and perhaps reused) is not closed again.
        self._finalizer = weakref.finalize(self, _close, self._open)
        self.watch = UpperWatch(upper, limits) if upper is not None else None
        self.group: RunGroup | None = None
        self._next_count = 0.0  # when the group's counters are read next
        self.bounded_by: BoundedBy = "rlimits"

    def empty_file(self) -> int:
        """A descriptor for `--ro-bind-data`: an empty file shown over a hidden one."""
        fd = os.memfd_create("operator-empty", 0)
        self._empty.append(fd)
        self._open.append(fd)
        return fd

    def options(self) -> list[str]:
        """bwrap's options that name the descriptors."""
        seccomp = ["--seccomp", str(self._seccomp_fd)] if self._seccomp_fd >= 0 else []
        return [*seccomp, "--info-fd", str(self._info_w), "--block-fd", str(self._block_r)]

    def child_fds(self) -> tuple[int, ...]:
        """The descriptors bwrap must inherit."""
        seccomp = (self._seccomp_fd,) if self._seccomp_fd >= 0 else ()
        return (*seccomp, self._info_w, self._block_r, *self._empty)

    def started(self) -> None:
        """bwrap has started: the parent lets go of the ends that are bwrap's."""
        self._drop(self.child_fds())

    def _drop(self, fds: Iterable[int]) -> None:
        for fd in fds:
            if fd in self._open:
                self._open.remove(fd)
                os.close(fd)

    def handshake(self, deadline: float) -> str:
        """Bound the sandbox's first process and let the command start: "" when done, or why
        the bounds could not be set (the command must not run: the caller kills it). A sandbox
        that failed to build says nothing here; its own message is in its output."""
        try:
            pid = self._child_pid(deadline)
            if pid is None:
                return ""
            covered = self._group(pid)
            for which, soft, hard in rlimits(self.limits, group_covers=covered):
                resource.prlimit(pid, which, (soft, hard))
        except OSError as exc:
            return f"the command's bounds could not be set ({exc}); nothing of it ran"
        try:
            os.write(self._block_w, b"1")
        except OSError:  # bwrap has gone already: its output says why
            pass
        self._drop((self._block_w, self._info_r))
        return ""

    def _child_pid(self, deadline: float) -> int | None:
        info = b""
        while len(info) < _INFO_LIMIT:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OSError("bwrap did not say it had built the sandbox in time")
            ready, _, _ = select.select([self._info_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._info_r, 4096)
            if not chunk:
                break
            info += chunk
        if not info.strip():
            return None
        try:
            pid = json.loads(info.decode("utf-8", "replace")).get("child-pid")
        except (ValueError, AttributeError):
            pid = None
        if not isinstance(pid, int):
            raise OSError("bwrap's information had no child-pid")
        return pid

    def _group(self, pid: int) -> frozenset[Bound]:
        """Put the sandbox into a cgroup where this machine gives one: what it bounds."""
        if self.group_way is None:
            return frozenset()
        try:
            self.group = RunGroup(self.group_way, self.limits)
            self.group.join(pid)
        except OSError:  # a cgroup could not be made or joined here: rlimits bound it instead
            if self.group is not None:
                self.group.close()
            self.group = None
            return frozenset()
        self.bounded_by = self.group_way.kind
        return self.group_way.covers

    def over_bound(self, now: float) -> Bound | None:
        """The bound Operator stops the command for, if it has passed one: its writes in the
        workspace ("upper")."""
        if self.group is not None and now >= self._next_count:
            self.group.hit()  # a scope's counters go with it: read while it is there
            self._next_count = now + 1.0
        if self.watch is not None and self.watch.over(now):
            return "upper"
        return None

    def bounds_hit(self) -> tuple[Bound, ...]:
        """Once it has ended: the bounds it reached, as far as Operator can tell (a cgroup counts
        memory kills and refused forks; a file in the workspace at the size bound stopped
        growing there; rlimits alone leave no trace)."""
        hit: set[Bound] = set(self.group.hit()) if self.group is not None else set()
        if self.watch is not None:
            self.watch.measure()
            if self.watch.largest >= self.watch.file_size:
                hit.add("file_size")
            if self.watch.used > self.watch.bound:
                hit.add("upper")
        return tuple(sorted(hit))

    def close(self) -> None:
        if self.group is not None:
            self.group.close()
        self._finalizer()  # closes what is still open, once


class SandboxCommand(list[str]):
    """A bwrap command line, and the `Launch` it must be started with."""

    def __init__(self, words: Iterable[str], launch: Launch) -> None:
        super().__init__(words)
        self.launch = launch
