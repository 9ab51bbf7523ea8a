"""Whether a copy or move the app died in the middle of took effect (changes/recovery.py asks,
under the session lock), told from what stands at its two places against the journal's record of
the entry:

- a rename within one file system happened exactly when the entry is at the destination, and did
  not when it is still at its place;
- a copy happened when a copy of the entry (same fingerprint, another inode) is at the
  destination, and did not when the destination is as it was (nothing there, or the file it was
  to replace); the temporary copy a killed copy left is swept before this is asked;
- a move to another file system whose copy is in place is finished: the original goes to the
  trash, as approved (or its trash found, if the app died sending it there).

A change that took effect gets its journal "commit" record here, so undo can reverse it. Anything
else is not known (None): the result then says so instead of guessing."""

from __future__ import annotations

import os
from typing import Any

from ....protocol.errors import OperatorError
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.current import parent_path, read_current, remove_dirs
from ...ondisk.fingerprint import same_entry, transfer_identity
from ...safety.journal import Journal, JournalEntry, PreImageMismatch
from ...safety.trash import TrashError, move_to_trash
from ...safety.trash_recovery import clear_moved_source, find_interrupted_delete
from ..outcomes import NotPutBack


def _at(ws: Workspace, target: Target) -> dict[str, Any] | None:
    """The identity of what is at `target` now (None: nothing, or it cannot be looked at)."""
    try:
        dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    except OperatorError:
        return None
    try:
        return transfer_identity(dir_fd, name)
    except OSError:
        return None
    finally:
        os.close(dir_fd)


def _as_it_was(
    ws: Workspace, journal: Journal, entry: JournalEntry, target: Target, now: dict[str, Any] | None
) -> bool:
    """The destination is as it was before the change: empty, or the file it was to replace."""
    if not entry.replaced:
        return now is None
    try:
        current = read_current(ws, target)
        return current is not None and current.data == journal.pre_image(entry)
    except (OperatorError, OSError, PreImageMismatch):
        return False


def transfer_outcome(
    ws: Workspace, journal: Journal, entry: JournalEntry
) -> bool | NotPutBack | None:
    outcome = _outcome(ws, journal, entry)
    if outcome is False:  # not made: the folders it made on the way go too (if still empty)
        remove_dirs(ws, entry.created_dirs)
    return outcome


def _outcome(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | NotPutBack | None:
    want = entry.identity
    if want is None or entry.rel_to is None:
        return None
    try:
        src, dst = ws.target(entry.rel), ws.target(entry.rel_to)
    except OperatorError:
        return None
    at_src, at_dst = _at(ws, src), _at(ws, dst)
    if entry.kind == "move" and not entry.across:
        return _renamed(ws, journal, entry, dst, at_src, at_dst)
    if at_dst is None or not _a_copy(at_dst, want):
        # not made when the destination is as it was, and a move's original still in its place
        not_made = _as_it_was(ws, journal, entry, dst, at_dst) and (
            entry.kind == "copy" or same_entry(at_src, want)
        )
        return False if not_made else None
    if entry.kind == "copy":
        journal.commit(entry, to_identity=at_dst)
        return True
    return _finish_move(ws, journal, entry, src, at_src, at_dst)


def _same_inode(at: dict[str, Any], want: dict[str, Any]) -> bool:
    return (at["dev"], at["ino"]) == (want["dev"], want["ino"])


def _a_copy(at: dict[str, Any], want: dict[str, Any]) -> bool:
    """What is at a place is a copy of the entry: its fingerprint, another inode."""
    return at["fingerprint"] == want["fingerprint"] and not _same_inode(at, want)


def _renamed(
    ws: Workspace,
    journal: Journal,
    entry: JournalEntry,
    dst: Target,
    at_src: dict[str, Any] | None,
    at_dst: dict[str, Any] | None,
) -> bool | None:
    """A rename within one file system: it happened when the very entry is at the destination,
    and did not when it is still at its place and the destination as it was."""
    want = entry.identity
    assert want is not None
    if same_entry(at_dst, want) and at_dst is not None and _same_inode(at_dst, want):
        journal.commit(entry)
        return True
    if same_entry(at_src, want) and _as_it_was(ws, journal, entry, dst, at_dst):
        return False
    return None


def _finish_move(
    ws: Workspace,
    journal: Journal,
    entry: JournalEntry,
    src: Target,
    at_src: dict[str, Any] | None,
    at_dst: dict[str, Any],
) -> bool | NotPutBack | None:
    """A move to another file system whose copy is whole at the destination: the original goes to
    the trash now (the person approved the move), or the trash it reached is recorded."""
    want = entry.identity
    try:
        dir_fd, name, _ = ws.open_parent_dir(src, create=False)
    except OperatorError:
        return None
    try:
        parent = parent_path(ws, src)
        if at_src is None:  # it left its place: the app died sending it to the trash
            where, record = find_interrupted_delete(
                dir_fd, name, parent, journal.state_dir, entry.seq, entry.time
            )
            if where == "stranded" and record is not None:
                return NotPutBack(str(record["where"]))
            if where == "trashed" and record is not None:
                journal.commit(entry, trash=record, to_identity=at_dst)
                clear_moved_source(dir_fd, name, entry.seq)
                return True
            if where != "back":
                return None
            at_src = transfer_identity(dir_fd, name)
        if not same_entry(at_src, want):
            return None  # something else is at its place now: not the original to trash
        record = move_to_trash(dir_fd, name, parent, journal.state_dir, entry.seq)
    except (TrashError, OSError, OperatorError):
        return None
    finally:
        os.close(dir_fd)
    journal.commit(entry, trash=record, to_identity=at_dst)
    return True
