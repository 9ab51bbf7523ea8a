"""Whether a delete the app died in the middle of took effect, and putting its entry back when it
never left the workspace: the entry still at its place (not made), found in a trash (made, and
recorded so undo can bring it back), stranded under Operator's hidden name with its place taken
(NotPutBack), or gone where no one can tell (None)."""

from __future__ import annotations

import os

from ....protocol.errors import OperatorError
from ...boundary.workspace import Workspace
from ...ondisk.current import parent_path
from ...ondisk.fingerprint import current_fingerprint
from ...safety.journal import Journal, JournalEntry
from ...safety.trash_recovery import clear_moved_source, find_interrupted_delete
from ..outcomes import NotPutBack


def delete_outcome(
    ws: Workspace, journal: Journal, entry: JournalEntry
) -> bool | NotPutBack | None:
    """A delete's entry may be a folder or a symlink, which read_current refuses: what stands at
    the place is compared by the fingerprint the delete checked (entry.old_sha) instead. The very
    entry still there: not made. Otherwise the delete was cut short somewhere: where its entry is
    decides (_delete_landed); another entry at the place is a new one saved after the delete, or
    the old one edited, and unless the entry is found in a trash, which it is is not known."""
    try:
        now = current_fingerprint(ws, ws.target(entry.rel))
    except (OperatorError, OSError):
        return None
    if now is not None and now == entry.old_sha:
        return False
    landed = _delete_landed(ws, journal, entry)
    if landed is None:
        # Found nowhere: made if its place is empty, not known if another entry stands there.
        return True if now is None else None
    return landed


def _delete_landed(
    ws: Workspace, journal: Journal, entry: JournalEntry
) -> bool | NotPutBack | None:
    """A delete killed part way: put the entry back if it never left the workspace and its place
    is free (not made; NotPutBack when the place is taken), or record where it went so undo can
    bring it back (made). None: gone, and where is not known."""
    target = ws.target(entry.rel)
    try:
        dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    except OperatorError:
        return None  # its folder is gone too: the entry certainly is not in it
    try:
        try:
            where, record = find_interrupted_delete(
                dir_fd, name, parent_path(ws, target), journal.state_dir, entry.seq, entry.time
            )
        except OSError:
            return None
        if where == "back":
            return False
        if where == "stranded" and record is not None:
            return NotPutBack(str(record["where"]))
        if record is None:
            return None
        journal.commit(entry, trash=record)
        # The trash copy is whole and recorded: the source a move across file systems was
        # removing when the app died is litter beside the place now.
        try:
            clear_moved_source(dir_fd, name, entry.seq)
        except OSError:
            pass  # left for a look by hand; the delete's result is right either way
        return True
    finally:
        os.close(dir_fd)
