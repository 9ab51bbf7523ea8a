"""Undo of committed changes, newest first, from the journal: restore the pre-image, remove a
file Operator created, or bring a deleted entry back from the trash. A change is only undone
when the file still holds exactly what Operator wrote; otherwise the undo is refused with the
reason, and nothing is touched."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from ..protocol.errors import ErrorCode, OperatorError
from .atomic import NEW_FILE_MODE, atomic_replace, temp_name
from .commit import entry_path, read_current, sweep_temps
from .journal import Journal, JournalEntry
from .plan import sha256
from .trash import restore_from_trash
from .workspace import Workspace


class UndoRefused(Exception):
    pass


@dataclass(frozen=True)
class UndoOutcome:
    entry: JournalEntry
    summary: str


def undoable(ws: Workspace, journal: Journal) -> list[JournalEntry]:
    """Changes that took effect and are not undone yet, newest first. A "begin" without its
    "commit" (the app died mid-commit) counts when the file holds the planned bytes."""
    out = []
    for entry in reversed(journal.entries()):
        if entry.undone:
            continue
        if not entry.committed:
            if entry.kind == "delete" or entry.new_sha is None:
                continue
            try:
                current = read_current(ws, ws.target(entry.rel))
            except OperatorError:
                continue
            if sha256(current.data if current else None) != entry.new_sha:
                continue
        out.append(entry)
    return out


def undo_entry(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    target = ws.target(entry.rel)
    if entry.kind == "delete":
        path = entry_path(ws, target)
        if os.path.lexists(path):
            raise UndoRefused(f"cannot undo the delete of {entry.rel}: something exists at that path again; move it away first")
        try:
            restore_from_trash(entry.trash or {}, path)
        except FileNotFoundError as exc:
            raise UndoRefused(f"cannot undo the delete of {entry.rel}: it is no longer in the trash ({exc})") from None
        journal.mark_undone(entry)
        return UndoOutcome(entry, f"Restored {entry.rel} from the trash (undid {entry.action} {entry.command_id})")
    current = read_current(ws, target)
    if sha256(current.data if current else None) != entry.new_sha:
        state = "is gone" if current is None else "changed"
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.rel}: the file {state} since Operator wrote it; "
            "nothing was touched"
        )
    dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    try:
        if entry.kind == "create":
            os.unlink(name, dir_fd=dir_fd)
        else:
            temp = temp_name(name)
            journal.note_temp(entry.seq, entry.rel, temp, undo=True)
            atomic_replace(dir_fd, name, journal.pre_image(entry), entry.mode if entry.mode is not None else NEW_FILE_MODE,
                           current.owner if current else None, temp)
            journal.mark_swept(entry.seq)
    finally:
        os.close(dir_fd)
    if entry.kind == "create":
        for folder in reversed(entry.created_dirs):
            try:
                os.rmdir(ws.root / folder)
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                    raise
                break
        journal.mark_undone(entry)
        return UndoOutcome(entry, f"Removed {entry.rel}, which {entry.command_id} ({entry.action}) had created")
    journal.mark_undone(entry)
    return UndoOutcome(entry, f"Restored {entry.rel} as it was before {entry.command_id} ({entry.action})")


def undo_last(ws: Workspace, state_dir: Path, steps: int = 1) -> list[UndoOutcome]:
    """Undo up to `steps` changes, newest first; stops at the first refusal (raised after the
    ones before it were undone, so the outcomes so far are on the exception)."""
    journal = Journal(state_dir)
    sweep_temps(ws, journal)
    done: list[UndoOutcome] = []
    for entry in undoable(ws, journal)[:steps]:
        try:
            done.append(undo_entry(ws, journal, entry))
        except (UndoRefused, OperatorError) as exc:
            refused = UndoRefused(str(exc))
            refused.done = done  # type: ignore[attr-defined]
            raise refused from None
    return done
