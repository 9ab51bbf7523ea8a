"""fs.delete never deletes: it moves the entry to the system trash with send2trash and records
where it went, or, where the system has no usable trash (a headless server, a read-only home,
OPERATOR_TRASH=session), into the state folder's own trash. Either way undo can bring it back.
"""

from __future__ import annotations

import errno
import glob
import os
import secrets
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote


def _session_trash(abs_path: Path, state_dir: Path, seq: int) -> dict[str, Any]:
    folder = state_dir / "trash" / str(seq)
    folder.mkdir(parents=True, exist_ok=True)
    destination = folder / abs_path.name
    try:
        os.rename(abs_path, destination)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        _move_across_devices(abs_path, destination)
    return {"kind": "session", "location": os.fspath(destination)}


def _move_across_devices(abs_path: Path, destination: Path) -> None:
    """The state folder is on another file system: no rename reaches it. shutil.move would copy
    and then delete entry by entry, so a crash could leave a half-deleted folder at the path.
    Instead the entry is first renamed to a hidden sibling (the path is gone at once, and whole
    until then), copied to the trash, and only then removed."""
    staged = abs_path.with_name(f".{abs_path.name[:100]}.operator-delete-{secrets.token_hex(6)}")
    os.rename(abs_path, staged)
    try:
        if staged.is_dir() and not staged.is_symlink():
            shutil.copytree(staged, destination, symlinks=True)
        else:
            shutil.copy2(staged, destination, follow_symlinks=False)
    except BaseException:
        if destination.is_dir() and not destination.is_symlink():
            shutil.rmtree(destination, ignore_errors=True)
        elif os.path.lexists(destination):
            destination.unlink()
        os.rename(staged, abs_path)  # nothing was deleted: put it back
        raise
    if staged.is_dir() and not staged.is_symlink():
        shutil.rmtree(staged)
    else:
        staged.unlink()


def _xdg_location(abs_path: Path, before: float) -> dict[str, Any] | None:
    """Find the entry send2trash just made in a freedesktop trash (it does not say where).

    Its .trashinfo holds the original path, absolute or relative to the trash's top folder.
    """
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
        wanted = {"Path=" + quote(os.fsencode(abs_path))}
        if abs_path.is_relative_to(top):
            wanted.add("Path=" + quote(os.fsencode(os.path.relpath(abs_path, top))))
        for info in glob.glob(os.path.join(glob.escape(trash), "info", f"{glob.escape(abs_path.stem)}*.trashinfo")):
            try:
                with open(info, encoding="utf-8") as handle:
                    lines = handle.read().split("\n")
                mtime = os.stat(info).st_mtime
            except OSError:
                continue
            if wanted.isdisjoint(lines) or mtime < before - 2 or (best is not None and mtime <= best[0]):
                continue
            name = os.path.basename(info)[: -len(".trashinfo")]
            best = (mtime, os.path.join(trash, "files", name), info)
    if best is None:
        return None
    return {"kind": "system-xdg", "location": best[1], "info": best[2]}


def move_to_trash(abs_path: Path, state_dir: Path, seq: int) -> dict[str, Any]:
    import time

    if os.environ.get("OPERATOR_TRASH") != "session":
        before = time.time()
        try:
            from send2trash import send2trash

            send2trash(os.fspath(abs_path))
        except Exception:  # noqa: BLE001 - no usable system trash: fall back to our own
            if os.path.lexists(abs_path):
                return _session_trash(abs_path, state_dir, seq)
            raise
        if sys.platform.startswith("linux") or "bsd" in sys.platform:
            found = _xdg_location(abs_path, before)
            if found is not None:
                return found
        return {"kind": "system", "location": None}
    return _session_trash(abs_path, state_dir, seq)


def restore_from_trash(record: dict[str, Any], abs_path: Path) -> None:
    """Move a trashed entry back to abs_path; the caller checked that nothing is there now."""
    location = record.get("location")
    if not location or not os.path.lexists(location):
        raise FileNotFoundError(location or "the system trash (its location was not recorded; restore it from the trash by hand)")
    abs_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(location, abs_path)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        # Copied next to the path under a hidden name, then renamed into place: the entry
        # appears whole or not at all, then the trash copy goes.
        source = Path(location)
        staged = abs_path.with_name(f".{abs_path.name[:100]}.operator-restore-{secrets.token_hex(6)}")
        try:
            if source.is_dir() and not source.is_symlink():
                shutil.copytree(source, staged, symlinks=True)
            else:
                shutil.copy2(source, staged, follow_symlinks=False)
            os.rename(staged, abs_path)
        except BaseException:
            if staged.is_dir() and not staged.is_symlink():
                shutil.rmtree(staged, ignore_errors=True)
            elif os.path.lexists(staged):
                staged.unlink()
            raise
        if source.is_dir() and not source.is_symlink():
            shutil.rmtree(source)
        else:
            source.unlink()
    info = record.get("info")
    if info:
        try:
            os.unlink(info)
        except OSError:
            pass
