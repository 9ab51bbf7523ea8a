"""The journal of committed changes, so each one can be undone. Before a file is replaced, its
pre-image is saved and fsynced and a "begin" record appended; after the replace a "commit"
record follows. A "begin" with no "commit" (the app died in between) counts as committed exactly
when the file now holds the planned bytes. Undo appends an "undo" record; nothing is rewritten.

Before the temporary file of change <seq> is created beside its target, a "temp" record names
it, so that a temporary file left by an app killed mid-commit is found and removed later (a
"swept" record closes it); without it, the killed commit would leave a hidden file of partial
new content in the person's tree for good.

    journal/entries.jsonl   begin / commit / undo / temp / undo-temp / swept records
    journal/pre/<seq>.bin   the bytes a file had before change <seq>
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .atomic import write_all
from .session import append_jsonl, fsync_dir, read_jsonl

TAIL_BYTES = 8192


@dataclass
class JournalEntry:
    seq: int
    time: float
    command_id: str
    action: str
    rel: str
    kind: str  # create | modify | delete
    old_sha: str | None
    new_sha: str | None
    mode: int | None = None
    created_dirs: list[str] = field(default_factory=list)
    trash: dict[str, Any] | None = None
    committed: bool = False
    undone: bool = False
    # The ok result's summary line: if the app dies after the change but before the session
    # records the result, the journal still says what the command did.
    summary: str = ""

    def record(self) -> dict[str, Any]:
        return {
            "event": "begin", "seq": self.seq, "time": self.time, "command_id": self.command_id,
            "action": self.action, "rel": self.rel, "kind": self.kind, "old_sha": self.old_sha,
            "new_sha": self.new_sha, "mode": self.mode, "created_dirs": self.created_dirs, "summary": self.summary,
        }


class Journal:
    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir / "journal"
        self.pre = self.dir / "pre"
        self.pre.mkdir(parents=True, exist_ok=True)
        self._entries = self.dir / "entries.jsonl"

    def entries(self) -> list[JournalEntry]:
        found: dict[int, JournalEntry] = {}
        for record in read_jsonl(self._entries):
            seq = int(record.get("seq", 0))
            event = record.get("event")
            if event == "begin":
                found[seq] = JournalEntry(
                    seq=seq, time=float(record.get("time", 0)), command_id=str(record.get("command_id", "")),
                    action=str(record.get("action", "")), rel=str(record.get("rel", "")), kind=str(record.get("kind", "")),
                    old_sha=record.get("old_sha"), new_sha=record.get("new_sha"), mode=record.get("mode"),
                    created_dirs=list(record.get("created_dirs") or []), summary=str(record.get("summary") or ""),
                )
            elif seq in found and event == "commit":
                found[seq].committed = True
                found[seq].trash = record.get("trash")
            elif seq in found and event == "undo":
                found[seq].undone = True
        return [found[k] for k in sorted(found)]

    def _tail(self) -> tuple[list[bytes], bool]:
        """The journal's last TAIL_BYTES as whole lines, newest first, and whether that is all of
        it. A commit reads only this much, and parses only the lines it needs, so neither a long
        session nor JSON decoding slows every write down."""
        try:
            fd = os.open(self._entries, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return [], True
        try:
            size = os.fstat(fd).st_size
            start = max(0, size - TAIL_BYTES)
            data = os.pread(fd, size - start, start)
        finally:
            os.close(fd)
        lines = data.split(b"\n")
        if start > 0:
            lines = lines[1:]  # the first line may be cut
        lines.reverse()
        return lines, start == 0

    @staticmethod
    def _record(line: bytes, *events: str) -> dict[str, Any] | None:
        """The line's record when it is one of `events` (a cheap substring test first)."""
        if not any(f'"{event}"'.encode() in line for event in events):
            return None
        try:
            record = json.loads(line)
        except ValueError:
            return None  # a line cut by a crash: read_jsonl skips it too
        return record if isinstance(record, dict) and record.get("event") in events else None

    def next_seq(self) -> int:
        """One past the seq of the last "begin" or "temp" record: those are appended in seq order
        and every other record refers to an earlier seq."""
        lines, whole = self._tail()
        for line in lines:
            record = self._record(line, "begin", "temp")
            if record is not None:
                return int(record.get("seq", 0)) + 1
        if whole:
            return 1
        return max((int(r.get("seq", 0)) for r in read_jsonl(self._entries)), default=0) + 1

    def stale_temps(self) -> list[tuple[int, str, str]]:
        """(seq, rel, temporary file name) of a temporary file a commit (or undo) announced and
        neither installed nor cleared. Every commit and undo sweeps before announcing its own, so
        only the last announced one can be stale."""
        closed: set[int] = set()
        for line in self._tail()[0]:
            record = self._record(line, "temp", "undo-temp", "commit", "swept")
            if record is None:
                continue
            seq = int(record.get("seq", 0))
            if record["event"] in ("commit", "swept"):
                closed.add(seq)
            elif seq in closed:
                return []
            else:
                return [(seq, str(record.get("rel", "")), str(record.get("temp", "")))]
        return []

    def note_temp(self, seq: int, rel: str, name: str, *, undo: bool = False) -> None:
        """Announce temporary file `name` beside `rel` for change `seq` (or for the undo of it:
        a record of its own kind, so that next_seq is not fooled by an old seq at the end)."""
        # Unsynced: losing this record in a power cut only means a leftover is not swept.
        record = {"event": "undo-temp" if undo else "temp", "seq": seq, "rel": rel, "temp": name}
        append_jsonl(self._entries, record, sync=False)

    def mark_swept(self, seq: int) -> None:
        append_jsonl(self._entries, {"event": "swept", "seq": seq}, sync=False)

    def begin(self, entry: JournalEntry, pre_image: bytes | None, *, linked: bool = False) -> None:
        """Make the change's pre-image and its "begin" record durable: `pre_image` bytes are
        written to a new pre/<seq>.bin, or `linked` says link_pre_image put it there. Either way
        the pre/ folder is fsynced too, or a crash could keep the record and lose the file."""
        if pre_image is not None:
            path = self.pre / f"{entry.seq}.bin"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            try:
                write_all(fd, pre_image)
                os.fsync(fd)
            finally:
                os.close(fd)
        append_jsonl(self._entries, entry.record())
        if pre_image is not None or linked:
            # After the record's fsync: a journalling file system has usually committed the new
            # folder entry with it, so this second fsync costs little (it is still needed where not).
            fsync_dir(self.pre)

    def link_pre_image(self, entry: JournalEntry, dir_fd: int, name: str, identity: tuple[int, int, int, int],
                       links: int) -> bool:
        """Keep the pre-image by hard-linking the file's current inode: the atomic replace gives
        the path a new inode and leaves this one untouched, so no bytes need copying. False
        when the file is no longer the one that was read (the caller reports a conflict).
        A file with other hard links, or one on another device, is copied by `begin` instead."""
        if links != 1:
            return True
        path = self.pre / f"{entry.seq}.bin"
        try:
            os.link(name, path, src_dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            return True  # another device, or no hard links here: `begin` copies the bytes
        info = os.stat(path)
        if (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) != identity:
            os.unlink(path)
            return False
        return True  # made durable by begin(..., linked=True)

    def has_pre_image(self, entry: JournalEntry) -> bool:
        return (self.pre / f"{entry.seq}.bin").exists()

    def discard(self, entry: JournalEntry) -> None:
        try:
            (self.pre / f"{entry.seq}.bin").unlink()
        except FileNotFoundError:
            pass

    def commit(self, entry: JournalEntry, *, trash: dict[str, Any] | None = None) -> None:
        record: dict[str, Any] = {"event": "commit", "seq": entry.seq, "time": time.time()}
        if trash is not None:
            record["trash"] = trash
        # No fsync needed: a "begin" whose file holds the new bytes already counts as committed
        # (see undo.undoable), except for deletes, whose trash location must not be lost.
        append_jsonl(self._entries, record, sync=trash is not None)

    def mark_undone(self, entry: JournalEntry) -> None:
        append_jsonl(self._entries, {"event": "undo", "seq": entry.seq, "time": time.time()})

    def pre_image(self, entry: JournalEntry) -> bytes:
        return (self.pre / f"{entry.seq}.bin").read_bytes()
