"""A folder tree walked, copied or removed through descriptors, without recursion and without
keeping a descriptor per level: a tree a thousand folders deep costs neither Python's recursion
limit nor a thousand open files.

Going down opens a subfolder relative to its parent's descriptor with O_NOFOLLOW (a symlink
swapped in is refused, never followed) and checks it is the folder just looked at (device and
inode); the parent's descriptor is then closed. Going up opens ".." and checks it is the folder
the walk came from, so a folder moved away meanwhile stops the walk (TreeChanged) instead of
leading it elsewhere. Names come from the folders' own listings, never from a path: a walk can
only ever name what is below its top.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from collections.abc import Generator
from typing import Literal

from msgspec import Struct

from ..boundary.fsops import DIR_FLAGS
from .atomic import write_all

# What setuid and setgid mean belongs to the owner who set them: a copy (made by whoever runs
# Operator) never carries them, as cp without -p does not.
_PRIVILEGE_BITS = stat_module.S_ISUID | stat_module.S_ISGID


class TreeChanged(OSError):
    """A folder of the tree was replaced or moved while it was walked."""

    def __init__(self, where: str) -> None:
        super().__init__(errno.ESTALE, f"{where} changed while it was being read")


def copied_mode(st: os.stat_result) -> int:
    """The permission bits a copy of the entry gets: its own, without setuid and setgid."""
    return stat_module.S_IMODE(st.st_mode) & ~_PRIVILEGE_BITS


class Descent:
    """The open folder a walk is in, below a top descriptor the caller keeps (never closed here).
    At most one descriptor of its own is open at a time."""

    def __init__(self, top_fd: int) -> None:
        self.top_fd = top_fd
        self.fd = top_fd
        self._marks: list[tuple[int, int]] = []  # (device, inode) of each folder below the top

    @property
    def depth(self) -> int:
        return len(self._marks)

    def down(self, name: str, seen: os.stat_result) -> int:
        """Enter subfolder `name`, which an lstat just saw as `seen`; its descriptor."""
        child = os.open(name, DIR_FLAGS, dir_fd=self.fd)
        info = os.fstat(child)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            os.close(child)
            raise TreeChanged(name)
        if self.fd != self.top_fd:
            os.close(self.fd)
        self.fd = child
        self._marks.append((info.st_dev, info.st_ino))
        return child

    def up(self) -> int:
        """Back to the folder above; its descriptor."""
        self._marks.pop()
        if not self._marks:
            os.close(self.fd)
            self.fd = self.top_fd
            return self.fd
        parent = os.open("..", DIR_FLAGS, dir_fd=self.fd)
        info = os.fstat(parent)
        if (info.st_dev, info.st_ino) != self._marks[-1]:
            os.close(parent)
            raise TreeChanged("..")
        os.close(self.fd)
        self.fd = parent
        return parent

    def close(self) -> None:
        if self.fd != self.top_fd:
            os.close(self.fd)
        self.fd = self.top_fd
        self._marks.clear()


Step = Literal["entry", "enter", "leave"]


class Node(Struct, frozen=True):
    """One step of a walk: an entry that is not a folder ("entry"), a folder before what it
    holds ("enter") or after it ("leave"). `dir_fd` is the folder holding `name`, valid until the
    next step; `parts` the entry's names below the top entry (() for the top entry itself)."""

    step: Step
    parts: tuple[str, ...]
    name: str
    info: os.stat_result
    dir_fd: int


def scan_tree(parent_fd: int, name: str) -> Generator[Node, None, None]:
    """Entry `name` of the folder open at `parent_fd` and, for a folder, everything below it:
    depth first, each folder's entries in sorted order, nothing followed. Close the iterator
    (or run it out) to close what it holds open."""
    top = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    if not stat_module.S_ISDIR(top.st_mode):
        yield Node("entry", (), name, top, parent_fd)
        return
    yield Node("enter", (), name, top, parent_fd)
    descent = Descent(parent_fd)
    try:
        descent.down(name, top)
        levels: list[tuple[tuple[str, ...], os.stat_result, list[str]]] = [
            ((), top, sorted(os.listdir(descent.fd), reverse=True))
        ]
        while levels:
            parts, info, pending = levels[-1]
            if not pending:
                levels.pop()
                descent.up()
                yield Node("leave", parts, parts[-1] if parts else name, info, descent.fd)
                continue
            child = pending.pop()
            try:
                seen = os.stat(child, dir_fd=descent.fd, follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed since the listing
            inner = (*parts, child)
            if stat_module.S_ISDIR(seen.st_mode):
                yield Node("enter", inner, child, seen, descent.fd)
                descent.down(child, seen)
                levels.append((inner, seen, sorted(os.listdir(descent.fd), reverse=True)))
            else:
                yield Node("entry", inner, child, seen, descent.fd)
    finally:
        descent.close()


def copy_tree(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Copy a file, symlink or folder tree, keeping modes (not setuid/setgid) and mtimes,
    relative to descriptors (nothing is followed), every file and folder fsynced (the caller
    syncs `dst_fd`). FIFOs, sockets and devices cannot be copied: OSError."""
    target = Descent(dst_fd)
    walk = scan_tree(src_fd, src)
    try:
        for node in walk:
            name = node.name if node.parts else dst
            if node.step == "enter":
                os.mkdir(name, 0o700, dir_fd=target.fd)
                target.down(name, os.stat(name, dir_fd=target.fd, follow_symlinks=False))
            elif node.step == "leave":
                os.fchmod(target.fd, copied_mode(node.info))
                os.utime(target.fd, ns=(node.info.st_atime_ns, node.info.st_mtime_ns))
                os.fsync(target.fd)  # its entries: a copy that is whole is whole on disk too
                target.up()
            else:
                _copy_one(node, target.fd, name)
    finally:
        walk.close()
        target.close()


def _copy_one(node: Node, dst_fd: int, dst: str) -> None:
    info = node.info
    if stat_module.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(node.name, dir_fd=node.dir_fd), dst, dir_fd=dst_fd)
        return
    if not stat_module.S_ISREG(info.st_mode):
        raise OSError(
            errno.EINVAL,
            f"{node.name} is not a regular file, folder or symlink and cannot be copied",
        )
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    reader = os.open(node.name, flags, dir_fd=node.dir_fd)
    try:
        writer = os.open(
            dst,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
            dir_fd=dst_fd,
        )
        try:
            while chunk := os.read(reader, 1 << 20):
                write_all(writer, chunk)
            os.fchmod(writer, copied_mode(info))
            os.utime(writer, ns=(info.st_atime_ns, info.st_mtime_ns))
            os.fsync(writer)
        finally:
            os.close(writer)
    finally:
        os.close(reader)


def remove_tree(dir_fd: int, name: str) -> None:
    """Remove entry `name` of the folder open at `dir_fd`, a whole folder tree included,
    nothing followed."""
    walk = scan_tree(dir_fd, name)
    try:
        for node in walk:
            if node.step == "leave":
                os.rmdir(node.name, dir_fd=node.dir_fd)
            elif node.step == "entry":
                os.unlink(node.name, dir_fd=node.dir_fd)
    finally:
        walk.close()
