"""Moving whole entries (a file, a symlink, a folder tree) between two folders' descriptors,
nothing followed and nothing replaced. Within one file system a move is one rename that refuses
an occupied destination (noreplace.py). Across file systems no rename reaches: the source is
renamed aside under a hidden name in its own folder (its place is free at once, and the entry
whole until the end), copied under another hidden name, renamed into place, and only then
removed; a failure before the copy is in place removes the copy and puts the source back, so
neither side ever holds part of a folder at the entry's name.

The hidden names carry a tag (a delete's change number), so that after a crash the leftover of
one move is told from another's: `moving_re(name, tag)` matches the source renamed aside."""

from __future__ import annotations

import errno
import os
import re
import secrets

from .noreplace import rename_noreplace
from .tree_scan import copy_tree, remove_tree


class Stranded(OSError):
    """A move failed and the entry could not be put back at its name (something new is there):
    it is in the same folder under the hidden name `hidden_name`."""

    def __init__(self, hidden_name: str, cause: OSError) -> None:
        super().__init__(cause.errno, f"left under the hidden name {hidden_name}: {cause.strerror}")
        self.hidden_name = hidden_name


def hidden(name: str, what: str) -> str:
    return f".{name[:100]}.operator-{what}-{secrets.token_hex(6)}"


def moving_re(name: str, tag: str) -> re.Pattern[str]:
    """The name a cross-file-system move tagged `tag` gave entry `name` while it copied it."""
    return re.compile(re.escape(f".{name[:100]}.operator-moving-{tag}-") + "[0-9a-f]{12}")


def copying_re(name: str) -> re.Pattern[str]:
    """The name a cross-file-system move gives the copy of `name` until it is whole."""
    return re.compile(re.escape(f".{name[:100]}.operator-copy-") + "[0-9a-f]{12}")


def copy_entry(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Copy a file, symlink or folder tree, keeping modes (never setuid or setgid) and mtimes,
    relative to descriptors (nothing is followed), every file and folder fsynced (the caller
    syncs `dst_fd`); a tree of any depth (tree_scan.py). FIFOs, sockets and devices cannot be
    copied: OSError."""
    copy_tree(src_fd, src, dst_fd, dst)


def remove_entry(dir_fd: int, name: str) -> None:
    remove_tree(dir_fd, name)


def move_across(src_fd: int, src: str, dst_fd: int, dst: str, tag: str) -> None:
    """Move an entry to a folder on another file system (see the module's contract)."""
    staged = f".{src[:100]}.operator-moving-{tag}-{secrets.token_hex(6)}"
    # a new random name: nothing there to replace
    os.rename(src, staged, src_dir_fd=src_fd, dst_dir_fd=src_fd)
    copy = hidden(dst, "copy")
    try:
        copy_entry(src_fd, staged, dst_fd, copy)
        rename_noreplace(dst_fd, copy, dst_fd, dst)
    except BaseException as failure:
        try:
            remove_entry(dst_fd, copy)
        except OSError:
            pass
        try:
            rename_noreplace(src_fd, staged, src_fd, src)
        except OSError as exc:  # something new is at its place: it stays under the hidden name
            raise Stranded(staged, exc) from failure
        raise
    remove_entry(src_fd, staged)


def move_entry(src_fd: int, src: str, dst_fd: int, dst: str, tag: str) -> None:
    """Move entry `src` of `src_fd` to `dst` of `dst_fd`, on one file system or across two;
    FileExistsError, and nothing moved, when `dst` is taken."""
    try:
        rename_noreplace(src_fd, src, dst_fd, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        move_across(src_fd, src, dst_fd, dst, tag)
