"""fs.delete never deletes: it moves the entry to the system trash with send2trash and records
where it went, or, where the system has no usable trash (a headless server, a read-only home,
OPERATOR_TRASH=session), into the state folder's own trash. Either way undo can bring it back
(trash_restore.py), and a delete the app died in the middle of is found again (trash_recovery.py).

Every move starts from the checked parent folder's descriptor, never from a path resolved
earlier: a parent swapped for a symlink in between cannot send an outside file to the trash.
send2trash only takes paths, so the entry is first renamed (through the descriptor) into a
private folder of random name inside its parent, and the path of that folder is checked to still
lead there right before; the trash entry keeps its own name and its .trashinfo is pointed back
at the real original path. Nothing is ever put back over an entry that appeared meanwhile
(ondisk/noreplace.py): an entry that cannot go back stays where it is; TrashIncomplete says where.

The record names the location and the entry's identity there (entry_identity in
ondisk/fingerprint.py).
"""

from __future__ import annotations

import errno
import glob
import os
import re
import secrets
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..boundary.fsops import DIR_FLAGS
from ..ondisk.fingerprint import entry_identity
from ..ondisk.moves import Stranded, move_entry
from ..ondisk.noreplace import rename_noreplace
from ..ondisk.private import FOLDER_MODE, private_folder


class TrashError(Exception):
    """A trash move or restore that cannot be trusted; nothing (more) was moved. The message is
    for the model or the person, and says what to do."""


class TrashIncomplete(TrashError):
    """The entry left its place but did not (verifiably) reach a trash: the message says where it
    is now. Nothing was recorded, so undo cannot bring it back."""


# --- to the trash ---------------------------------------------------------------------------------


def _session_trash(
    dir_fd: int, name: str, parent: Path, state_dir: Path, seq: int
) -> dict[str, Any]:
    folder = state_dir / "trash" / str(seq)
    private_folder(folder.parent, top=state_dir)
    # A new one: the journal never hands out the number of an existing one.
    os.mkdir(folder, FOLDER_MODE)
    try:
        trash_fd = os.open(folder, DIR_FLAGS)
        try:
            move_entry(dir_fd, name, trash_fd, name, str(seq))
            try:
                identity = entry_identity(trash_fd, name)
            except OSError as exc:
                raise TrashIncomplete(
                    f"{name} was moved to Operator's trash ({folder / name}) but "
                    f"could not be looked at there ({exc.strerror or exc}); nothing "
                    "was recorded, so undo cannot bring it back: restore it by hand"
                ) from None
        finally:
            os.close(trash_fd)
    except BaseException as exc:
        try:
            folder.rmdir()
        except OSError:
            pass
        if isinstance(exc, Stranded):
            raise TrashIncomplete(
                f"moving {name} to Operator's trash failed ({exc.strerror}), "
                "and something new is at its place now, so it was not put "
                f"back: it is {parent / exc.hidden_name}; move it back by hand"
            ) from None
        raise
    return {"kind": "session", "location": os.fspath(folder / name), "identity": identity}


def xdg_location(
    abs_path: Path, before: float, *, any_private: bool = False
) -> tuple[str, str] | None:
    """(trashed entry, its .trashinfo) that send2trash just made in a freedesktop trash (it does
    not say where). Its .trashinfo holds the original path, absolute or relative to the trash's
    top folder. With `any_private`, `abs_path` is the entry's real path, and the one sought may
    also have been trashed from any private folder beside it (after a crash, its random name is
    not known)."""
    best: tuple[float, str, str] | None = None
    for trash, top in _trashes(abs_path):
        wanted = _path_lines(abs_path, top, any_private)
        found = _newest_info(trash, abs_path.stem, wanted, before)
        if found is not None and (best is None or found[0] > best[0]):
            name = os.path.basename(found[1])[: -len(".trashinfo")]
            best = (found[0], os.path.join(trash, "files", name), found[1])
    return None if best is None else (best[1], best[2])


def _trashes(abs_path: Path) -> list[tuple[str, str]]:
    """(trash folder, the top folder its paths are relative to) of each trash send2trash may
    have used: the home trash, and those of the mount `abs_path` is on."""
    from send2trash import plat_other  # only on freedesktop systems

    places = [(plat_other.HOMETRASH, os.fsdecode(plat_other.XDG_DATA_HOME))]
    try:
        top = os.fsdecode(plat_other.find_mount_point(os.fsencode(abs_path.parent)))
        uid = os.getuid()
        places += [
            (os.path.join(top, ".Trash", str(uid)), top),
            (os.path.join(top, f".Trash-{uid}"), top),
        ]
    except OSError:
        pass
    return places


def _path_lines(abs_path: Path, top: str, any_private: bool) -> list[re.Pattern[str]]:
    """The Path= lines of a .trashinfo (in a trash whose top folder is `top`) that name the
    entry."""
    paths = [abs_path] + (
        [Path(os.path.relpath(abs_path, top))] if abs_path.is_relative_to(top) else []
    )
    wanted = [re.compile(re.escape("Path=" + quote(os.fsencode(path)))) for path in paths]
    if any_private:  # and its .trashinfo may or may not have been pointed home yet
        wanted += [
            re.compile(
                re.escape("Path=" + quote(os.fsencode(path.parent)) + "/")
                + r"\.operator-trash-[0-9a-f]{16}/"
                + re.escape(quote(os.fsencode(path.name)))
            )
            for path in paths
        ]
    return wanted


def _newest_info(
    trash: str, stem: str, wanted: list[re.Pattern[str]], before: float
) -> tuple[float, str] | None:
    """(time, path) of the newest .trashinfo of `trash` written since `before` (give or take
    the 2 s of a coarse clock) with one of the `wanted` lines."""
    newest: tuple[float, str] | None = None
    for info in glob.glob(
        os.path.join(glob.escape(trash), "info", f"{glob.escape(stem)}*.trashinfo")
    ):
        try:
            with open(info, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            mtime = os.stat(info).st_mtime
        except OSError:
            continue
        if mtime < before - 2 or (newest is not None and mtime <= newest[0]):
            continue
        if any(pattern.fullmatch(line) for pattern in wanted for line in lines):
            newest = (mtime, info)
    return newest


def identity_at(location: str) -> dict[str, Any]:
    """entry_identity of a trashed entry, by its folder's descriptor."""
    trash_fd = os.open(os.path.dirname(location), DIR_FLAGS)
    try:
        return entry_identity(trash_fd, os.path.basename(location))
    finally:
        os.close(trash_fd)


def point_info_home(info: str, private: str) -> None:
    """Drop the private folder from the .trashinfo's original path, so a restore by hand from a
    file manager puts the entry where it was, not into a leftover hidden folder."""
    try:
        with open(info, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        fixed = [
            line.replace(f"/{private}/", "/") if line.startswith("Path=") else line
            for line in lines
        ]
        fixed = [
            f"Path={line[len('Path=') + len(private) + 1 :]}"
            if line.startswith(f"Path={private}/")
            else line
            for line in fixed
        ]
        temp = f"{info}.{secrets.token_hex(4)}.tmp"
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write("\n".join(fixed))
        os.replace(temp, info)
    except OSError:
        pass  # the entry is trashed and recorded all the same; only a restore by hand is affected


def _system_trash(dir_fd: int, name: str, parent: Path) -> dict[str, Any] | None:
    """Trash with send2trash; None when the system has no usable trash (the entry is back where
    it was). `parent` is the checked parent's path, which send2trash needs."""
    before = entry_identity(dir_fd, name)
    private = f".operator-trash-{secrets.token_hex(8)}"
    os.mkdir(private, 0o700, dir_fd=dir_fd)
    private_fd = os.open(private, DIR_FLAGS, dir_fd=dir_fd)
    try:
        rename_noreplace(dir_fd, name, private_fd, name)
        path = parent / private / name
        started = time.time()
        try:
            here, there = os.fstat(private_fd), os.stat(parent / private)
            if (here.st_dev, here.st_ino) != (there.st_dev, there.st_ino):
                raise OSError(errno.ESTALE, f"{parent} is no longer the folder that was checked")
            from send2trash import send2trash

            send2trash(os.fspath(path))
        except Exception:
            try:
                rename_noreplace(private_fd, name, dir_fd, name)
            except FileNotFoundError:
                raise TrashIncomplete(_lost_in_system_trash(name, path, started)) from None
            except FileExistsError:
                raise TrashIncomplete(
                    f"the system trash failed, and something new is at {name}'s "
                    "place now, so it was not put back: it is in the hidden folder "
                    f"{parent / private} beside its place; move it back by hand"
                ) from None
            return None
    finally:
        os.close(private_fd)
        try:
            os.rmdir(private, dir_fd=dir_fd)
        except OSError:
            pass
    found = xdg_location(path, started) if FREEDESKTOP else None
    if found is None:
        return {"kind": "system", "location": None, "identity": before}
    location, info = found
    after = identity_at(location)
    # send2trash copies across file systems (a new inode); what it holds must still be the same.
    if after["fingerprint"] != before["fingerprint"] or (
        after["dev"] == before["dev"] and after["ino"] != before["ino"]
    ):
        raise TrashIncomplete(
            f"what reached the system trash ({location}) is not the {name} that was checked; "
            "nothing was recorded, so undo cannot bring it back; look at the trash and the folder"
        )
    point_info_home(info, private)
    return {"kind": "system-xdg", "location": location, "info": info, "identity": after}


FREEDESKTOP = sys.platform.startswith("linux") or "bsd" in sys.platform


def _lost_in_system_trash(name: str, path: Path, started: float) -> str:
    """Where an entry send2trash took and then failed on went, as far as the trash tells."""
    found = xdg_location(path, started) if FREEDESKTOP else None
    if found is not None:
        return (
            f"the system trash failed part way: {name} left its place and "
            f"is in the system trash at {found[0]}; nothing was recorded, "
            "so undo cannot bring it back: restore it from there"
        )
    return (
        f"the system trash failed part way: {name} left its place ({path.parent.parent}) "
        "and was not found in the system trash; look for it in the trash folders"
    )


def move_to_trash(
    dir_fd: int, name: str, parent: Path, state_dir: Path, seq: int
) -> dict[str, Any]:
    """Move entry `name` of the checked folder `dir_fd` (whose path is `parent`) to a trash; the
    record says where and what it is there. TrashIncomplete when the entry left its place but is
    not (verifiably) in a trash; any other failure leaves it where it was."""
    if os.environ.get("OPERATOR_TRASH") != "session":
        record = _system_trash(dir_fd, name, parent)
        if record is not None:
            return record
    return _session_trash(dir_fd, name, parent, state_dir, seq)
