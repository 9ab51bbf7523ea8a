"""fs.delete never deletes: it moves the entry to the system trash with send2trash and records
where it went, or, where the system has no usable trash (a headless server, a read-only home,
OPERATOR_TRASH=session), into the state folder's own trash. Either way undo can bring it back.

Every move starts from the checked parent folder's descriptor, never from a path resolved
earlier: a parent swapped for a symlink in between cannot send an outside file to the trash.
send2trash only takes paths, so the entry is first renamed (through the descriptor) into a
private folder of random name inside its parent, and the path of that folder is checked to still
lead there right before; the trash entry keeps its own name and its .trashinfo is pointed back
at the real original path.

The record names the location and the entry's identity there (fingerprint.entry_identity).
Undo accepts a location only inside a trash folder (the state folder's trash/<seq>, the XDG home
trash, a mount point's .Trash-<uid> or .Trash/<uid>, macOS ~/.Trash) and restores only the very
entry that was recorded, again descriptor-relative into the workspace.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import secrets
import shutil
import stat as stat_module
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .fingerprint import entry_identity
from .fsops import DIR_FLAGS


class TrashError(Exception):
    """A trash move or restore that cannot be trusted; nothing (more) was moved. The message is
    for the model or the person, and says what to do."""


# --- moving whole entries between folder descriptors -------------------------------------------


def _hidden(name: str, what: str) -> str:
    return f".{name[:100]}.operator-{what}-{secrets.token_hex(6)}"


def _copy_entry(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Copy a file, symlink or folder tree, keeping modes and mtimes, relative to descriptors
    (nothing is followed). FIFOs, sockets and devices cannot be copied: OSError."""
    info = os.stat(src, dir_fd=src_fd, follow_symlinks=False)
    times = (info.st_atime_ns, info.st_mtime_ns)
    if stat_module.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(src, dir_fd=src_fd), dst, dir_fd=dst_fd)
        return
    if stat_module.S_ISDIR(info.st_mode):
        os.mkdir(dst, 0o700, dir_fd=dst_fd)
        inner_src = os.open(src, DIR_FLAGS, dir_fd=src_fd)
        try:
            inner_dst = os.open(dst, DIR_FLAGS, dir_fd=dst_fd)
            try:
                for child in sorted(os.listdir(inner_src)):
                    _copy_entry(inner_src, child, inner_dst, child)
                os.fchmod(inner_dst, stat_module.S_IMODE(info.st_mode))
                os.utime(inner_dst, ns=times)
            finally:
                os.close(inner_dst)
        finally:
            os.close(inner_src)
        return
    if not stat_module.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, f"{src} is not a regular file, folder or symlink and cannot be copied")
    reader = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=src_fd)
    try:
        writer = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dst_fd)
        try:
            while chunk := os.read(reader, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(writer, view):]
            os.fchmod(writer, stat_module.S_IMODE(info.st_mode))
            os.utime(writer, ns=times)
            os.fsync(writer)
        finally:
            os.close(writer)
    finally:
        os.close(reader)


def _remove_entry(dir_fd: int, name: str) -> None:
    if stat_module.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def _move_across(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Move an entry to a folder on another file system, where no rename reaches. The source is
    renamed aside first (its path is free at once, and the entry whole until the end), copied under
    a hidden name, renamed into place, and only then removed; on any failure the copy goes and the
    source is put back, so neither side ever holds part of a folder at the entry's path."""
    staged = _hidden(src, "moving")
    os.rename(src, staged, src_dir_fd=src_fd, dst_dir_fd=src_fd)
    copy = _hidden(dst, "copy")
    try:
        _copy_entry(src_fd, staged, dst_fd, copy)
        os.rename(copy, dst, src_dir_fd=dst_fd, dst_dir_fd=dst_fd)
    except BaseException:
        try:
            _remove_entry(dst_fd, copy)
        except OSError:
            pass
        os.rename(staged, src, src_dir_fd=src_fd, dst_dir_fd=src_fd)
        raise
    _remove_entry(src_fd, staged)


def _move(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    try:
        os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        _move_across(src_fd, src, dst_fd, dst)


# --- to the trash ---------------------------------------------------------------------------------


def _session_trash(dir_fd: int, name: str, state_dir: Path, seq: int) -> dict[str, Any]:
    folder = state_dir / "trash" / str(seq)
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir()  # a new one: the journal never hands out the number of an existing one
    try:
        trash_fd = os.open(folder, DIR_FLAGS)
        try:
            _move(dir_fd, name, trash_fd, name)
            identity = entry_identity(trash_fd, name)
        finally:
            os.close(trash_fd)
    except BaseException:
        try:
            folder.rmdir()
        except OSError:
            pass
        raise
    return {"kind": "session", "location": os.fspath(folder / name), "identity": identity}


def _xdg_location(abs_path: Path, before: float, *, any_private: bool = False) -> tuple[str, str] | None:
    """(trashed entry, its .trashinfo) that send2trash just made in a freedesktop trash (it does
    not say where). Its .trashinfo holds the original path, absolute or relative to the trash's
    top folder. With `any_private`, `abs_path` is the entry's real path, and the one sought may
    also have been trashed from any private folder beside it (after a crash, its random name is
    not known)."""
    from send2trash import plat_other  # only on freedesktop systems

    places = [(plat_other.HOMETRASH, os.fsdecode(plat_other.XDG_DATA_HOME))]
    try:
        top = os.fsdecode(plat_other.find_mount_point(os.fsencode(abs_path.parent)))
        uid = os.getuid()
        places += [(os.path.join(top, ".Trash", str(uid)), top), (os.path.join(top, f".Trash-{uid}"), top)]
    except OSError:
        pass
    best: tuple[float, str, str] | None = None
    for trash, top in places:
        paths = [abs_path] + ([Path(os.path.relpath(abs_path, top))] if abs_path.is_relative_to(top) else [])
        wanted = [re.compile(re.escape("Path=" + quote(os.fsencode(path)))) for path in paths]
        if any_private:  # and its .trashinfo may or may not have been pointed home yet
            wanted += [re.compile(re.escape("Path=" + quote(os.fsencode(path.parent)) + "/")
                                  + r"\.operator-trash-[0-9a-f]{16}/" + re.escape(quote(os.fsencode(path.name))))
                       for path in paths]
        for info in glob.glob(os.path.join(glob.escape(trash), "info", f"{glob.escape(abs_path.stem)}*.trashinfo")):
            try:
                with open(info, encoding="utf-8") as handle:
                    lines = handle.read().split("\n")
                mtime = os.stat(info).st_mtime
            except OSError:
                continue
            if (not any(pattern.fullmatch(line) for pattern in wanted for line in lines) or mtime < before - 2
                    or (best is not None and mtime <= best[0])):
                continue
            name = os.path.basename(info)[: -len(".trashinfo")]
            best = (mtime, os.path.join(trash, "files", name), info)
    return None if best is None else (best[1], best[2])


def _identity_at(location: str) -> dict[str, Any]:
    """entry_identity of a trashed entry, by its folder's descriptor."""
    trash_fd = os.open(os.path.dirname(location), DIR_FLAGS)
    try:
        return entry_identity(trash_fd, os.path.basename(location))
    finally:
        os.close(trash_fd)


def _point_info_home(info: str, private: str) -> None:
    """Drop the private folder from the .trashinfo's original path, so a restore by hand from a
    file manager puts the entry where it was, not into a leftover hidden folder."""
    try:
        with open(info, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        fixed = [line.replace(f"/{private}/", "/") if line.startswith("Path=") else line for line in lines]
        fixed = [f"Path={line[len('Path=') + len(private) + 1:]}" if line.startswith(f"Path={private}/") else line
                 for line in fixed]
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
        os.rename(name, name, src_dir_fd=dir_fd, dst_dir_fd=private_fd)
        path = parent / private / name
        started = time.time()
        try:
            here, there = os.fstat(private_fd), os.stat(parent / private)
            if (here.st_dev, here.st_ino) != (there.st_dev, there.st_ino):
                raise OSError(errno.ESTALE, f"{parent} is no longer the folder that was checked")
            from send2trash import send2trash

            send2trash(os.fspath(path))
        except Exception:  # noqa: BLE001 - no usable system trash (or the path moved): the session trash takes it
            try:
                os.rename(name, name, src_dir_fd=private_fd, dst_dir_fd=dir_fd)
            except FileNotFoundError:
                raise TrashError(f"the system trash failed part way and {name} is no longer where it was; "
                                 "look for it in the trash") from None
            return None
    finally:
        os.close(private_fd)
        try:
            os.rmdir(private, dir_fd=dir_fd)
        except OSError:
            pass
    found = _xdg_location(path, started) if sys.platform.startswith("linux") or "bsd" in sys.platform else None
    if found is None:
        return {"kind": "system", "location": None, "identity": before}
    location, info = found
    after = _identity_at(location)
    # send2trash copies across file systems (a new inode); what it holds must still be the same.
    if after["fingerprint"] != before["fingerprint"] or (
            after["dev"] == before["dev"] and after["ino"] != before["ino"]):
        raise TrashError(f"what reached the system trash ({location}) is not the {name} that was checked; "
                         "nothing was recorded; look at the trash and the folder")
    _point_info_home(info, private)
    return {"kind": "system-xdg", "location": location, "info": info, "identity": after}


def move_to_trash(dir_fd: int, name: str, parent: Path, state_dir: Path, seq: int) -> dict[str, Any]:
    """Move entry `name` of the checked folder `dir_fd` (whose path is `parent`) to a trash; the
    record says where and what it is there."""
    if os.environ.get("OPERATOR_TRASH") != "session":
        record = _system_trash(dir_fd, name, parent)
        if record is not None:
            return record
    return _session_trash(dir_fd, name, state_dir, seq)


# --- after a crash ---------------------------------------------------------------------------------

_PRIVATE_RE = re.compile(r"\.operator-trash-[0-9a-f]{16}")


def find_interrupted_delete(dir_fd: int, name: str, parent: Path, state_dir: Path, seq: int,
                            since: float) -> tuple[str, dict[str, Any] | None]:
    """Where a delete that Operator died in the middle of left entry `name` of the checked folder
    `dir_fd` (path `parent`), which is not at its place; the caller holds the session lock.

    ("back", None): it had not left the workspace (it was in the private folder, or renamed aside
    for a copy to another file system) and is put back where it was. ("trashed", record): it
    reached a trash; the record says where, as a finished delete's would. ("unknown", None): gone,
    and where is not known. Empty private folders left beside it are removed on the way: the
    model's fs.list would show them."""
    session = state_dir / "trash" / str(seq)
    if os.path.lexists(session / name):
        # Only ever renamed there whole, so the delete was made: what may still be beside the
        # place is the source of a copy across file systems, part way through its removal.
        location = os.fspath(session / name)
        return "trashed", {"kind": "session", "location": location, "identity": _identity_at(location)}
    if _put_back(dir_fd, name):
        return "back", None
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        found = _xdg_location(parent / name, since, any_private=True)
        if found is not None:
            location, info = found
            identity = _identity_at(location)
            with open(info, encoding="utf-8") as handle:
                private = re.search(r"\.operator-trash-[0-9a-f]{16}", handle.read())
            if private:
                _point_info_home(info, private.group())
            return "trashed", {"kind": "system-xdg", "location": location, "info": info, "identity": identity}
    return "unknown", None


def _put_back(dir_fd: int, name: str) -> bool:
    """Move `name` back from a private folder or a cross-file-system staging name in `dir_fd`,
    if one holds it; tidy empty private folders either way."""
    back = False
    staged = re.compile(re.escape(f".{name[:100]}.operator-moving-") + "[0-9a-f]{12}")
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
                back = back or _rename_if_free(private_fd, name, dir_fd, name)
            finally:
                os.close(private_fd)
            try:
                os.rmdir(entry, dir_fd=dir_fd)
            except OSError:
                pass  # not empty: not Operator's to clear out
        else:
            back = back or _rename_if_free(dir_fd, entry, dir_fd, name)
    return back


def _rename_if_free(src_fd: int, src: str, dst_fd: int, dst: str) -> bool:
    try:
        os.stat(src, dir_fd=src_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    try:
        os.stat(dst, dir_fd=dst_fd, follow_symlinks=False)
        return False  # something is at the place again: never overwrite it
    except FileNotFoundError:
        pass
    os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
    return True


# --- back from the trash --------------------------------------------------------------------------


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
    folders |= {os.path.join(top, f".Trash-{uid}", "files"), os.path.join(top, ".Trash", str(uid), "files")}
    return {os.path.realpath(folder) for folder in folders}


def trash_location(record: dict[str, Any], state_dir: Path, seq: int, name: str, parent: Path) -> tuple[str, str]:
    """(trash folder, entry name in it) of a delete's record, when its location lies where Operator
    puts trashed entries; TrashError otherwise. `parent` is the deleted entry's parent folder."""
    location = record.get("location")
    if not isinstance(location, str) or not location:
        raise TrashError(f"where the system trash put {name} was not recorded; restore it by hand from the trash")
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
        raise TrashError(f"the journal's trash location for {name} ({location}) is not in a trash folder Operator uses; "
                         "nothing was moved; restore it by hand if it is yours")
    return real, entry


def restore_from_trash(record: dict[str, Any], folder: str, entry: str, dir_fd: int, name: str) -> None:
    """Move the trashed `entry` of trash `folder` back to `name` in the checked folder `dir_fd`,
    only if it is still what the delete put there; the caller checked that `name` is free."""
    wanted = record.get("identity")
    trash_fd = os.open(folder, DIR_FLAGS)
    try:
        try:
            now = entry_identity(trash_fd, entry)
        except FileNotFoundError:
            raise TrashError(f"{name} is no longer in the trash ({os.path.join(folder, entry)})") from None
        if not isinstance(wanted, dict) or not wanted.get("fingerprint"):
            raise TrashError(f"the journal does not say what the trashed {name} was (it was deleted by an older Operator); "
                             f"restore it by hand from the trash ({os.path.join(folder, entry)})")
        if (now["dev"], now["ino"], now["fingerprint"]) != (wanted.get("dev"), wanted.get("ino"), wanted["fingerprint"]):
            raise TrashError(f"the trashed {name} is no longer the entry Operator deleted; restore it by hand from the "
                             f"trash ({os.path.join(folder, entry)})")
        _move(trash_fd, entry, dir_fd, name)
    finally:
        os.close(trash_fd)
    if record.get("kind") == "system-xdg":
        info = os.path.join(os.path.dirname(folder), "info", entry + ".trashinfo")
        if record.get("info") == info:
            try:
                os.unlink(info)
            except OSError:
                pass
