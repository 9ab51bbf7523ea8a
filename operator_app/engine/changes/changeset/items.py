"""What a change-set is made of, as data: each entry it changes (`Item`), what that entry was in
the tree when the set was planned (`Entry`, checked again before anything is touched), and the set
itself with what it leaves out (ignored paths, symlinks and special files a command made: a
`LeftOut` of protocol/outcomes.py, as the command's record keeps it)."""

from __future__ import annotations

import os
import stat as stat_module
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, field

from ....protocol.outcomes import EntryChange, LeftOut, SetEntry
from ....protocol.run_text import left_out_lines

__all__ = ["ChangeSet", "Entry", "EntryKind", "Item", "LeftOut", "Op", "left_out_lines"]

Op = Literal["write", "delete", "rmdir", "mkdir"]
EntryKind = Literal["file", "dir", "symlink", "other"]


class Entry(Struct, frozen=True):
    """An entry of the tree as it was seen: what it is and how to know it is still that one."""

    kind: EntryKind
    mode: int  # permission bits
    size: int
    dev: int
    ino: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> Entry:
        mode = info.st_mode
        kind: EntryKind = "other"
        if stat_module.S_ISREG(mode):
            kind = "file"
        elif stat_module.S_ISDIR(mode):
            kind = "dir"
        elif stat_module.S_ISLNK(mode):
            kind = "symlink"
        return cls(
            kind,
            stat_module.S_IMODE(mode),
            info.st_size if kind != "dir" else 0,
            info.st_dev,
            info.st_ino,
            info.st_mtime_ns if kind != "dir" else 0,
            info.st_ctime_ns if kind != "dir" else 0,
        )

    def same(self, now: Entry | None) -> bool:
        """Still this entry: for a folder, the same folder; for anything else, also the same size,
        time and mode (a save, even of the same bytes, is a change)."""
        if now is None or (now.kind, now.dev, now.ino) != (self.kind, self.dev, self.ino):
            return False
        return self.kind == "dir" or (now.size, now.mtime_ns, now.mode) == (
            self.size,
            self.mtime_ns,
            self.mode,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "mode": self.mode,
            "size": self.size,
            "dev": self.dev,
            "ino": self.ino,
            "mtime_ns": self.mtime_ns,
            "ctime_ns": self.ctime_ns,
        }

    @classmethod
    def from_json(cls, data: Any) -> Entry | None:
        if not isinstance(data, dict):
            return None
        kind = data.get("kind")
        numbers = [data.get(n) for n in ("mode", "size", "dev", "ino", "mtime_ns", "ctime_ns")]
        if kind not in ("file", "dir", "symlink", "other") or not all(
            isinstance(n, int) for n in numbers
        ):
            return None
        mode, size, dev, ino, mtime, ctime = (int(n) for n in numbers)  # type: ignore[arg-type]
        return cls(kind, mode, size, dev, ino, mtime, ctime)


class Item(Struct, frozen=True):
    """One entry the set changes. `write` makes a file hold the command's bytes (created, or
    replacing the file there), `delete` removes a file or symlink, `rmdir` a folder once emptied,
    `mkdir` makes a folder."""

    rel: str
    op: Op
    before: Entry | None  # the tree's entry when planned; None: nothing was there
    new_mode: int | None = None  # write, mkdir
    new_sha: str | None = None  # write
    new_size: int = 0  # write
    link: str | None = None  # delete of a symlink: where it pointed (undo makes it again)

    def to_json(self) -> dict[str, Any]:
        return {
            "rel": self.rel,
            "op": self.op,
            "before": self.before.to_json() if self.before is not None else None,
            "new_mode": self.new_mode,
            "new_sha": self.new_sha,
            "new_size": self.new_size,
            "link": self.link,
        }

    @classmethod
    def from_json(cls, data: Any) -> Item | None:
        if not isinstance(data, dict) or data.get("op") not in (
            "write",
            "delete",
            "rmdir",
            "mkdir",
        ):
            return None
        rel = data.get("rel")
        if not isinstance(rel, str) or not rel or rel.startswith("/") or ".." in rel.split("/"):
            return None
        new_mode, new_sha, new_size, link = (
            data.get("new_mode"),
            data.get("new_sha"),
            data.get("new_size", 0),
            data.get("link"),
        )
        return cls(
            rel,
            data["op"],
            Entry.from_json(data.get("before")),
            new_mode if isinstance(new_mode, int) else None,
            new_sha if isinstance(new_sha, str) else None,
            new_size if isinstance(new_size, int) else 0,
            link if isinstance(link, str) else None,
        )


class ChangeSet(Struct, frozen=True):
    upper: Path  # the overlay's upper layer: the new bytes of every `write`
    items: tuple[Item, ...]
    left_out: tuple[LeftOut, ...] = ()
    started_ns: int = 0  # when the command started (an entry changed since is a conflict)
    files: dict[str, int] = field(default_factory=dict)  # "changed"/"created"/"deleted" -> count

    def describe(self) -> str:
        """ "3 files: 2 changed, 1 created" (what the person and the model are told)."""
        total = sum(self.files.values())
        if not total:
            folders = sum(1 for item in self.items if item.op in ("mkdir", "rmdir"))
            return f"{folders} folder{'s' if folders != 1 else ''} made or removed"
        parts = [
            f"{self.files[key]} {key}"
            for key in ("changed", "created", "deleted")
            if self.files.get(key)
        ]
        return f"{total} file{'s' if total != 1 else ''}: {', '.join(parts)}"

    def left_out_lines(self) -> list[str]:
        return left_out_lines(self.left_out)

    def entry_records(self) -> tuple[SetEntry, ...]:
        """Each entry the set changes, as its record names it (protocol/outcomes.py)."""
        return tuple(SetEntry(item.rel, _kind(item), item.new_sha) for item in self.items)


def _kind(item: Item) -> EntryChange:
    if item.op == "write":
        return "created" if item.before is None else "changed"
    if item.op == "delete":
        return "deleted"
    return "folder made" if item.op == "mkdir" else "folder removed"
