"""The undo of fs.delete: the very entry the delete put in the trash comes back to its place,
descriptor-relative, never over something that appeared there since."""

from __future__ import annotations

import os

from ...boundary.workspace import Workspace
from ...ondisk.current import remove_dirs
from ...safety.journal import Journal, JournalEntry
from ...safety.trash import TrashError
from ...safety.trash_restore import restore_from_trash
from ..outcomes import UndoOutcome, UndoRefused
from ..undo_places import parent_to_restore_into, trashed_place


def undo_delete(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    target = ws.target(entry.rel)
    why = f"cannot undo the delete of {entry.rel}"
    if not target.parts:
        raise UndoRefused(f"{why}: the journal names the workspace root")
    folder, trashed = trashed_place(ws, journal, entry, target, why)
    dir_fd, name, created = parent_to_restore_into(ws, target, why)
    try:
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            raise UndoRefused(f"{why}: something exists at that path again; move it away first")
        except FileNotFoundError:
            pass
        restore_from_trash(entry.trash or {}, folder, trashed, dir_fd, name)
    except BaseException as exc:
        remove_dirs(ws, created)
        if isinstance(exc, TrashError):
            raise UndoRefused(f"{why}: {exc}") from None
        raise
    finally:
        os.close(dir_fd)
    journal.mark_undone(entry)
    return UndoOutcome(
        entry, f"Restored {entry.rel} from the trash (undid {entry.action} {entry.command_id})"
    )
