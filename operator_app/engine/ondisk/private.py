"""The state folder is the person's alone: every message the model sent (session/messages/N.txt),
every result, the journal's pre-images and the copies of results hold the person's work, so no
other user of the computer may list or read any of it (issue 26: they were 0644 files in 0755
folders). This is the one place that gives the state folder's folders and files their mode:
folders 0700, files 0600, set when they are made (never readable by others, not even for a
moment), and a state folder made by an older Operator narrowed once when it is next opened.

Files moved into the state folder from the workspace (the session's trash) keep their own mode,
which a restore gives back; the 0700 folders around them keep them private.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .atomic import write_all

FOLDER_MODE = 0o700
FILE_MODE = 0o600
# Under it, files are the workspace's own, whose mode a restore gives back.
_TRASH = "trash"


def private_folder(path: Path, top: Path | None = None) -> bool:
    """Make `path` a folder only its owner may enter: each missing folder from `top` (default:
    `path` itself) down to it is made with mode 0700, and each existing one from `top` down is
    narrowed to 0700. True when an existing `path` had to be narrowed (an older Operator made
    it): its contents may need it too (`narrow_tree`)."""
    top = top if top is not None and path.is_relative_to(top) else path
    chain = [top]
    for part in path.relative_to(top).parts:
        chain.append(chain[-1] / part)
    narrowed = False
    for folder in chain:
        try:
            os.mkdir(folder, FOLDER_MODE)
            continue
        except FileExistsError:
            pass
        except FileNotFoundError:
            folder.parent.mkdir(parents=True, exist_ok=True)  # above `top`: not ours to narrow
            os.mkdir(folder, FOLDER_MODE)
            continue
        info = os.stat(folder)
        if stat.S_IMODE(info.st_mode) != FOLDER_MODE and info.st_uid == os.geteuid():
            os.chmod(folder, FOLDER_MODE)
            narrowed = narrowed or folder == path
    return narrowed


def write_private(path: Path, data: bytes, *, append: bool = False) -> None:
    """Write (or with `append`, add to) the file `path`, mode 0600 whatever it had; a symlink in
    its place is refused (O_NOFOLLOW)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags | (os.O_APPEND if append else os.O_TRUNC), FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
        write_all(fd, data)
    finally:
        os.close(fd)


def narrow_tree(root: Path) -> None:
    """Give every folder under `root` mode 0700 and every file 0600 (files under the session's
    trash aside), as if this module had made them. Symlinks are left alone (a mode change would
    reach what they point at). For a state folder an older Operator made: done once."""
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        keep_files = here.relative_to(root).parts[:1] == (_TRASH,)
        for name in folders:
            entry = here / name
            if not entry.is_symlink():
                _narrow(entry, FOLDER_MODE)
        if keep_files:
            continue
        for name in files:
            entry = here / name
            if not entry.is_symlink() and entry.is_file():
                _narrow(entry, FILE_MODE)


def _narrow(entry: Path, mode: int) -> None:
    try:
        info = entry.lstat()
        if stat.S_IMODE(info.st_mode) & ~mode and info.st_uid == os.geteuid():
            os.chmod(entry, stat.S_IMODE(info.st_mode) & mode)
    except OSError:
        pass  # gone meanwhile, or not ours: the folders around it are what keep it private
