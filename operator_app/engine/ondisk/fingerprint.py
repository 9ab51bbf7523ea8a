"""What a delete is about to remove, summed up in one hash, so the commit can tell whether the
file or folder changed between the preview and the person's yes; the identity of an entry once it
is in the trash, so undo restores that entry or refuses; and the identity of an entry a copy or
move left at its destination, which also holds the bytes' hash of a file of a size Operator
writes, so that an undo of a later write to it (a new inode, a new mtime) does not make it a
stranger."""

from __future__ import annotations

import hashlib
import os
import stat as stat_module
from typing import Any

from ..boundary.workspace import Target, Workspace
from .tree_scan import scan_tree


def tree_fingerprint(
    ws: Workspace, target: Target, st: os.stat_result
) -> tuple[str, int, list[str]]:
    """(hash, number of files, relative paths of the files) of a file, symlink or folder. A
    folder is read through descriptors from its checked parent (tree_scan.py): a symlink swapped
    in while it is read is never followed, so no name from outside can appear in the listing."""
    digest = hashlib.sha256()
    if stat_module.S_ISLNK(st.st_mode):
        digest.update(b"link:" + os.fsencode(os.readlink(ws.root.joinpath(*target.parts))))
        return digest.hexdigest(), 1, [target.rel]
    if not stat_module.S_ISDIR(st.st_mode):
        digest.update(f"file:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode())
        return digest.hexdigest(), 1, [target.rel]
    listing: list[str] = []
    base = "/".join(ws.entry_parts(target))
    parent_fd, name, _ = ws.open_parent_dir(target, create=False)
    walk = scan_tree(parent_fd, name)
    try:
        for node in walk:
            rel = "/".join((base, *node.parts))
            if node.step == "leave":
                digest.update(f"dir:{rel}\n".encode("utf-8", "surrogateescape"))
            elif node.step == "entry":
                info = node.info
                digest.update(
                    f"{rel}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\n".encode(
                        "utf-8", "surrogateescape"
                    )
                )
                listing.append(rel)
    finally:
        walk.close()
        os.close(parent_fd)
    listing.sort(key=_files_first)
    return digest.hexdigest(), len(listing), listing


def _files_first(rel: str) -> tuple[tuple[int, str], ...]:
    """A folder's own files before its subfolders, each group by name (the preview's order)."""
    *folders, name = rel.split("/")
    return (*((1, folder) for folder in folders), (0, name))


def current_fingerprint(ws: Workspace, target: Target) -> str | None:
    st = ws.lstat(target)
    if st is None:
        return None
    return tree_fingerprint(ws, target, st)[0]


def _update(digest: Any, dir_fd: int, name: str) -> None:
    """The entry and everything below it, depth first in name order, as "." and "./a/b"."""
    walk = scan_tree(dir_fd, name)
    try:
        for node in walk:
            if node.step == "leave":
                continue
            info = node.info
            shown = "/".join((".", *node.parts)).encode("utf-8", "surrogateescape")
            if stat_module.S_ISLNK(info.st_mode):
                target = os.fsencode(os.readlink(node.name, dir_fd=node.dir_fd))
                digest.update(b"link\0" + shown + b"\0" + target + b"\n")
            elif node.step == "enter":
                # A folder's own mtime is left out: it changes whenever an entry is added or
                # removed, and a copy to another file system cannot keep it exactly.
                mode = stat_module.S_IMODE(info.st_mode)
                digest.update(b"dir\0" + shown + f"\0{mode}\n".encode())
            else:
                digest.update(
                    b"entry\0"
                    + shown
                    + f"\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\n".encode()
                )
    finally:
        walk.close()


def entry_identity(dir_fd: int, name: str) -> dict[str, object]:
    """What a trashed entry is, so undo brings back this entry and nothing else: its device and
    inode (kept by a rename) and a fingerprint of what it holds (kind, mode, size and mtime of
    every file, link targets, the names of a folder's tree; kept by a copy to another file
    system too). Read relative to `dir_fd`, never following a symlink."""
    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    digest = hashlib.sha256()
    _update(digest, dir_fd, name)
    return {"dev": info.st_dev, "ino": info.st_ino, "fingerprint": digest.hexdigest()}


HASHED_FILE_BYTES = 8_000_000  # the write limit: a file any write may have rewritten (and undone)


def transfer_identity(dir_fd: int, name: str) -> dict[str, object]:
    """entry_identity, plus "sha" (of the bytes) for a regular file up to HASHED_FILE_BYTES."""
    identity = entry_identity(dir_fd, name)
    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat_module.S_ISREG(info.st_mode) and info.st_size <= HASHED_FILE_BYTES:
        from ..boundary.fsops import FILE_FLAGS, read_exactly

        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
        try:
            if stat_module.S_ISREG(os.fstat(fd).st_mode):
                identity["sha"] = hashlib.sha256(read_exactly(fd, info.st_size)).hexdigest()
        finally:
            os.close(fd)
    return identity


def same_entry(now: dict[str, object] | None, recorded: dict[str, object] | None) -> bool:
    """Whether the entry looked at `now` is the one `recorded`: the very entry, unchanged (device,
    inode, fingerprint), or a file holding the same bytes (rewritten and put back by an undo)."""
    if now is None or recorded is None:
        return False
    if all(now.get(key) == recorded.get(key) for key in ("dev", "ino", "fingerprint")):
        return True
    return recorded.get("sha") is not None and now.get("sha") == recorded.get("sha")
