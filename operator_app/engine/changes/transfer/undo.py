"""Undo of fs.copy, fs.move and fs.rename, exactly in reverse: a copy is removed (or the file it
replaced restored over it), a moved entry is renamed back (or, moved to another file system,
brought back from the trash and its copy removed), then the file it replaced is put back and the
folders made for it removed. Only while the destination holds exactly what the change left there
(device, inode and fingerprint of the entry, folder trees included; or, for a file Operator
could have rewritten and put back since, the same bytes), and never over an entry that
appeared at the original place meanwhile (ondisk/noreplace.py); otherwise the undo is refused with
the reason, and nothing is touched."""

from __future__ import annotations

import os
from typing import Any

from ....protocol.errors import OperatorError
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.atomic import NEW_FILE_MODE, discard_temp, install_temp, write_temp
from ...ondisk.current import remove_dirs
from ...ondisk.fingerprint import same_entry, transfer_identity
from ...ondisk.moves import remove_entry
from ...ondisk.noreplace import rename_noreplace
from ...safety.journal import Journal, JournalEntry, PreImageMismatch
from ...safety.trash import TrashError
from ...safety.trash_restore import restore_from_trash
from ..outcomes import UndoOutcome, UndoRefused
from ..undo_places import parent_to_restore_into, trashed_place


def _identity_or_none(dir_fd: int, name: str) -> dict[str, Any] | None:
    try:
        return transfer_identity(dir_fd, name)
    except FileNotFoundError:
        return None


def _old_file(dir_fd: int, name: str, data: bytes, entry: JournalEntry) -> str:
    """The file a change replaced, whole again in a temporary file beside `name`: its bytes, mode
    and modification time. Its name; the caller installs or discards it."""
    temp = write_temp(dir_fd, name, data, entry.mode if entry.mode is not None else NEW_FILE_MODE)
    if entry.replaced_mtime is not None:
        try:
            os.utime(
                temp,
                ns=(entry.replaced_mtime, entry.replaced_mtime),
                dir_fd=dir_fd,
                follow_symlinks=False,
            )
        except BaseException:
            discard_temp(dir_fd, temp)
            raise
    return temp


def _replace_with(
    dir_fd: int, name: str, data: bytes, entry: JournalEntry, expected: dict[str, Any], why: str
) -> None:
    """Put the replaced file back at `name` over the entry there, only while it is `expected`."""
    temp = _old_file(dir_fd, name, data, entry)
    try:
        if not same_entry(_identity_or_none(dir_fd, name), expected):
            raise UndoRefused(f"{why}: it changed while the undo ran; nothing was touched")
        install_temp(dir_fd, temp, name)
    except BaseException:
        discard_temp(dir_fd, temp)
        raise


def _put_back_replaced(dir_fd: int, name: str, data: bytes, entry: JournalEntry) -> str:
    """The file a move replaced, back at its (now free) place; a note if something new is there."""
    temp = _old_file(dir_fd, name, data, entry)
    try:
        rename_noreplace(dir_fd, temp, dir_fd, name)
    except FileExistsError:
        discard_temp(dir_fd, temp)
        return (
            f"; the file it replaced at {entry.rel_to} was not put back, as something new is "
            f"there now (its old content is kept in the undo journal as pre/{entry.seq}.bin)"
        )
    except BaseException:
        discard_temp(dir_fd, temp)
        raise
    return f", and put back the file it had replaced at {entry.rel_to}"


def undo_transfer(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    why = f"cannot undo {entry.action} {entry.command_id} ({entry.where})"
    src, dst = ws.target(entry.rel), ws.target(entry.rel_to or "")
    if not src.parts or not dst.parts:
        raise UndoRefused(f"{why}: the journal names the workspace root")
    old = _replaced_bytes(journal, entry, why)
    try:
        dst_fd, dst_name, _ = ws.open_parent_dir(dst, create=False)
    except OperatorError as exc:
        raise UndoRefused(f"{why}: {exc.message}; nothing was touched") from None
    try:
        expected = _left_at(dst_fd, dst_name, entry, f"{why}: {dst.rel}")
        if entry.kind == "copy":
            summary = _take_copy_back(entry, src, dst, (dst_fd, dst_name), expected, old, why)
        else:
            summary = _move_back(ws, journal, entry, (dst_fd, dst_name), expected, old, why)
    finally:
        os.close(dst_fd)
    journal.mark_undone(entry)
    left = remove_dirs(ws, entry.created_dirs)
    return UndoOutcome(entry, summary + (f"; {left}" if left else ""))


def _replaced_bytes(journal: Journal, entry: JournalEntry, why: str) -> bytes | None:
    """The file the change replaced at its destination, if it replaced one: read before anything
    is touched, so no undo is left half done for want of it."""
    if not entry.replaced:
        return None
    try:
        return journal.pre_image(entry)
    except (OSError, PreImageMismatch) as exc:
        raise UndoRefused(
            f"{why}: the saved copy of the file it replaced is missing or "
            f"is not the one this change kept ({exc}); nothing was touched"
        ) from None


def _left_at(dst_fd: int, dst_name: str, entry: JournalEntry, refused: str) -> dict[str, Any]:
    """What the change left at the destination (the very entry moved, or the copy made), when
    it is still there as it was left."""
    expected = entry.identity if entry.kind == "move" and not entry.across else entry.to_identity
    now = _identity_or_none(dst_fd, dst_name)
    if now is None or expected is None or not same_entry(now, expected):
        state = "is gone" if now is None else "changed since Operator put it there"
        raise UndoRefused(f"{refused} {state}; nothing was touched")
    return expected


def _take_copy_back(
    entry: JournalEntry,
    src: Target,
    dst: Target,
    destination: tuple[int, str],
    expected: dict[str, Any],
    old: bytes | None,
    why: str,
) -> str:
    """The copy removed, or the file it replaced put back in its place."""
    dst_fd, dst_name = destination
    if old is None:
        remove_entry(dst_fd, dst_name)
        return (
            f"Removed {dst.rel}, the copy of {src.rel} "
            f"that {entry.command_id} ({entry.action}) made"
        )
    _replace_with(dst_fd, dst_name, old, entry, expected, why)
    return (
        f"Restored {dst.rel} as it was before {entry.command_id} "
        f"({entry.action}) copied {src.rel} over it"
    )


def _move_back(
    ws: Workspace,
    journal: Journal,
    entry: JournalEntry,
    destination: tuple[int, str],
    expected: dict[str, Any],
    old: bytes | None,
    why: str,
) -> str:
    """The moved entry back at its place (renamed, or from the trash with its copy removed), then
    the file it replaced back at the destination."""
    dst_fd, dst_name = destination
    src = ws.target(entry.rel)
    if entry.across:
        folder, trashed = trashed_place(ws, journal, entry, src, why)
    src_fd, src_name, created = parent_to_restore_into(ws, src, why)
    taken = f"{why}: something is at {src.rel} again; move it away first; nothing was touched"
    try:
        if _identity_or_none(src_fd, src_name) is not None:
            raise UndoRefused(taken)
        if not entry.across:
            try:
                rename_noreplace(dst_fd, dst_name, src_fd, src_name)
            except FileExistsError:
                raise UndoRefused(taken) from None
        else:
            try:
                restore_from_trash(entry.trash or {}, folder, trashed, src_fd, src_name)
            except TrashError as exc:
                raise UndoRefused(f"{why}: {exc}") from None
            # The original is back: the copy on the other file system goes (it is what was checked).
            if old is None:
                remove_entry(dst_fd, dst_name)
    except BaseException:
        remove_dirs(ws, created)
        raise
    finally:
        os.close(src_fd)
    summary = f"Moved {entry.rel_to} back to {entry.rel} (undid {entry.action} {entry.command_id})"
    if old is None:
        return summary
    if entry.across:  # the copy still stands at the destination: the old file replaces it
        _replace_with(dst_fd, dst_name, old, entry, expected, why)
        return summary + f", and put back the file it had replaced at {entry.rel_to}"
    return summary + _put_back_replaced(dst_fd, dst_name, old, entry)
