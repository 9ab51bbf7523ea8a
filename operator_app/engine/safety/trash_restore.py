"""Back from the trash, for undo: a delete's record is trusted no further than it can be checked
(its location must lie in a trash folder Operator puts entries in), and only the very entry the
delete put there is moved back, descriptor-relative into the workspace, never over an entry
that appeared at its place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..boundary.fsops import DIR_FLAGS
from ..ondisk.fingerprint import entry_identity
from ..ondisk.moves import move_entry
from .trash import TrashError


def _system_trash_folders(parent: Path) -> set[str]:
    """The folders send2trash may put an entry of `parent` into (their `files` folders)."""
    uid = os.getuid()
    folders = {os.path.expanduser("~/.local/share/Trash/files"), os.path.expanduser("~/.Trash")}
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        folders.add(os.path.join(xdg, "Trash", "files"))
    top = os.path.realpath(parent)
    while not os.path.ismount(top) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    folders |= {
        os.path.join(top, f".Trash-{uid}", "files"),
        os.path.join(top, ".Trash", str(uid), "files"),
    }
    return {os.path.realpath(folder) for folder in folders}


def trash_location(
    record: dict[str, Any], state_dir: Path, seq: int, name: str, parent: Path
) -> tuple[str, str]:
    """(trash folder, entry name in it) of a delete's record, when its location lies where Operator
    puts trashed entries; TrashError otherwise. `parent` is the deleted entry's parent folder."""
    location = record.get("location")
    if not isinstance(location, str) or not location:
        raise TrashError(
            f"where the system trash put {name} was not recorded; restore it by hand from the trash"
        )
    folder, entry = os.path.split(location)
    real = os.path.realpath(folder)
    kind = record.get("kind")
    if kind == "session":
        allowed = {os.path.realpath(state_dir / "trash" / str(seq))}
        if entry != name:
            allowed = set()
    elif kind in ("system-xdg", "system"):
        allowed = _system_trash_folders(parent)
    else:
        allowed = set()
    if real not in allowed or entry in ("", ".", ".."):
        raise TrashError(
            f"the journal's trash location for {name} ({location}) is not in a trash "
            "folder Operator uses; nothing was moved; restore it by hand if it is yours"
        )
    return real, entry


def restore_from_trash(
    record: dict[str, Any], folder: str, entry: str, dir_fd: int, name: str
) -> None:
    """Move the trashed `entry` of trash `folder` back to `name` in the checked folder `dir_fd`,
    only if it is still what the delete put there, and only while `name` is free (the caller
    looked; the move itself refuses to replace what appears there in the meantime)."""
    wanted = record.get("identity")
    trash_fd = os.open(folder, DIR_FLAGS)
    try:
        try:
            now = entry_identity(trash_fd, entry)
        except FileNotFoundError:
            raise TrashError(
                f"{name} is no longer in the trash ({os.path.join(folder, entry)})"
            ) from None
        if not isinstance(wanted, dict) or not wanted.get("fingerprint"):
            raise TrashError(
                f"the journal does not say what the trashed {name} was (it was deleted by an older "
                f"Operator); restore it by hand from the trash ({os.path.join(folder, entry)})"
            )
        if (now["dev"], now["ino"], now["fingerprint"]) != (
            wanted.get("dev"),
            wanted.get("ino"),
            wanted["fingerprint"],
        ):
            raise TrashError(
                f"the trashed {name} is no longer the entry Operator deleted; "
                f"restore it by hand from the trash ({os.path.join(folder, entry)})"
            )
        try:
            move_entry(trash_fd, entry, dir_fd, name, "restore")
        except FileExistsError:
            raise TrashError(
                f"something was put at {name}'s place meanwhile; {name} stays in the trash "
                f"({os.path.join(folder, entry)}); move that away and undo again"
            ) from None
    finally:
        os.close(trash_fd)
    if record.get("kind") == "system-xdg":
        info = os.path.join(os.path.dirname(folder), "info", entry + ".trashinfo")
        if record.get("info") == info:
            try:
                os.unlink(info)
            except OSError:
                pass
