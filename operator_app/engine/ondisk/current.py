"""A file or folder as it is right now, looked at through checked folder descriptors: a target
file's bytes and identity (`read_current`), an entry's identity (`identity_now`), the checked
parent's path, and the removal of the empty folders a change made on its way (`remove_dirs`).
The commit, recovery and undo of every kind of change ask these same questions."""

from __future__ import annotations

import errno
import os
import stat as stat_module
from pathlib import Path

from msgspec import Struct

from ...protocol.errors import ErrorCode, OperatorError
from ..boundary.fsops import StepError, open_dir_chain, open_subdir, read_exactly
from ..boundary.target import Target
from ..boundary.workspace import Workspace


class Current(Struct, frozen=True):
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
            fd = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
            )
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OperatorError(
                    ErrorCode.ERR_SYMLINK_TARGET,
                    (
                        f"{target.rel} is now a symlink; Operator does "
                        "not write through symlinks; nothing was written"
                    ),
                ) from None
            raise
        try:
            info = os.fstat(fd)
            if not stat_module.S_ISREG(info.st_mode):
                raise OperatorError(
                    ErrorCode.ERR_NOT_A_FILE,
                    f"{target.rel} is no longer a regular file; nothing was written",
                )
            return Current(
                _read_all(fd, info.st_size),
                stat_module.S_IMODE(info.st_mode),
                (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns),
                info.st_nlink,
                (info.st_uid, info.st_gid),
            )
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
        return (
            "the journal's list of folders it created is not a chain "
            "of folders inside the workspace; none were removed"
        )
    first = len(parts) - len(folders)  # index of the shallowest folder made
    try:
        fd, _ = open_dir_chain(str(ws.root), parts[:first])
    except StepError as step:
        return (
            f"{'/'.join(parts[: step.index + 1]) or '.'} cannot be opened ({step.error.strerror})"
        )
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
        raise OperatorError(
            ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE, f"{target.rel} resolves to outside the workspace"
        )
    return parent
