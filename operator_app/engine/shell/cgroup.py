"""Memory and processes bounded for all of a command's processes together, by a cgroup, where
this machine gives one:

- the person's systemd (their user manager; the system's when Operator runs as root): the
  command line is started through `systemd-run --scope` with MemoryMax and TasksMax, and the
  scope's own counters tell afterwards whether a bound was reached;
- without systemd, a cgroup Operator makes below its own and removes after the command, where
  it may (as root, usually): cgroup v2 where its cgroup hands the memory and pids controllers
  down, or the v1 `pids` and `memory` hierarchies;
- neither: None, and limits.py's rlimits bound each process instead.

How it is chosen is probed once per process. A cgroup left behind by a killed Operator is
removed by the next one that makes its own beside it."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import threading
import time
from functools import cache
from pathlib import Path
from typing import Literal

from msgspec import Struct

from .limits import Bound, Limits

PREFIX = "operator-run-"
_STALE_S = 60.0  # an empty cgroup of ours this old is a leftover, never one being set up
Kind = Literal["systemd", "cgroup"]


class GroupWay(Struct, frozen=True):
    """How this machine bounds a command's processes together."""

    kind: Kind
    user: bool = False  # systemd: the person's user manager, not the system's
    runtime_dir: str = ""  # systemd --user: where it finds the user manager
    # own cgroups: (what it bounds, the folder its cgroup is made in, cgroup version)
    parents: tuple[tuple[Bound, str, int], ...] = ()

    def prefix(self, limits: Limits) -> list[str]:
        """What the command line is started through (systemd), else nothing."""
        if self.kind != "systemd":
            return []
        # systemd-run finds the user manager through XDG_RUNTIME_DIR, which the command's own
        # environment never has (environment.py): it is given to systemd-run alone, and bwrap
        # drops it again (sandbox.py).
        runtime = ["env", f"XDG_RUNTIME_DIR={self.runtime_dir}"] if self.user else []
        return [
            *runtime,
            "systemd-run",
            *(["--user"] if self.user else []),
            "--scope",
            "--quiet",
            "--collect",
            "-p",
            f"MemoryMax={limits.memory}",
            "-p",
            "MemorySwapMax=0",
            "-p",
            f"TasksMax={limits.tasks}",
            "--",
        ]

    @property
    def covers(self) -> frozenset[Bound]:
        if self.kind == "systemd":
            return frozenset(("memory", "tasks"))
        return frozenset(bound for bound, _, _ in self.parents)


# --- what this machine offers (probed once) ------------------------------------------------


def _systemd_way() -> GroupWay | None:
    # MemoryMax and TasksMax hold on the unified hierarchy (cgroup v2) alone.
    if (
        shutil.which("systemd-run") is None
        or not Path("/sys/fs/cgroup/cgroup.controllers").exists()
    ):
        return None
    if os.geteuid() == 0:
        if not Path("/run/systemd/system").is_dir():  # sd_booted(): systemd is the init
            return None
        way = GroupWay("systemd")
    else:
        runtime = os.environ.get("XDG_RUNTIME_DIR", "")
        if not runtime or not Path(runtime, "systemd", "private").exists():
            return None
        way = GroupWay("systemd", user=True, runtime_dir=runtime)
    probe = Limits.default()
    try:
        done = subprocess.run(
            [*way.prefix(probe), "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return way if done.returncode == 0 else None


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(file system type, mount point, its options) of the cgroup mounts."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            found.append((tail[0], point, set(tail[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """controller (or "" for v2) -> this process's cgroup path in that hierarchy."""
    found: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


_CONTROLLERS: tuple[tuple[str, Bound], ...] = (("memory", "memory"), ("pids", "tasks"))


def _own_way() -> GroupWay | None:
    own = _own_paths()
    chosen: dict[Bound, tuple[Bound, str, int]] = {}
    for fstype, point, options in _mounts():
        for controller, bound in _CONTROLLERS:
            if bound in chosen:
                continue
            if fstype == "cgroup2" and own.get("") == "/":
                # v2 hands a controller down only from a cgroup without processes of its own,
                # unless it is the root: Operator makes its cgroups below the root only.
                folder = Path(point)
                try:
                    offered = (folder / "cgroup.controllers").read_text().split()
                except OSError:
                    continue
                if controller in offered and _writable(folder):
                    chosen[bound] = (bound, str(folder), 2)
            elif fstype == "cgroup" and controller in options and controller in own:
                folder = Path(point) / own[controller].lstrip("/")
                if _writable(folder):
                    chosen[bound] = (bound, str(folder), 1)
    return GroupWay("cgroup", parents=tuple(chosen.values())) if chosen else None


@cache
def group_way() -> GroupWay | None:
    """How this machine bounds a command's processes together, or None (rlimits only)."""
    if not os.path.isdir("/sys/fs/cgroup"):
        return None
    return _systemd_way() or _own_way()


# --- one command's group -------------------------------------------------------------------

_LIMIT_FILES = {
    ("memory", 2): ("memory.max", "memory.swap.max"),
    ("memory", 1): ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
    ("tasks", 2): ("pids.max",),
    ("tasks", 1): ("pids.max",),
}
# (file, the line's first word): a count that says the bound was reached
_EVENTS = {
    ("memory", 2): ("memory.events", "oom_kill"),
    ("memory", 1): ("memory.oom_control", "oom_kill"),
    ("tasks", 2): ("pids.events", "max"),
    ("tasks", 1): ("pids.events", "max"),
}


def _count(file: Path, word: str) -> int:
    try:
        for line in file.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == word and value.strip().isdigit():
                return int(value)
    except OSError:
        pass
    return 0


class RunGroup:
    """The cgroup(s) of one command: made before it starts (own cgroups) or found once it has
    (a systemd scope); `hit` says which bounds its processes reached."""

    def __init__(self, way: GroupWay, limits: Limits) -> None:
        self.way = way
        self._folders: list[tuple[Bound, Path, int]] = []
        self._seen: set[Bound] = set()
        if way.kind == "cgroup":
            try:
                self._set_up(limits)
            except OSError:
                self.close()
                raise

    def _set_up(self, limits: Limits) -> None:
        name = PREFIX + secrets.token_hex(6)
        for bound, parent, version in self.way.parents:
            self._folders.append((bound, self._make(Path(parent), name, version), version))
        for bound, folder, version in self._folders:
            value = limits.memory if bound == "memory" else limits.tasks
            for index, file in enumerate(_LIMIT_FILES[(bound, version)]):
                # swap: none at all (v2), or no more than the memory (v1 counts both)
                limit = value if version == 1 or index == 0 else 0
                if index == 0 or (folder / file).exists():  # a bound's own file must be
                    (folder / file).write_text(f"{limit}\n")  # there (OSError: it is not)

    @staticmethod
    def _make(parent: Path, name: str, version: int) -> Path:
        _sweep(parent)
        if version == 2:  # the root hands its controllers down to the new cgroup
            try:
                (parent / "cgroup.subtree_control").write_text("+memory +pids\n")
            except OSError:
                pass  # handed down already, or not at all (then its limit file is missing)
        folder = parent / name
        folder.mkdir()
        return folder

    def join(self, pid: int) -> None:
        """Move the sandbox's first process (not yet running the command) into the group."""
        if self.way.kind == "systemd":
            self._find_scope(pid)
            return
        for _, folder, _ in self._folders:
            (folder / "cgroup.procs").write_text(f"{pid}\n")

    def _find_scope(self, pid: int) -> None:
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return
        path = next((line[3:] for line in lines if line.startswith("0::")), None)
        mount = next((point for kind, point, _ in _mounts() if kind == "cgroup2"), None)
        if path is not None and mount is not None:
            folder = Path(mount) / path.lstrip("/")
            self._folders = [("memory", folder, 2), ("tasks", folder, 2)]

    def hit(self) -> tuple[Bound, ...]:
        """The bounds its processes reached so far (kept once seen: a scope goes with them)."""
        for bound, folder, version in self._folders:
            file, word = _EVENTS[(bound, version)]
            if _count(folder / file, word) > 0:
                self._seen.add(bound)
        return tuple(sorted(self._seen))

    def close(self) -> None:
        """Remove Operator's own cgroups once their processes have gone (they die with bwrap,
        a few milliseconds after it): at once when they have, else from a thread of its own, so
        the command's answer does not wait for it."""
        self.hit()
        if self.way.kind != "cgroup":
            return
        folders = [folder for _, folder, _ in self._folders]
        if _remove(folders, wait=0.0):
            return
        threading.Thread(target=_remove, args=(folders, 2.0), daemon=True).start()


def _remove(folders: list[Path], wait: float) -> bool:
    """rmdir each, retrying while its last processes are torn down for up to `wait` seconds:
    whether all are gone (what is left the next run's sweep removes)."""
    deadline = time.monotonic() + wait
    left = list(folders)
    while left:
        for folder in list(left):
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                continue
            left.remove(folder)
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    return not left


def _sweep(parent: Path) -> None:
    """Remove empty cgroups of ours left by an Operator that was killed mid-command."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if entry.name.startswith(PREFIX) and entry.is_dir(follow_symlinks=False):
            try:
                if now - entry.stat().st_mtime > _STALE_S:
                    os.rmdir(entry.path)
            except OSError:
                pass  # not empty: another Operator's command runs in it
