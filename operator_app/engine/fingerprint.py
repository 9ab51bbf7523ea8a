"""What a delete is about to remove, summed up in one hash, so the commit can tell whether the
file or folder changed between the preview and the person's yes."""

from __future__ import annotations

import hashlib
import os
import stat as stat_module

from .workspace import Target, Workspace


def tree_fingerprint(ws: Workspace, target: Target, st: os.stat_result) -> tuple[str, int, list[str]]:
    """(hash, number of files, relative paths of the files) of a file, symlink or folder."""
    digest = hashlib.sha256()
    if stat_module.S_ISLNK(st.st_mode):
        digest.update(b"link:" + os.fsencode(os.readlink(ws.root.joinpath(*target.parts))))
        return digest.hexdigest(), 1, [target.rel]
    if not stat_module.S_ISDIR(st.st_mode):
        digest.update(f"file:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode())
        return digest.hexdigest(), 1, [target.rel]
    listing: list[str] = []
    for folder, dirs, files in os.walk(target.abs, followlinks=False):
        dirs.sort()
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            rel = os.path.relpath(path, ws.root)
            digest.update(f"{rel}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
            listing.append(rel)
        digest.update(f"dir:{os.path.relpath(folder, ws.root)}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest(), len(listing), listing


def current_fingerprint(ws: Workspace, target: Target) -> str | None:
    st = ws.lstat(target)
    if st is None:
        return None
    return tree_fingerprint(ws, target, st)[0]
