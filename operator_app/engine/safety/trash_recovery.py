"""A delete the app died in the middle of, found again under the session lock
(changes/delete/recover.py asks): the entry is put back if it never left the workspace, or the
trash that holds it is recorded, as a finished delete's would be; and what the killed move left
beside its place is cleared once the trash copy is recorded whole, so the model's fs.list does
not find it. Nothing is ever put back over an entry that appeared at the place meanwhile
(ondisk/noreplace.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..boundary.fsops import DIR_FLAGS
from ..ondisk.moves import copying_re, moving_re, remove_entry
from ..ondisk.noreplace import rename_noreplace
from .trash import FREEDESKTOP, identity_at, point_info_home, xdg_location

_PRIVATE_RE = re.compile(r"\.operator-trash-[0-9a-f]{16}")
# The name an older Operator (before change numbers were put in it) gave a source it moved
# across file systems.
_UNTAGGED_MOVING = "[0-9a-f]{12}"


def find_interrupted_delete(
    dir_fd: int, name: str, parent: Path, state_dir: Path, seq: int, since: float
) -> tuple[str, dict[str, Any] | None]:
    """Where a delete that Operator died in the middle of left entry `name` of the checked folder
    `dir_fd` (path `parent`), which is not at its place; the caller holds the session lock.

    ("back", None): it had not left the workspace (it was in the private folder, or renamed aside
    for a copy to another file system) and is put back where it was. ("stranded", {"where":
    path}): it had not, but something new is at its place, so it stays where it is (the path says
    where). ("trashed", record): it
    reached a trash; the record says where, as a finished delete's would (once the caller has
    recorded it, `clear_moved_source` removes what is left of the source). ("unknown", None):
    gone, and where is not known. Empty private folders left beside it are removed on the way."""
    session = state_dir / "trash" / str(seq)
    if os.path.lexists(session / name):
        # Only ever renamed there whole, so the delete was made: what may still be beside the
        # place is the source of a copy across file systems, part way through its removal.
        location = os.fspath(session / name)
        return "trashed", {
            "kind": "session",
            "location": location,
            "identity": identity_at(location),
        }
    back, stranded = _put_back(dir_fd, name, seq)
    if back:
        _clear_copies(session, name)
        return "back", None
    if stranded:
        return "stranded", {"where": os.fspath(parent / stranded[0])}
    if FREEDESKTOP:
        found = xdg_location(parent / name, since, any_private=True)
        if found is not None:
            location, info = found
            identity = identity_at(location)
            with open(info, encoding="utf-8") as handle:
                private = _PRIVATE_RE.search(handle.read())
            if private:
                point_info_home(info, private.group())
            return "trashed", {
                "kind": "system-xdg",
                "location": location,
                "info": info,
                "identity": identity,
            }
    return "unknown", None


def clear_moved_source(dir_fd: int, name: str, seq: int) -> list[str]:
    """Remove the hidden leftover of delete `seq`'s move across file systems beside the place of
    `name`: the source it renamed aside, whole or part way through its removal. Call only once
    the trash copy is recorded: that copy is whole (it was renamed into the trash only once it
    was). The names removed."""
    leftover = moving_re(name, str(seq))
    removed = []
    for entry in sorted(os.listdir(dir_fd)):
        if leftover.fullmatch(entry):
            remove_entry(dir_fd, entry)
            removed.append(entry)
    return removed


def _put_back(dir_fd: int, name: str, seq: int) -> tuple[bool, list[str]]:
    """Move `name` back from a private folder or a cross-file-system staging name in `dir_fd`,
    if one holds it and its place is still free; tidy empty private folders either way. Whether
    it went back, and where (relative to `dir_fd`) it stays when its place is taken."""
    back = False
    stranded: list[str] = []
    staged = re.compile(
        moving_re(name, str(seq)).pattern
        + "|"
        + re.escape(f".{name[:100]}.operator-moving-")
        + _UNTAGGED_MOVING
    )
    for entry in sorted(os.listdir(dir_fd)):
        private = _PRIVATE_RE.fullmatch(entry) is not None
        if not private and not staged.fullmatch(entry):
            continue
        if private:
            try:
                private_fd = os.open(entry, DIR_FLAGS, dir_fd=dir_fd)
            except OSError:
                continue
            try:
                moved = back or _rename_if_free(private_fd, name, dir_fd, name)
                if not moved and _holds(private_fd, name):
                    stranded.append(f"{entry}/{name}")
                back = moved
            finally:
                os.close(private_fd)
            try:
                os.rmdir(entry, dir_fd=dir_fd)
            except OSError:
                pass  # not empty: not Operator's to clear out
        else:
            moved = back or _rename_if_free(dir_fd, entry, dir_fd, name)
            if not moved:
                stranded.append(entry)
            back = moved
    return back, stranded


def _holds(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def _rename_if_free(src_fd: int, src: str, dst_fd: int, dst: str) -> bool:
    """Whether `src` was there and is now at `dst`: never over something at `dst`, in one step."""
    try:
        rename_noreplace(src_fd, src, dst_fd, dst)
    except (FileNotFoundError, FileExistsError):
        return False
    return True


def _clear_copies(session: Path, name: str) -> None:
    """A move to the session trash killed while it copied leaves the part copy under a hidden
    name in trash/<seq>/ (the source went back): it is nobody's, so it goes, and the folder too."""
    try:
        trash_fd = os.open(session, DIR_FLAGS)
    except OSError:
        return
    try:
        pattern = copying_re(name)
        for entry in os.listdir(trash_fd):
            if pattern.fullmatch(entry):
                remove_entry(trash_fd, entry)
    except OSError:
        return
    finally:
        os.close(trash_fd)
    try:
        session.rmdir()
    except OSError:
        pass
