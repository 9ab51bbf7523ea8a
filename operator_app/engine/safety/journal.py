"""The journal of committed changes, so each one can be undone. Before a file is replaced, its
pre-image is saved and fsynced and a "begin" record appended; after the replace a "commit"
record follows. A "begin" with no "commit" (the app died in between) counts as committed exactly
when the file now holds the planned bytes. Undo appends an "undo" record; nothing is rewritten.

Before the temporary file of change <seq> is created beside its target, a "temp" record names
it, so that a temporary file left by an app killed mid-commit is found and removed later (a
"swept" record closes it); without it, the killed commit would leave a hidden file of partial
new content in the person's tree for good.

    journal/entries.jsonl   begin / commit / undo / temp / undo-temp / swept / across / run /
                            cut records
    journal/pre/<seq>.bin   the bytes a file had before change <seq>
    journal/sets/<seq>/     a command's change-set: its manifest and the pre-images of its files

A "run" record (no seq) says a command ran: its script, folder, exit, output file, and the
change-set it made, if any (the seq of its "begin").

A small change to a large file keeps no pre/<seq>.bin: its "begin" record holds a delta instead
(pre_delta.py), turned back into the old bytes from the bytes the change wrote. The pre-images
kept, a change-set's folder included, are held to a budget (journal_budget.py): past it, the
oldest changes are let go of, and a "cut" record says that no change up to its seq can be undone
any more.

A copy or move (kind "copy" or "move") names its destination too (`rel_to`) and what the entry
was when it left (`identity`: device, inode, fingerprint); the "commit" record adds what stands
at the destination afterwards (`to_identity`: a copy is a new entry) and, for a move to another
file system, where the original went in the trash; an "across" record says a move found that the
destination is on another file system. A file replaced at the destination keeps its pre-image like
any other (`replaced`).

Change numbers are never reused: the next one is past every number the journal's end mentions,
even in a line torn by a crash, and past any pre-image or session-trash folder already on disk.
A pre-image is only ever a new file (O_EXCL, or a hard link, which never replaces): an existing
one is a failure, never overwritten. Its device, inode and size go into the "begin" record, and
undo reads it only while it is still that very file, so it restores the right bytes or refuses.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from ..boundary.fsops import read_exactly
from ..ondisk.atomic import write_all
from ..ondisk.jsonl import append_jsonl, fsync_dir, read_jsonl
from ..ondisk.private import private_folder
from .pre_delta import Delta

TAIL_BYTES = 8192
_SEQ_RE = re.compile(rb'"seq": ?(\d{1,18})')  # also finds the number in a line a crash cut short
# A hard link cannot be made here (another file system, no hard links, or the kernel's
# protected_hardlinks refusing a file of another owner): the bytes are copied instead.
_NO_LINK = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


class PreImageTaken(OSError):
    """pre/<seq>.bin exists already: never overwritten (it may be another change's pre-image)."""


class JournalEntry(Struct):
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
    undone_at: float | None = None  # when its undo was recorded
    # The ok result's summary line: if the app dies after the change but before the session
    # records the result, the journal still says what the command did.
    summary: str = ""
    # the workspace the change was made in (None: a journal from before it was kept)
    root: str | None = None
    # device, inode and size of pre/<seq>.bin, as this change made it
    pre: dict[str, int] | None = None
    # A copy or move: where to, what left (and what arrived), whether a file there was replaced.
    rel_to: str | None = None
    identity: dict[str, Any] | None = None
    to_identity: dict[str, Any] | None = None
    replaced: bool = False
    replaced_mtime: int | None = None  # of the file replaced: undo gives it back with the bytes
    across: bool = False  # a move to another file system: copied, and the original trashed
    # A small change to a large file: the bytes before it, as a delta from the bytes after it
    # (pre_delta.py), instead of pre/<seq>.bin; `old_sha` is then the hash of those bytes.
    delta: Delta | None = None
    cut: bool = False  # let go of to keep the journal within its budget: no longer undoable

    @property
    def where(self) -> str:
        """The path, or for a copy or move both: "notes/a.txt -> archive/a.txt"."""
        return self.rel if self.rel_to is None else f"{self.rel} -> {self.rel_to}"

    def record(self) -> dict[str, Any]:
        # A delta goes first: the seq then stays near the line's end, where the journal's tail
        # (the last 8 KB, which next_seq reads) finds it.
        record: dict[str, Any] = {"delta": self.delta.record()} if self.delta else {}
        record |= {
            "event": "begin",
            "seq": self.seq,
            "time": self.time,
            "command_id": self.command_id,
            "action": self.action,
            "rel": self.rel,
            "kind": self.kind,
            "old_sha": self.old_sha,
            "new_sha": self.new_sha,
            "mode": self.mode,
            "created_dirs": self.created_dirs,
            "summary": self.summary,
            "root": self.root,
            "pre": self.pre,
        }
        if self.rel_to is not None:
            record.update(
                rel_to=self.rel_to,
                identity=self.identity,
                replaced=self.replaced,
                across=self.across,
                replaced_mtime=self.replaced_mtime,
            )
        return record


def _identity(value: Any) -> dict[str, Any] | None:
    """An entry identity (fingerprint.entry_identity) from a record, or None when it is not one."""
    fields = _int_fields(value, "dev", "ino")
    if fields is None or not isinstance(value.get("fingerprint"), str):
        return None
    sha = value.get("sha")
    return {
        **fields,
        "fingerprint": value["fingerprint"],
        **({"sha": sha} if isinstance(sha, str) else {}),
    }


def _int_fields(value: Any, *names: str) -> dict[str, int] | None:
    if not isinstance(value, dict) or not all(isinstance(value.get(n), int) for n in names):
        return None
    return {n: int(value[n]) for n in names}


def _begun(seq: int, record: dict[str, Any]) -> JournalEntry:
    """The change a "begin" record starts, read leniently: a field of the wrong type is left
    out (the journal outlives the versions that wrote it)."""
    root = record.get("root")
    entry = JournalEntry(
        seq=seq,
        time=float(record.get("time", 0)),
        command_id=str(record.get("command_id", "")),
        action=str(record.get("action", "")),
        rel=str(record.get("rel", "")),
        kind=str(record.get("kind", "")),
        old_sha=record.get("old_sha"),
        new_sha=record.get("new_sha"),
        mode=record.get("mode"),
        created_dirs=list(record.get("created_dirs") or []),
        summary=str(record.get("summary") or ""),
        root=root if isinstance(root, str) else None,
        pre=_int_fields(record.get("pre"), "dev", "ino", "size"),
        delta=Delta.from_record(record.get("delta")),
    )
    rel_to = record.get("rel_to")
    if isinstance(rel_to, str):  # a copy or a move
        entry.rel_to, entry.identity = rel_to, _identity(record.get("identity"))
        entry.replaced, entry.across = record.get("replaced") is True, record.get("across") is True
        mtime = record.get("replaced_mtime")
        entry.replaced_mtime = mtime if isinstance(mtime, int) else None
    return entry


def _mark(entry: JournalEntry, event: object, record: dict[str, Any]) -> None:
    """What a later record says of a change begun: committed, gone across file systems, undone."""
    if event == "commit":
        entry.committed = True
        entry.trash = record.get("trash")
        entry.to_identity = _identity(record.get("to_identity")) or entry.to_identity
    elif event == "across":
        entry.across = True
    elif event == "undo":
        entry.undone = True
        when = record.get("time")
        entry.undone_at = float(when) if isinstance(when, (int, float)) else None


class Journal:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.dir = state_dir / "journal"
        self.pre = self.dir / "pre"
        private_folder(self.pre, top=state_dir)
        self._entries = self.dir / "entries.jsonl"
        # seqs whose pre-image this object created (only those may be discarded)
        self._made: set[int] = set()

    def entries(self) -> list[JournalEntry]:
        found: dict[int, JournalEntry] = {}
        cut_at = 0
        for record in read_jsonl(self._entries):
            try:
                seq = int(record.get("seq", 0))
            except (TypeError, ValueError):
                continue
            event = record.get("event")
            if event == "begin":
                found[seq] = _begun(seq, record)
            elif event == "cut":
                cut_at = max(cut_at, seq)
            elif seq in found:
                _mark(found[seq], event, record)
        for seq, entry in found.items():
            entry.cut = seq <= cut_at
        return [found[k] for k in sorted(found)]

    def undone_by_command(self) -> dict[str, JournalEntry]:
        """The changes undone since they were made, by the id of the command that made each: what
        every front end marks as undone in a message's results. An applied write uses its id up
        for the session, so an id names one change."""
        return {entry.command_id: entry for entry in self.entries() if entry.undone}

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
        """A change number no record, pre-image or session-trash folder has used.

        Every record names a seq no larger than the last "begin" or "temp" one, so the largest
        number in the journal's tail is the largest of all; it is read from every line there,
        parsable or not: a "begin" torn by a crash may have left its pre-image on disk, and
        counting only whole records would hand its number out again. Then numbers whose
        pre-image or trash folder exists (a record lost in a power cut) are skipped.
        """
        lines, whole = self._tail()
        seqs = [int(m) for line in lines for m in _SEQ_RE.findall(line)]
        if not seqs and not whole:
            with open(self._entries, "rb") as handle:
                seqs = [int(m) for line in handle for m in _SEQ_RE.findall(line)]
        seq = max(seqs, default=0) + 1
        trash = self.state_dir / "trash"
        while (
            os.path.lexists(self.pre / f"{seq}.bin")
            or os.path.lexists(trash / str(seq))
            or os.path.lexists(self.set_dir(seq))
        ):
            seq += 1
        return seq

    def stale_temps(self) -> list[tuple[int, str, str, bool]]:
        """(seq, rel, temporary name, whether it is a copied tree) of a temporary file (or a copy's
        temporary folder) a commit or undo announced and neither installed nor cleared. Every commit
        and undo sweeps before announcing its own, so only the last announced one can be stale."""
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
                return [
                    (
                        seq,
                        str(record.get("rel", "")),
                        str(record.get("temp", "")),
                        record.get("tree") is True,
                    )
                ]
        return []

    def note_temp(
        self, seq: int, rel: str, name: str, *, undo: bool = False, tree: bool = False
    ) -> None:
        """Announce temporary file `name` beside `rel` for change `seq` (or for the undo of it:
        a record of its own kind, so that next_seq is not fooled by an old seq at the end);
        `tree`: it is a copy of a folder or symlink in the making, not a file."""
        # Unsynced: losing this record in a power cut only means a leftover is not swept.
        record: dict[str, object] = {
            "event": "undo-temp" if undo else "temp",
            "seq": seq,
            "rel": rel,
            "temp": name,
        }
        if tree:
            record["tree"] = True
        append_jsonl(self._entries, record, sync=False)

    def mark_swept(self, seq: int) -> None:
        append_jsonl(self._entries, {"event": "swept", "seq": seq}, sync=False)

    def set_dir(self, seq: int) -> Path:
        """Where change-set <seq> keeps its manifest and pre-images (changes/changeset)."""
        return self.dir / "sets" / str(seq)

    def note_run(self, record: dict[str, Any]) -> None:
        """A command ran (engine/shell): what, where, its exit, its output file, its change-set."""
        append_jsonl(self._entries, {"event": "run", "time": time.time(), **record})

    def runs(self) -> list[dict[str, Any]]:
        """The "run" records, oldest first."""
        return [record for record in read_jsonl(self._entries) if record.get("event") == "run"]

    def _pre_path(self, entry: JournalEntry) -> Path:
        return self.pre / f"{entry.seq}.bin"

    def begin(self, entry: JournalEntry, pre_image: bytes | None, *, linked: bool = False) -> None:
        """Make the change's pre-image and its "begin" record durable: `pre_image` bytes are
        written to a new pre/<seq>.bin, or `linked` says link_pre_image put it there. Either way
        the pre/ folder is fsynced too, or a crash could keep the record and lose the file."""
        if pre_image is not None:
            try:
                fd = os.open(
                    self._pre_path(entry),
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o600,
                )
            except FileExistsError:
                raise PreImageTaken(
                    errno.EEXIST, f"the undo journal already holds a pre-image numbered {entry.seq}"
                ) from None
            self._made.add(entry.seq)
            try:
                write_all(fd, pre_image)
                os.fsync(fd)
                info = os.fstat(fd)
            finally:
                os.close(fd)
            entry.pre = {"dev": info.st_dev, "ino": info.st_ino, "size": info.st_size}
        append_jsonl(self._entries, entry.record())
        if pre_image is not None or linked:
            # After the record's fsync: a journalling file system has usually committed the new
            # folder entry with it, so this second fsync costs little (still needed where not).
            fsync_dir(self.pre)

    def link_pre_image(
        self,
        entry: JournalEntry,
        dir_fd: int,
        name: str,
        identity: tuple[int, int, int, int],
        links: int,
    ) -> str:
        """Keep the pre-image by hard-linking the file's current inode: the atomic replace gives
        the path a new inode and leaves this one untouched, so no bytes need copying.

        "linked"; "copy" when `begin` must copy the bytes instead (a file with other hard links,
        which would change along, or no hard link possible here); "changed" when the file is no
        longer the one that was read (the caller reports a conflict). An existing pre/<seq>.bin
        raises PreImageTaken: os.link never replaces, and it is not ours to remove.
        """
        if links != 1:
            return "copy"
        path = self._pre_path(entry)
        try:
            os.link(name, path, src_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            raise PreImageTaken(
                errno.EEXIST, f"the undo journal already holds a pre-image numbered {entry.seq}"
            ) from None
        except OSError as exc:
            if exc.errno in _NO_LINK:
                return "copy"
            raise
        self._made.add(entry.seq)
        info = os.stat(path, follow_symlinks=False)
        if (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) != identity:
            self.discard(entry)
            return "changed"
        entry.pre = {"dev": info.st_dev, "ino": info.st_ino, "size": info.st_size}
        return "linked"  # made durable by begin(..., linked=True)

    def discard(self, entry: JournalEntry) -> None:
        """Remove the pre-image of a change that did not happen, if this object made it."""
        if entry.seq not in self._made:
            return
        self._made.discard(entry.seq)
        try:
            self._pre_path(entry).unlink()
        except FileNotFoundError:
            pass

    def commit(
        self,
        entry: JournalEntry,
        *,
        trash: dict[str, Any] | None = None,
        to_identity: dict[str, Any] | None = None,
        sync: bool = False,
    ) -> None:
        record: dict[str, Any] = {"event": "commit", "seq": entry.seq, "time": time.time()}
        if trash is not None:
            record["trash"] = trash
        if to_identity is not None:
            record["to_identity"] = to_identity
        entry.committed, entry.trash, entry.to_identity = (
            True,
            trash,
            to_identity or entry.to_identity,
        )
        # No fsync needed: a "begin" whose file holds the new bytes already counts as committed
        # (see undo.undoable), except for deletes, copies and moves, which only recovery can tell
        # from their records (and a trash location must not be lost).
        append_jsonl(
            self._entries, record, sync=sync or trash is not None or entry.rel_to is not None
        )

    def note_across(self, entry: JournalEntry) -> None:
        """The move of `entry` met another file system: it copies and trashes from here on."""
        entry.across = True
        append_jsonl(self._entries, {"event": "across", "seq": entry.seq})

    def cut(self, seq: int, why: str) -> None:
        """No change up to `seq` can be undone any more (journal_budget.py let go of them)."""
        append_jsonl(self._entries, {"event": "cut", "seq": seq, "time": time.time(), "why": why})

    def drop_pre_image(self, seq: int) -> None:
        """Remove what change <seq>, now cut, kept to be undone: pre/<seq>.bin, or a change-set's
        folder."""
        try:
            (self.pre / f"{seq}.bin").unlink()
        except FileNotFoundError:
            import shutil  # only when the budget lets a change-set go

            shutil.rmtree(self.set_dir(seq), ignore_errors=True)

    def mark_undone(self, entry: JournalEntry) -> None:
        append_jsonl(self._entries, {"event": "undo", "seq": entry.seq, "time": time.time()})

    def pre_image(self, entry: JournalEntry, after: bytes | None = None) -> bytes:
        """The bytes the file had before `entry`, read only from the very file the change made
        (same device, inode and size as its "begin" record says); OSError otherwise. A change
        kept as a delta needs `after`, the bytes it wrote (checked by their hash)."""
        if entry.cut:
            raise PreImageMismatch(
                f"change {entry.seq} was let go of to keep the undo journal within its budget"
            )
        if entry.delta is not None:
            if after is None or hashlib.sha256(after).hexdigest() != entry.new_sha:
                raise PreImageMismatch(
                    f"change {entry.seq} kept only what it changed; the file must hold the bytes "
                    "it wrote to be taken back"
                )
            return entry.delta.before(after)
        fd = os.open(self._pre_path(entry), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            info = os.fstat(fd)
            if entry.pre is not None and (info.st_dev, info.st_ino, info.st_size) != (
                entry.pre["dev"],
                entry.pre["ino"],
                entry.pre["size"],
            ):
                raise PreImageMismatch(
                    f"pre/{entry.seq}.bin is not the pre-image change {entry.seq} kept"
                )
            data = read_exactly(fd, info.st_size)
        finally:
            os.close(fd)
        return data


class PreImageMismatch(Exception):
    """pre/<seq>.bin is not the file the change's "begin" record describes."""
