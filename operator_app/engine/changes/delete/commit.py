"""The commit of fs.delete: the entry goes to the trash (safety/trash.py), only while it is still
what the preview showed (its fingerprint, and the very entry the checked descriptor holds), with
the journal's "begin" before it moves and its "commit" naming where it went."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ....protocol.errors import ErrorCode, OperatorError
from ...boundary.workspace import Workspace
from ...ondisk.current import parent_path
from ...ondisk.fingerprint import current_fingerprint
from ...safety.journal import Journal, JournalEntry
from ...safety.trash import TrashIncomplete, move_to_trash
from ..outcomes import LOOK_AGAIN, CommitOutcome, conflict
from ..plan import WritePlan


def commit_delete(
    plan: WritePlan, ws: Workspace, state_dir: Path, journal: Journal
) -> CommitOutcome:
    """Send the entry to the trash, only while it is still what the person saw."""
    dir_fd, name, _ = ws.open_parent_dir(plan.target, create=False)
    try:
        if current_fingerprint(ws, plan.target) != plan.base_hash:
            raise conflict(plan.target, "changed (or was removed)", look_again=LOOK_AGAIN)
        # What was checked (by path) is what the descriptor holds: the move starts from there.
        checked, held = ws.lstat(plan.target), os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if checked is None or (checked.st_dev, checked.st_ino) != (held.st_dev, held.st_ino):
            raise conflict(plan.target, "changed (or was removed)", look_again=LOOK_AGAIN)
        entry = JournalEntry(
            seq=journal.next_seq(),
            time=time.time(),
            command_id=plan.command_id,
            action=plan.action,
            rel=plan.target.rel,
            kind="delete",
            old_sha=plan.base_hash,
            new_sha=None,
            summary=plan.summary,
            root=str(ws.root),
        )
        journal.begin(entry, None)
        try:
            record = move_to_trash(dir_fd, name, parent_path(ws, plan.target), state_dir, entry.seq)
        except TrashIncomplete as exc:
            # Not a conflict, and not "nothing changed": the entry is gone from its place.
            raise OperatorError(
                ErrorCode.ERR_DELETE_INCOMPLETE,
                (
                    f"fs.delete of {plan.target.rel} did not finish: {exc}; "
                    "tell the person, and do not send the delete again"
                ),
            ) from None
        journal.commit(entry, trash=record)
    finally:
        os.close(dir_fd)
    where = "" if record.get("kind") != "session" else " (Operator's own trash in its state folder)"
    return CommitOutcome(plan.summary + where, entry.seq)
