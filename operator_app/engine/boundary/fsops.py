"""Descriptor-level filesystem steps for the workspace: open what was checked, never follow a link.

Callers hand in path components that were already resolved and checked against the workspace
root. These helpers only guarantee that what gets opened is still that path -- one component at
a time relative to the previous directory's descriptor, each with O_NOFOLLOW -- and that nothing
but a regular file is ever opened for reading (FIFOs, sockets and devices are refused from an
lstat, before any open). The one-pass symlink resolution the workspace checks paths with lives
here too; the walk of a tree below a folder descriptor is tree_walk.py. Errors are plain OSError
subclasses; workspace.py turns them into OperatorError values for the model.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO swapped in after the lstat must not hang the open; O_NOCTTY: a terminal
# swapped in the same way must not become our controlling terminal.
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY

KIND_NAMES = {
    stat.S_IFREG: "file",
    stat.S_IFDIR: "dir",
    stat.S_IFLNK: "symlink",
    stat.S_IFIFO: "fifo",
    stat.S_IFSOCK: "socket",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
}


def kind_of(mode: int) -> str:
    """The kind's name: "file", "dir", "symlink", "fifo", "socket", "character device",
    "block device" or "other"."""
    return KIND_NAMES.get(stat.S_IFMT(mode), "other")


class StepError(Exception):
    """An OSError met while opening component `index` of a chain (-1 is the root itself)."""

    def __init__(self, error: OSError, index: int) -> None:
        super().__init__(error, index)
        self.error = error
        self.index = index


class NotRegular(Exception):
    """The entry is not a regular file; `kind` is a kind_of() name. Nothing was opened for it."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def resolve_steps(root: str, parts: Sequence[str]) -> Iterator[tuple[int, str, bool]]:
    """(index, realpath of root/parts[:index + 1], whether it exists) for each component, in one
    pass: os.path.realpath's own walk, kept so that each prefix is resolved from the one before
    instead of from the root again (a path through a symlink to "." was quadratic). `root` must
    be a realpath; a missing component and the rest are joined as written, as realpath does."""
    resolved = root
    for index, name in enumerate(parts):
        candidate = os.path.join(resolved, name)
        try:
            is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
            exists = True
        except OSError:
            is_link = exists = False
        if is_link:
            resolved = os.path.realpath(candidate)
            exists = os.path.lexists(resolved)
        else:
            resolved = candidate
        yield index, resolved, exists


def open_dir_chain(
    root: str, parts: Sequence[str], *, create: bool = False
) -> tuple[int, list[int]]:
    """Open root, then each of `parts` below it as a directory; return (last fd, indexes created).

    With create=True a missing component is made with mkdir relative to its parent's descriptor.
    On failure every directory made here is removed again (best effort, they are empty) and
    StepError carries the index of the component that failed.
    """
    try:
        fds = [os.open(root, DIR_FLAGS)]
    except OSError as error:
        raise StepError(error, -1) from error
    created: list[int] = []
    try:
        for index, name in enumerate(parts):
            try:
                fds.append(_open_dir_step(fds[-1], name, create, created, index))
            except OSError as error:
                raise StepError(error, index) from error
    except BaseException:
        for index in reversed(created):
            try:
                os.rmdir(parts[index], dir_fd=fds[index])
            except OSError:
                pass
        for fd in fds:
            os.close(fd)
        raise
    for fd in fds[:-1]:
        os.close(fd)
    return fds[-1], created


def open_subdir(parent_fd: int, name: str) -> int:
    """Open folder `name` in `parent_fd` without following it; a symlink there raises ELOOP."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except NotADirectoryError:
        # Linux reports O_DIRECTORY|O_NOFOLLOW on a symlink as ENOTDIR; callers need to tell
        # "a symlink appeared here" from "a file is in the way".
        if stat.S_ISLNK(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def _open_dir_step(parent_fd: int, name: str, create: bool, created: list[int], index: int) -> int:
    try:
        return open_subdir(parent_fd, name)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, 0o777, dir_fd=parent_fd)
        created.append(index)
    except FileExistsError:
        pass  # made by someone else meanwhile; the O_NOFOLLOW open below still checks what it is
    return open_subdir(parent_fd, name)


def open_regular(dir_fd: int, name: str) -> tuple[int, os.stat_result]:
    """Open `name` in `dir_fd` for reading if it is a regular file; return (fd, fstat).

    The lstat first keeps FIFOs, sockets and devices from ever being opened; the fstat after the
    open catches one swapped in between the two calls.
    """
    kind = kind_of(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    if kind != "file":
        raise NotRegular(kind)
    fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        kind = kind_of(info.st_mode)
        if kind != "file":
            raise NotRegular(kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_exactly(fd: int, size: int) -> bytes:
    """Read `size` bytes (fewer only if the file shrank meanwhile).

    One os.read of the whole size where the system allows it: reading a 2 MB file in 1 MB chunks
    and joining them cost 25 times a single read, on every plan and commit."""
    data = os.read(fd, size) if size > 0 else b""
    if len(data) >= size or not data:
        return data
    chunks = [data]
    remaining = size - len(data)
    while remaining > 0:  # a short read (a large file, a signal): carry on where it stopped
        chunk = os.read(fd, min(remaining, 1 << 30))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_text_head(dir_fd: int, name: str, limit: int) -> tuple[str, int] | None:
    """A regular file's text (such as .gitignore), at most its first `limit` bytes (cut after
    its last whole line then), and the file's size; None if absent or unreadable. Only what is
    kept is read."""
    try:
        fd, info = open_regular(dir_fd, name)
    except (OSError, NotRegular):
        return None
    try:
        data = read_exactly(fd, min(info.st_size, limit + 1))
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > limit:
        data = data[: data.rfind(b"\n", 0, limit) + 1]
    return data.decode("utf-8", errors="replace"), max(info.st_size, len(data))


def scan_dir(fd: int) -> list[tuple[str, str, int]]:
    """(name, kind_of(lstat), size) of each entry of the folder open at `fd`, in no set order."""
    entries: list[tuple[str, str, int]] = []
    with os.scandir(fd) as scan:
        for entry in scan:
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed while we listed
            entries.append((entry.name, kind_of(info.st_mode), info.st_size))
    return entries


# A file over this size is read in two steps when a NUL in its first bytes is to stop the read: a
# compiled module or an image then costs one small read, not half a megabyte.
SNIFF_FIRST_OVER = 65_536


def read_walked(dir_fd: int, name: str, limit: int, sniff: int = 0) -> bytes | str:
    """The bytes of the regular file `name` in the folder open at `dir_fd` (an entry a walk met),
    or why not: "large" (over `limit` bytes, not read), "binary" (with `sniff`: a NUL byte among
    the first `sniff` bytes of a file over SNIFF_FIRST_OVER bytes, the rest not read), "special"
    (no regular file by now), "symlink" (one by now), "unreadable", or "gone". Opened with
    O_NOFOLLOW and O_NONBLOCK and fstat-ed, as every read is: a tree search costs one open, fstat,
    read and close a file."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return "gone"
    except OSError as error:
        return "symlink" if error.errno == errno.ELOOP else "unreadable"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "special"
        if info.st_size > limit:
            return "large"
        if sniff and info.st_size > SNIFF_FIRST_OVER:
            head = os.read(fd, sniff)
            if b"\x00" in head:
                return "binary"
            return head + read_exactly(fd, info.st_size - len(head))
        return read_exactly(fd, info.st_size)
    except OSError:
        return "unreadable"
    finally:
        os.close(fd)
