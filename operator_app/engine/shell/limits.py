"""How much a sandboxed command may take: memory, processes, the size of one file, open files, its
private /tmp and /var/tmp, and what it writes in the workspace (the overlay's upper layer). The
person's settings may change each (`shell_limits`, read by the front ends); what is not set there
is the default, which scales with the machine's memory.

How each is enforced depends on the machine (docs/commands.md, "How much a command may take"):
memory and processes by a cgroup where one can be had (the person's systemd scope, or, as root
without systemd, one Operator makes: cgroup.py), else by rlimits per process (RLIMIT_DATA, and
RLIMIT_NPROC, which the kernel does not apply to root); a file's size and open files always by
rlimits; /tmp and /var/tmp by the size of their tmpfs; the upper layer by Operator, which looks
at it while the command runs and stops the command past its bound (process.py)."""

from __future__ import annotations

import os
import resource
from collections.abc import Mapping
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

MiB = 2**20
GiB = 2**30

# What a command can reach, as the result names it (process.py's Finished.bounds_hit).
Bound = Literal["memory", "tasks", "file_size", "upper"]


def _machine_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 8 * GiB


class Limits(Struct, frozen=True, kw_only=True):
    memory: int  # bytes, all its processes together (a cgroup) or each (RLIMIT_DATA)
    tasks: int  # processes and threads together
    file_size: int  # bytes, the largest file it may write (RLIMIT_FSIZE)
    open_files: int  # descriptors, per process (RLIMIT_NOFILE)
    tmp: int  # bytes, each of /tmp and /var/tmp (kept in memory)
    upper: int  # bytes, what it writes in the workspace (the overlay's upper layer, on disk)

    @classmethod
    def default(cls) -> Limits:
        """Half the machine's memory (at least 1 GiB), 4,096 tasks, files up to 4 GiB, 16,384
        open files, /tmp up to 2 GiB (at most half the memory bound: it is memory too), 4 GiB
        written in the workspace."""
        memory = max(_machine_memory() // 2, GiB)
        return cls(
            memory=memory,
            tasks=4096,
            file_size=4 * GiB,
            open_files=16384,
            tmp=min(2 * GiB, memory // 2),
            upper=4 * GiB,
        )

    @classmethod
    def from_settings(cls, raw: object) -> Limits:
        """The defaults with what the settings' `shell_limits` changes: {"memory_mb": 8192,
        "tasks": 8192, "file_size_mb": ..., "open_files": ..., "tmp_mb": ..., "upper_mb": ...}.
        A value that is not a whole number at least its minimum is ignored (settings never stop
        the app)."""
        limits = cls.default()
        if not isinstance(raw, Mapping):
            return limits
        changed: dict[str, int] = {}
        for key, (field, scale, least) in SETTING_KEYS.items():
            value = raw.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= least:
                changed[field] = value * scale
        return replace(limits, **changed)


# settings key -> (field, its unit in bytes or 1, the least value taken)
SETTING_KEYS: dict[str, tuple[str, int, int]] = {
    "memory_mb": ("memory", MiB, 64),
    "tasks": ("tasks", 1, 16),
    "file_size_mb": ("file_size", MiB, 1),
    "open_files": ("open_files", 1, 64),
    "tmp_mb": ("tmp", MiB, 1),
    "upper_mb": ("upper", MiB, 1),
}


def rlimits(limits: Limits, *, group_covers: frozenset[str]) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) to set on the sandbox's first process before the command starts:
    the size of a file, open files (never above what Operator itself has), no core files (a
    dump of a process may hold what it read, and would land in the workspace), and memory and
    processes per process unless a cgroup bounds them for all together (`group_covers`)."""
    soft_files, hard_files = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = limits.open_files
    if hard_files != resource.RLIM_INFINITY:
        files = min(files, hard_files)
    found = [
        (resource.RLIMIT_FSIZE, limits.file_size, limits.file_size),
        (resource.RLIMIT_NOFILE, min(soft_files, files), files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if "memory" not in group_covers:
        found.append((resource.RLIMIT_DATA, limits.memory, limits.memory))
    if "tasks" not in group_covers:
        found.append((resource.RLIMIT_NPROC, limits.tasks, limits.tasks))
    return found
