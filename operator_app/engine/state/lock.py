"""One Operator process (and one thread of it) at a time works in a state folder: `hold()` takes
the folder's lock (flock of state/lock, waited for up to LOCK_TIMEOUT_S) for as long as the work
takes, the TUI and `exec` alike. Waiting for a person is not work: `waiting()` lets go of the lock
while a write waits for its yes or no, so `exec`, `results` or an undo in the same session do not
stand behind a consent dialog, and takes it again before the write goes on.

While a process waits, a file of its own in state/waiting/ says which message and which write
wait; it stays flock'd for as long as the wait lasts, so one left by a process that died is
seen for what it is (and removed) instead of read as a wait. `waits()` lists the live ones.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..ondisk.private import private_folder

LOCK_TIMEOUT_S = 30.0


class StateUnusable(Exception):
    pass


class SessionLock:
    def __init__(self, state_dir: Path, on_acquired: Callable[[], None] = lambda: None) -> None:
        """`on_acquired` runs each time the lock is taken (or taken back after a wait): what the
        holder knows of the session may be out of date from then on."""
        self.state_dir = state_dir
        self._on_acquired = on_acquired
        self._mine = threading.local()  # the thread's held descriptor and how deeply it holds it

    @property
    def held(self) -> bool:
        """Whether this thread holds the lock now (not while it waits for a person)."""
        return getattr(self._mine, "fd", None) is not None

    @contextmanager
    def hold(self, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        """Hold the lock for the block; a thread already holding it just goes on holding it."""
        if getattr(self._mine, "depth", 0) > 0:
            self._mine.depth += 1
            try:
                yield
            finally:
                self._mine.depth -= 1
            return
        fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            self._take(fd, timeout)
            self._mine.fd, self._mine.depth = fd, 1
            self._on_acquired()
            yield
        finally:
            self._mine.fd, self._mine.depth = None, 0
            os.close(fd)  # closing releases the lock

    def _take(self, fd: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StateUnusable(
                        "another Operator process is working in "
                        f"{self.state_dir}; try again when it is done"
                    ) from None
                time.sleep(0.05)

    @contextmanager
    def waiting(self, what: dict[str, Any], timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        """Let go of the held lock while a person decides; `what` (message, id, action, path) is
        what `waits()` tells other processes meanwhile. The lock is taken back when the block
        ends normally (StateUnusable if that takes longer than `timeout`); when it ends with an
        exception (the person quit), it is not: the holder is on its way out."""
        fd = getattr(self._mine, "fd", None)
        if fd is None:  # nothing held (a caller working without the lock): nothing to let go of
            yield
            return
        marker = self._mark_waiting(what)
        fcntl.flock(fd, fcntl.LOCK_UN)
        self._mine.fd = None  # not held until taken back (hold() closes the descriptor either way)
        try:
            yield
        finally:
            self._unmark(marker)
        self._take(fd, timeout)
        self._mine.fd = fd
        self._on_acquired()

    def _mark_waiting(self, what: dict[str, Any]) -> tuple[int, Path] | None:
        folder = self.state_dir / "waiting"
        name = f"{os.getpid()}-{secrets.token_hex(4)}"
        try:
            private_folder(folder, top=self.state_dir)
            # Written and locked under another name first: a reader must never find it unlocked
            # and take it for the leftover of a dead process.
            fd = os.open(
                folder / f".{name}.tmp", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600
            )
        except OSError:
            return None  # only a courtesy to other processes: the wait goes on without it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(
                fd, json.dumps({**what, "pid": os.getpid(), "since": time.time()}).encode("utf-8")
            )
            os.rename(folder / f".{name}.tmp", folder / f"{name}.json")
        except OSError:
            os.close(fd)
            return None
        return fd, folder / f"{name}.json"

    @staticmethod
    def _unmark(marker: tuple[int, Path] | None) -> None:
        if marker is None:
            return
        fd, path = marker
        try:
            path.unlink()
        except OSError:
            pass
        os.close(fd)

    def waits(self) -> list[dict[str, Any]]:
        """What other processes' writes in this session await (a person's answer), oldest first."""
        folder = self.state_dir / "waiting"
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return []
        found = []
        for name in names:
            if not name.endswith(".json"):
                continue
            try:
                fd = os.open(folder / name, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:  # held: a live wait
                    record = json.loads(os.read(fd, 1 << 16) or b"null")
                    if isinstance(record, dict):
                        found.append(record)
                    continue
                (folder / name).unlink(missing_ok=True)  # no one holds it: its process died waiting
            except (OSError, ValueError):
                continue
            finally:
                os.close(fd)
        return sorted(found, key=lambda record: float(record.get("since", 0)))
