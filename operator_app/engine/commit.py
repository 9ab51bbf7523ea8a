"""The one place a planned change reaches the disk: re-read the target through the checked
directory descriptor, refuse with ERR_CONFLICT if it is no longer what the plan was made from,
journal the pre-image, then replace atomically (or move to the trash, for a delete)."""

from __future__ import annotations

import errno
import os
import stat as stat_module
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..protocol.errors import ErrorCode, OperatorError
from .atomic import NEW_FILE_MODE, TEMP_NAME_RE, discard_temp, install_temp, temp_name, write_temp
from .fingerprint import current_fingerprint
from .fsops import StepError, open_dir_chain, open_subdir, read_exactly
from .journal import Journal, JournalEntry
from .plan import WritePlan, sha256
from .trash import TrashIncomplete, move_to_trash
from .workspace import Target, Workspace


@dataclass(frozen=True)
class CommitOutcome:
    summary: str
    seq: int | None


class _Background:
    """`work` run on a thread; `wait()` gives its result or raises what it raised. A commit writes
    and fsyncs its temporary file this way (the slow part, and free of the GIL) while it does the
    journal steps, instead of one after the other; the replace still waits for both."""

    def __init__(self, work: Callable[[], object]) -> None:
        self._work = work
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by wait()
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def _conflict(target: Target, what: str) -> OperatorError:
    return OperatorError(ErrorCode.ERR_CONFLICT, (
        f"{target.rel} {what} since the preview; nothing was written; read it again (fs.readSlice) and resend the command"
    ))


@dataclass(frozen=True)
class Current:
    """A target file as it is right now."""

    data: bytes
    mode: int  # permission bits
    identity: tuple[int, int, int, int]  # device, inode, size, mtime: is it still this file?
    links: int
    owner: tuple[int, int] = (-1, -1)  # uid, gid


def _read_all(fd: int, size: int) -> bytes:
    """The file's `size` bytes in one read where the kernel allows: reading a 2 MB file in 1 MB
    chunks and joining them costs 20x more (two large allocations and a copy)."""
    data = os.read(fd, size)
    if len(data) < size:
        rest = read_exactly(fd, size - len(data))  # a short read (or a file that shrank)
        data += rest
    return data


def read_current(ws: Workspace, target: Target) -> Current | None:
    """The target as it is now, or None when it is absent. Opened with O_NOFOLLOW relative to
    its checked parent, so a symlink put there is refused."""
    try:
        dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    except OperatorError as exc:
        if exc.code is ErrorCode.ERR_NOT_FOUND:
            return None
        raise
    try:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OperatorError(ErrorCode.ERR_SYMLINK_TARGET, (
                    f"{target.rel} is now a symlink; Operator does not write through symlinks; nothing was written"
                )) from None
            raise
        try:
            info = os.fstat(fd)
            if not stat_module.S_ISREG(info.st_mode):
                raise OperatorError(ErrorCode.ERR_NOT_A_FILE, f"{target.rel} is no longer a regular file; nothing was written")
            return Current(_read_all(fd, info.st_size), stat_module.S_IMODE(info.st_mode),
                           (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns), info.st_nlink,
                           (info.st_uid, info.st_gid))
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def identity_now(dir_fd: int, name: str) -> tuple[int, int, int, int] | None:
    """Current.identity of entry `name` as it is now (a symlink's own), None when it is absent."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def sweep_temps(ws: Workspace, journal: Journal) -> None:
    """Remove the temporary files of commits (or undos) that an app killed mid-way left beside
    their targets. Only what the journal announced, by its exact name, and only regular files,
    except a copy's temporary folder (or symlink), announced as such."""
    for seq, rel, temp, tree in journal.stale_temps():
        try:
            if TEMP_NAME_RE.fullmatch(temp):
                dir_fd, _, _ = ws.open_parent_dir(ws.target(rel), create=False)
                try:
                    mode = os.stat(temp, dir_fd=dir_fd, follow_symlinks=False).st_mode
                    if stat_module.S_ISREG(mode):
                        os.unlink(temp, dir_fd=dir_fd)
                    elif tree:
                        from .moves import remove_entry

                        remove_entry(dir_fd, temp)
                except FileNotFoundError:
                    pass  # the commit got as far as installing it, or failed and removed it
                finally:
                    os.close(dir_fd)
        except (OperatorError, OSError):
            pass  # the folder is gone or out of reach: nothing more can be done about it
        journal.mark_swept(seq)


def commit(plan: WritePlan, ws: Workspace, state_dir: Path) -> CommitOutcome:
    if plan.kind == "noop":
        return CommitOutcome(plan.summary, None)
    journal = Journal(state_dir)
    sweep_temps(ws, journal)
    if plan.kind == "delete":
        return _commit_delete(plan, ws, state_dir, journal)
    if plan.kind in ("copy", "move"):
        from .transfer_commit import commit_transfer

        return commit_transfer(plan, ws, state_dir, journal)
    assert plan.new_bytes is not None
    current = read_current(ws, plan.target)
    # The bytes themselves, not a hash: the plan holds them anyway and memcmp is cheapest.
    if (current.data if current else None) != plan.base:
        what = "was created by something else" if plan.base is None else "was removed" if current is None else "changed"
        raise _conflict(plan.target, what)
    dir_fd, name, created = ws.open_parent_dir(plan.target, create=True)
    try:
        seq = journal.next_seq()
        temp = temp_name(name)
        journal.note_temp(seq, plan.target.rel, temp)  # so a commit killed from here on leaves no litter
        mode, owner = (current.mode, current.owner) if current else (NEW_FILE_MODE, None)
        new_bytes = plan.new_bytes
        writer = _Background(lambda: write_temp(dir_fd, name, new_bytes, mode, owner, temp))
        installing = False
        note: str | None = None
        entry: JournalEntry | None = None
        try:
            entry = JournalEntry(
                seq=seq, time=time.time(), command_id=plan.command_id, action=plan.action,
                rel=plan.target.rel, kind=plan.kind, old_sha=None, new_sha=sha256(new_bytes),
                mode=current.mode if current else None, created_dirs=created, summary=plan.summary, root=str(ws.root),
            )
            kept = "copy" if current is None else journal.link_pre_image(entry, dir_fd, name, current.identity, current.links)
            if kept == "changed":
                raise _conflict(plan.target, "changed")
            linked = kept == "linked"
            journal.begin(entry, None if current is None or linked else current.data, linked=linked)
            writer.wait()  # the temporary file is whole and fsynced; the journal is durable
            # A last look just before the replace: the file was read (and its pre-image kept)
            # before the slow part, the write and fsync of the new bytes and of the journal. A save
            # (or a create) by an editor in between would be wiped out without a trace.
            if identity_now(dir_fd, name) != (current.identity if current else None):
                raise _conflict(plan.target, "was created by something else" if current is None else "changed")
            installing = True
            note = install_temp(dir_fd, temp, name)
        except BaseException:
            try:
                writer.wait()  # never leave it writing into a folder about to be closed
            except BaseException:  # noqa: BLE001 - write_temp removed its own file; the first error is the one to report
                pass
            discard_temp(dir_fd, temp)
            if entry is not None and not installing:
                journal.discard(entry)  # no pre-image kept for a change that never happened
            journal.mark_swept(seq)
            # "Nothing was changed" holds for the folders made on the way too. Should the replace
            # have happened after all, the file keeps its folder non-empty and nothing is removed.
            remove_dirs(ws, created)
            raise
        journal.commit(entry)
    finally:
        os.close(dir_fd)
    assert entry is not None
    return CommitOutcome(plan.summary + (f" ({note})" if note else ""), entry.seq)


def _dir_chain(folders: list[str]) -> list[str] | None:
    """The components of the deepest of `folders` when they are one chain of folders, each after
    the first being the one before plus one name (as open_parent_dir reports the folders it made),
    relative and without "..": anything else is not a list Operator wrote."""
    parts: list[str] | None = None
    for folder in folders:
        if not isinstance(folder, str) or "\0" in folder:
            return None
        names = folder.split("/")
        if parts is None:  # the first one may lie at any depth: its parent was there already
            if any(name in ("", ".", "..") for name in names):
                return None
        elif names[:-1] != parts or names[-1] in ("", ".", ".."):
            return None
        parts = names
    return parts


def remove_dirs(ws: Workspace, folders: list[str]) -> str | None:
    """Remove the empty folders a commit made (`folders`: relative to the root, parents first),
    deepest first, each with rmdir relative to its parent's descriptor, opened from the root along
    an O_NOFOLLOW chain: no path of any length is resolved, and no symlink is followed out. Stops
    at the first folder that is not empty or not there. None, or why some were left."""
    if not folders:
        return None
    parts = _dir_chain(folders)
    if parts is None:
        return "the journal's list of folders it created is not a chain of folders inside the workspace; none were removed"
    first = len(parts) - len(folders)  # index of the shallowest folder made
    try:
        fd, _ = open_dir_chain(str(ws.root), parts[:first])
    except StepError as step:
        return f"{'/'.join(parts[: step.index + 1]) or '.'} cannot be opened ({step.error.strerror})"
    fds = [fd]
    try:
        for name in parts[first:-1]:
            try:
                fds.append(open_subdir(fds[-1], name))
            except OSError:
                break  # gone or replaced: the folders below it are not ours to look for
        for depth in range(len(fds) - 1, -1, -1):
            try:
                os.rmdir(parts[first + depth], dir_fd=fds[depth])
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT, errno.ENOTDIR):
                    return None  # in use again, or gone: leave it (and its parents) be
                return f"{'/'.join(parts[: first + depth + 1])} was left ({exc.strerror})"
    finally:
        for fd in fds:
            os.close(fd)
    return None


def parent_path(ws: Workspace, target: Target) -> Path:
    """The checked parent's path (send2trash needs one; every step before it uses descriptors)."""
    parent = Path(os.path.realpath(ws.root.joinpath(*target.parts[:-1])))
    if not parent.is_relative_to(ws.root):
        raise OperatorError(ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE, f"{target.rel} resolves to outside the workspace")
    return parent


def _commit_delete(plan: WritePlan, ws: Workspace, state_dir: Path, journal: Journal) -> CommitOutcome:
    dir_fd, name, _ = ws.open_parent_dir(plan.target, create=False)
    try:
        if current_fingerprint(ws, plan.target) != plan.base_hash:
            raise _conflict(plan.target, "changed (or was removed)")
        # What was checked (by path) is what the descriptor holds: the move starts from there.
        checked, held = ws.lstat(plan.target), os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if checked is None or (checked.st_dev, checked.st_ino) != (held.st_dev, held.st_ino):
            raise _conflict(plan.target, "changed (or was removed)")
        entry = JournalEntry(
            seq=journal.next_seq(), time=time.time(), command_id=plan.command_id, action=plan.action,
            rel=plan.target.rel, kind="delete", old_sha=plan.base_hash, new_sha=None, summary=plan.summary,
            root=str(ws.root),
        )
        journal.begin(entry, None)
        try:
            record = move_to_trash(dir_fd, name, parent_path(ws, plan.target), state_dir, entry.seq)
        except TrashIncomplete as exc:
            # Not a conflict, and not "nothing changed": the entry is gone from its place.
            raise OperatorError(ErrorCode.ERR_DELETE_INCOMPLETE, (
                f"fs.delete of {plan.target.rel} did not finish: {exc}; tell the person, and do not send the delete again"
            )) from None
        journal.commit(entry, trash=record)
    finally:
        os.close(dir_fd)
    where = "" if record.get("kind") != "session" else " (Operator's own trash in its state folder)"
    return CommitOutcome(plan.summary + where, entry.seq)
