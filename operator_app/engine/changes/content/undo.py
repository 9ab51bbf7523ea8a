"""The undo of a change to a file's content: the pre-image back in place atomically, or a file
Operator created removed (with the folders made for it), only while the file still holds exactly
the bytes Operator wrote; a save made while the undo writes is kept, and the undo refused."""

from __future__ import annotations

import os

from ....protocol.errors import OperatorError
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.atomic import NEW_FILE_MODE, discard_temp, install_temp, temp_name, write_temp
from ...ondisk.current import Current, identity_now, read_current, remove_dirs
from ...safety.journal import Journal, JournalEntry, PreImageMismatch
from ..outcomes import UndoOutcome, UndoRefused
from ..plan import sha256


def in_effect(ws: Workspace, entry: JournalEntry) -> bool:
    """A "begin" without its "commit" (the app died mid-commit) is in effect when the file holds
    the planned bytes."""
    if entry.new_sha is None:
        return False
    try:
        current = read_current(ws, ws.target(entry.rel))
    except OperatorError:
        return False
    return sha256(current.data if current else None) == entry.new_sha


def _refuse_if_changed(
    entry: JournalEntry, dir_fd: int, name: str, checked: Current | None
) -> None:
    """The file must still be the very one whose bytes were checked, right before it is replaced."""
    if checked is None or identity_now(dir_fd, name) != checked.identity:
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.rel}: "
            "the file changed since Operator wrote it; nothing was touched"
        )


def undo_content(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    target = ws.target(entry.rel)
    current = read_current(ws, target)
    if sha256(current.data if current else None) != entry.new_sha:
        state = "is gone" if current is None else "changed"
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.rel}: "
            f"the file {state} since Operator wrote it; nothing was touched"
        )
    if entry.kind == "create":
        return _remove_created(ws, journal, entry, target, current)
    old = _pre_image(journal, entry, current)
    dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    try:
        unsynced = _put_back(journal, entry, current, old, dir_fd, name)
    finally:
        os.close(dir_fd)
    # Undone from here on: the file is back as it was.
    journal.mark_undone(entry)
    return UndoOutcome(
        entry,
        f"Restored {entry.rel} as it was before {entry.command_id} ({entry.action})"
        + (f" ({unsynced})" if unsynced else ""),
    )


def _pre_image(journal: Journal, entry: JournalEntry, current: Current | None) -> bytes:
    """The bytes the change replaced, as the journal kept them (whole, or as a delta from the
    bytes it wrote)."""
    try:
        return journal.pre_image(entry, current.data if current else None)
    except (OSError, PreImageMismatch) as exc:
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on "
            f"{entry.rel}: its saved copy in the journal is missing or is "
            f"not the one this change kept ({exc}); nothing was touched"
        ) from None


def _put_back(
    journal: Journal,
    entry: JournalEntry,
    current: Current | None,
    old: bytes,
    dir_fd: int,
    name: str,
) -> str | None:
    """Replace the file with its old bytes, atomically; the replace's note."""
    temp = temp_name(name)
    journal.note_temp(entry.seq, entry.rel, temp, undo=True)
    mode = entry.mode if entry.mode is not None else NEW_FILE_MODE
    write_temp(dir_fd, name, old, mode, current.owner if current else None, temp)
    try:
        # Writing and fsyncing the old bytes takes a while: a save made meanwhile is kept.
        _refuse_if_changed(entry, dir_fd, name, current)
        return install_temp(dir_fd, temp, name)
    except BaseException:
        discard_temp(dir_fd, temp)
        raise
    finally:
        journal.mark_swept(entry.seq)


def _remove_created(
    ws: Workspace, journal: Journal, entry: JournalEntry, target: Target, current: Current | None
) -> UndoOutcome:
    """Remove a file the change created, and the folders made for it."""
    dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    try:
        _refuse_if_changed(entry, dir_fd, name, current)
        os.unlink(name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    # Undone from here on, whatever happens to the folders: the file itself is gone as it was.
    journal.mark_undone(entry)
    left = remove_dirs(ws, entry.created_dirs)
    note = f"; {left}" if left else ""
    return UndoOutcome(
        entry, f"Removed {entry.rel}, which {entry.command_id} ({entry.action}) had created{note}"
    )
