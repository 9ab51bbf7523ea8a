"""The commit of fs.copy, fs.move and fs.rename (transfer/plan.py plans them). Both sides are looked
at again first: an entry or a destination that changed since the preview is ERR_CONFLICT, nothing
touched. The journal is begun before anything moves (with the pre-image of a file replaced at the
destination, as any write keeps one), so undo and recovery know what was done.

A move within one file system is one rename: the no-replace rename when nothing is to be
replaced (a file saved at the destination meanwhile is a conflict, never overwritten), a plain
rename over the file the person saw otherwise, right after checking it is still that file. A
copy, and a move that meets another file system (EXDEV), copy the entry under a temporary name
beside the destination, every file and folder fsynced, and rename the copy into place the same
way; the move then sends the original to the trash (safety/trash.py), so that it, too, can come
back. A failure before the entry is in place removes the temporary copy and the folders made for it.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
import time
from pathlib import Path

from ....protocol.errors import ErrorCode, OperatorError
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.atomic import discard_temp, install_temp, temp_name, write_temp
from ...ondisk.current import identity_now, parent_path, read_current, remove_dirs
from ...ondisk.fingerprint import current_fingerprint, same_entry, transfer_identity
from ...ondisk.moves import copy_entry, remove_entry
from ...ondisk.noreplace import rename_noreplace
from ...safety.journal import Journal, JournalEntry
from ...safety.trash import TrashError, TrashIncomplete, move_to_trash
from ..outcomes import LOOK_AGAIN, CommitOutcome, conflict
from ..plan import WritePlan

Identity = tuple[int, int, int, int]  # device, inode, size, mtime (commit.Current.identity)


def _check_unchanged(plan: WritePlan, ws: Workspace, src_fd: int, src_name: str) -> None:
    src, dst = plan.target, plan.target_to
    assert dst is not None
    if current_fingerprint(ws, src) != plan.base_hash:
        raise conflict(src, "changed (or was removed)", look_again=LOOK_AGAIN)
    # What was checked (by path) is what the descriptor holds: the entry is taken from there.
    checked, held = ws.lstat(src), os.stat(src_name, dir_fd=src_fd, follow_symlinks=False)
    if checked is None or (checked.st_dev, checked.st_ino) != (held.st_dev, held.st_ino):
        raise conflict(src, "changed (or was removed)", look_again=LOOK_AGAIN)
    if plan.to_hash is None:
        if ws.lstat(dst) is not None:
            raise conflict(
                dst, "was created by something else", side="path_to ", look_again=LOOK_AGAIN
            )
    elif current_fingerprint(ws, dst) != plan.to_hash:
        raise conflict(dst, "changed (or was removed)", side="path_to ", look_again=LOOK_AGAIN)


def _put_in_place(
    src_fd: int, src: str, dst_fd: int, dst: str, replaced: Identity | None, target: Target
) -> None:
    """Rename `src` to `dst`: never over anything when nothing is to be replaced, and over the
    replaced file only while it is still the one the person saw.

    OSError(EXDEV) across file systems.
    """
    if replaced is None:
        try:
            rename_noreplace(src_fd, src, dst_fd, dst)
        except FileExistsError:
            raise conflict(
                target, "was created by something else", side="path_to ", look_again=LOOK_AGAIN
            ) from None
        return
    if identity_now(dst_fd, dst) != replaced:
        raise conflict(target, "changed", side="path_to ", look_again=LOOK_AGAIN)
    os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)


def _sync(*fds: int) -> str | None:
    """fsync the folders a rename changed; a failure is a result note, not an undone change."""
    try:
        for fd in dict.fromkeys(fds):
            os.fsync(fd)
    except OSError as exc:
        return (
            f"the folder could not be synced to disk ({exc.strerror or exc}), "
            "so the change may not survive a power cut"
        )
    return None


def _begin(
    plan: WritePlan,
    ws: Workspace,
    journal: Journal,
    entry: JournalEntry,
    dst_fd: int,
    dst_name: str,
) -> Identity | None:
    """Begin the journal entry, with the pre-image of the file it replaces; that file's identity."""
    assert plan.target_to is not None
    if not entry.replaced:
        journal.begin(entry, None)
        return None
    info = os.stat(dst_name, dir_fd=dst_fd, follow_symlinks=False)
    if not stat_module.S_ISREG(info.st_mode):
        raise conflict(plan.target_to, "changed", side="path_to ", look_again=LOOK_AGAIN)
    replaced = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    entry.mode, entry.replaced_mtime = stat_module.S_IMODE(info.st_mode), info.st_mtime_ns
    kept = journal.link_pre_image(entry, dst_fd, dst_name, replaced, info.st_nlink)
    if kept == "changed":
        raise conflict(plan.target_to, "changed", side="path_to ", look_again=LOOK_AGAIN)
    data = None
    if kept == "copy":
        current = read_current(ws, plan.target_to)
        if current is None or current.identity != replaced:
            raise conflict(plan.target_to, "changed", side="path_to ", look_again=LOOK_AGAIN)
        data = current.data
    journal.begin(entry, data, linked=kept == "linked")
    return replaced


def commit_transfer(
    plan: WritePlan, ws: Workspace, state_dir: Path, journal: Journal
) -> CommitOutcome:
    src, dst = plan.target, plan.target_to
    assert dst is not None
    src_fd, src_name, _ = ws.open_parent_dir(src, create=False)
    try:
        _check_unchanged(plan, ws, src_fd, src_name)
        dst_fd, dst_name, created = ws.open_parent_dir(dst, create=True)
        try:
            return _commit(
                plan, ws, state_dir, journal, (src_fd, src_name), (dst_fd, dst_name), created
            )
        except BaseException:
            # stops at the first folder that is not empty: a landed entry keeps its own
            remove_dirs(ws, created)
            raise
        finally:
            os.close(dst_fd)
    finally:
        os.close(src_fd)


def _commit(
    plan: WritePlan,
    ws: Workspace,
    state_dir: Path,
    journal: Journal,
    source: tuple[int, str],
    destination: tuple[int, str],
    created: list[str],
) -> CommitOutcome:
    src_fd, (dst_fd, dst_name) = source[0], destination
    dst = plan.target_to
    assert dst is not None
    entry = _entry(plan, ws, journal, source, created)
    begun = landed = False
    try:
        replaced = _begin(plan, ws, journal, entry, dst_fd, dst_name)
        begun = True
        if plan.kind == "move":
            landed = _renamed(journal, entry, source, destination, replaced, dst)
        if not landed:
            _copied(journal, entry, source, destination, replaced, dst)
            landed = True
    except BaseException:
        if not landed:
            journal.discard(entry)  # no pre-image kept for a change that never happened
            if begun:
                journal.mark_swept(entry.seq)
        raise
    note = _sync(dst_fd, src_fd)
    to_identity = (
        transfer_identity(dst_fd, dst_name) if plan.kind == "copy" or entry.across else None
    )
    trash = (
        _trash_original(plan, ws, state_dir, journal, entry, source, destination, to_identity)
        if entry.across
        else None
    )
    journal.commit(entry, trash=trash, to_identity=to_identity)
    summary = plan.summary
    if entry.across and "another file system" not in summary:
        summary += "; it was on another file system: copied, and the original moved to the trash"
    return CommitOutcome(summary + (f" ({note})" if note else ""), entry.seq)


def _entry(
    plan: WritePlan, ws: Workspace, journal: Journal, source: tuple[int, str], created: list[str]
) -> JournalEntry:
    assert plan.target_to is not None
    return JournalEntry(
        seq=journal.next_seq(),
        time=time.time(),
        command_id=plan.command_id,
        action=plan.action,
        rel=plan.target.rel,
        kind=plan.kind,
        old_sha=None,
        new_sha=None,
        created_dirs=created,
        summary=plan.summary,
        root=str(ws.root),
        rel_to=plan.target_to.rel,
        identity=transfer_identity(*source),
        replaced=plan.to_hash is not None,
    )


def _renamed(
    journal: Journal,
    entry: JournalEntry,
    source: tuple[int, str],
    destination: tuple[int, str],
    replaced: Identity | None,
    dst: Target,
) -> bool:
    """Move the entry by renaming it into place; False when path_to is on another file system
    (then it is copied, and the original goes to the trash once the copy is in place)."""
    try:
        _put_in_place(*source, *destination, replaced, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        journal.note_across(entry)
        return False
    return True


def _copied(
    journal: Journal,
    entry: JournalEntry,
    source: tuple[int, str],
    destination: tuple[int, str],
    replaced: Identity | None,
    dst: Target,
) -> None:
    """Copy the entry beside path_to, then rename the copy into place; a copy that does not get
    there is removed."""
    (src_fd, src_name), (dst_fd, dst_name) = source, destination
    temp = temp_name(dst_name)
    tree = not stat_module.S_ISREG(os.stat(src_name, dir_fd=src_fd, follow_symlinks=False).st_mode)
    journal.note_temp(entry.seq, dst.rel, temp, tree=tree)
    try:
        copy_entry(src_fd, src_name, dst_fd, temp)
        _put_in_place(dst_fd, temp, dst_fd, dst_name, replaced, dst)
    except BaseException:
        try:
            remove_entry(dst_fd, temp)
        except OSError:
            pass  # never made, or already gone; a leftover is swept by the next commit
        raise


def _trash_original(
    plan: WritePlan,
    ws: Workspace,
    state_dir: Path,
    journal: Journal,
    entry: JournalEntry,
    source: tuple[int, str],
    destination: tuple[int, str],
    copied: dict[str, object] | None,
) -> dict[str, object]:
    """The last step of a move to another file system: the original to the trash, the record of
    where. If that fails with the original still in its place, the copy is taken back (the file
    it replaced restored), so that the move did not happen."""
    (src_fd, src_name), (dst_fd, dst_name) = source, destination
    src, dst = plan.target, plan.target_to
    assert dst is not None
    try:
        return move_to_trash(src_fd, src_name, parent_path(ws, src), state_dir, entry.seq)
    except TrashIncomplete as exc:
        raise OperatorError(
            ErrorCode.ERR_DELETE_INCOMPLETE,
            (
                f"{plan.action} copied {src.rel} to {dst.rel}, but the original did not finish "
                f"going to the trash: {exc}; tell the person, and do not send the move again"
            ),
        ) from None
    except (TrashError, OSError) as exc:
        why = str(exc) if isinstance(exc, TrashError) else exc.strerror or str(exc)
        left = _take_back(journal, entry, dst_fd, dst_name, copied)
        raise OperatorError(
            ErrorCode.ERR_IO,
            (
                f"{plan.action} could not put the original {src.rel} in the "
                f"trash ({why}) after copying it to another file system; {left}"
            ),
        ) from None


def _take_back(
    journal: Journal,
    entry: JournalEntry,
    dst_fd: int,
    dst_name: str,
    copied: dict[str, object] | None,
) -> str:
    """Undo the copy a failed move made at the destination; what the result should say about it."""
    dst = entry.rel_to
    try:
        if not same_entry(transfer_identity(dst_fd, dst_name), copied):
            return (
                f"the copy at {dst} changed meanwhile and was left there; nothing else was changed"
            )
        if not entry.replaced:
            remove_entry(dst_fd, dst_name)
        else:
            old = journal.pre_image(entry)
            temp = write_temp(
                dst_fd, dst_name, old, entry.mode if entry.mode is not None else 0o644
            )
            if entry.replaced_mtime is not None:
                os.utime(
                    temp,
                    ns=(entry.replaced_mtime, entry.replaced_mtime),
                    dir_fd=dst_fd,
                    follow_symlinks=False,
                )
            try:
                install_temp(dst_fd, temp, dst_name)
            except BaseException:
                discard_temp(dst_fd, temp)
                raise
        journal.mark_swept(entry.seq)
    except Exception as exc:
        return f"the copy at {dst} could not be taken back ({exc}); tell the person"
    return "the copy was taken back: nothing was changed"
