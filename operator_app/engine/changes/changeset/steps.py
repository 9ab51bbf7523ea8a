"""The steps a change-set takes on the tree, forward (commit) and back (a roll-back when a commit
fails half-way or the app died in it, and undo), each relative to a folder descriptor opened
through the workspace boundary, never following a symlink. `state_of` tells which of its two
states an entry is in now: as the set found it, as the set leaves it, or neither."""

from __future__ import annotations

import errno
import json
import os
import stat as stat_module
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from ....protocol.errors import ErrorCode, OperatorError
from ...boundary.fsops import read_exactly
from ...boundary.workspace import Workspace
from ...ondisk.atomic import (
    NEW_FILE_MODE,
    TEMP_NAME_RE,
    discard_temp,
    temp_name,
    write_all,
    write_temp,
)
from ...ondisk.jsonl import fsync_dir
from ...ondisk.private import write_private
from ...safety.journal import Journal
from .items import Entry, Item

State = Literal["before", "after", "other"]
PHASES = ("delete", "rmdir", "mkdir", "write")  # the order a set is applied in


def in_order(items: tuple[Item, ...] | list[Item]) -> list[tuple[int, Item]]:
    """The items with their index in the manifest, in the order they are applied: deletions (a
    folder's files before the folder), then new folders (parents first), then files."""
    return [(i, item) for phase in PHASES for i, item in enumerate(items) if item.op == phase]


def pre_name(index: int) -> str:
    return f"{index}.bin"


def _parent(ws: Workspace, rel: str) -> tuple[int, str] | None:
    """(descriptor of the entry's folder, its name), or None when the folder is not there."""
    try:
        fd, name, _ = ws.open_parent_dir(ws.walked(rel), create=False)
    except OperatorError as exc:
        if exc.code in (ErrorCode.ERR_NOT_FOUND, ErrorCode.ERR_NOT_A_DIRECTORY):
            return None
        raise
    return fd, name


def entry_now(ws: Workspace, rel: str) -> Entry | None:
    found = _parent(ws, rel)
    if found is None:
        return None
    fd, name = found
    try:
        return Entry.of(os.stat(name, dir_fd=fd, follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return None
    finally:
        os.close(fd)


def file_digest(ws: Workspace, rel: str) -> tuple[str, int] | None:
    """(sha256, mode) of the regular file at `rel`, None when there is none."""
    import hashlib

    found = _parent(ws, rel)
    if found is None:
        return None
    dir_fd, name = found
    try:
        try:
            fd = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
            )
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat_module.S_ISREG(info.st_mode):
                return None
            digest = hashlib.sha256()
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
            return digest.hexdigest(), stat_module.S_IMODE(info.st_mode)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def state_of(ws: Workspace, item: Item, pre_sha: str | None) -> State:
    """Whether the entry of `item` is as the set found it, as it leaves it, or neither. `pre_sha`:
    the hash of the pre-image kept of a file the set replaced or removed."""
    now = entry_now(ws, item.rel)
    if item.op in ("mkdir", "rmdir"):
        return _folder_state(item, now)
    if item.op == "delete":
        return _deleted_state(ws, item, now, pre_sha)
    return _written_state(ws, item, now, pre_sha)


def _folder_state(item: Item, now: Entry | None) -> State:
    # a folder made: there is one "after"; a folder removed: there is one "before"
    present: State = "after" if item.op == "mkdir" else "before"
    absent: State = "before" if item.op == "mkdir" else "after"
    if now is None:
        return absent
    return present if now.kind == "dir" else "other"


def _deleted_state(ws: Workspace, item: Item, now: Entry | None, pre_sha: str | None) -> State:
    if now is None:
        return "after"
    if item.before is not None and item.before.kind == "file" and now.kind == "file":
        digest = file_digest(ws, item.rel)
        return "before" if digest is not None and digest[0] == pre_sha else "other"
    return "before" if item.before is not None and now.kind == item.before.kind else "other"


def _written_state(ws: Workspace, item: Item, now: Entry | None, pre_sha: str | None) -> State:
    if now is None:
        return "before" if item.before is None else "other"
    if now.kind != "file":
        return "other"
    digest = file_digest(ws, item.rel)
    if digest is not None and digest == (item.new_sha, item.new_mode):
        return "after"
    if item.before is not None and digest is not None and digest[0] == pre_sha:
        return "before"
    return "other"


def keep_pre_image(ws: Workspace, item: Item, folder: Path, index: int) -> str:
    """Copy the bytes of the file `item` replaces or removes into the set's folder, fsynced;
    their sha256. Refused as a conflict if the file is no longer the one planned."""
    import hashlib

    found = _parent(ws, item.rel)
    if found is None:
        raise _conflict(item.rel, "was removed")
    dir_fd, name = found
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
        )
    except OSError:
        os.close(dir_fd)
        raise _conflict(item.rel, "changed") from None
    try:
        info = os.fstat(fd)
        if item.before is None or not item.before.same(Entry.of(info)):
            raise _conflict(item.rel, "changed")
        data = read_exactly(fd, info.st_size)
    finally:
        os.close(fd)
        os.close(dir_fd)
    out = os.open(
        folder / pre_name(index),
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
    )
    try:
        write_all(out, data)
        os.fsync(out)
    finally:
        os.close(out)
    return hashlib.sha256(data).hexdigest()


def _conflict(rel: str, what: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_CONFLICT,
        f"{rel} {what} since the command's changes were shown; none of them were applied; look "
        "at the files again and run the command anew",
    )


def check_before(ws: Workspace, items: tuple[Item, ...]) -> None:
    """Every entry the set changes is still as it was planned; else a conflict, nothing touched.
    An entry the set removes first (a folder a file takes the place of) is not looked for."""
    removed = {item.rel for item in items if item.op in ("delete", "rmdir")}
    for item in items:
        now = entry_now(ws, item.rel)
        if item.before is not None:
            if not item.before.same(now):
                raise _conflict(item.rel, "changed" if now is not None else "was removed")
        elif now is not None and item.rel not in removed:
            raise _conflict(item.rel, "was created by something else")


def _read_pre(folder: Path, index: int) -> bytes:
    fd = os.open(folder / pre_name(index), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        return read_exactly(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def _read_new(upper: Path, rel: str) -> bytes:
    fd = os.open(upper / rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat_module.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"{rel} in the command's layer is not a file any more")
        return read_exactly(fd, info.st_size)
    finally:
        os.close(fd)


Job = tuple[str, Callable[[], bytes], int]  # (rel, its bytes, its mode)
WORKERS = 32  # fsyncs of many small files, in parallel, share the file system's journal commits


def temps_file(folder: Path, undo: bool) -> Path:
    return folder / ("undo-temps.json" if undo else "temps.json")


def prepare(ws: Workspace, folder: Path, jobs: list[Job], *, undo: bool = False) -> dict[str, str]:
    """Write every file's new bytes to a temporary file beside it, fsynced, in parallel; rel ->
    its temporary name. The names are written to the set's folder first, so a run killed
    meanwhile leaves nothing that `sweep` does not find."""
    names = {rel: temp_name(rel.rsplit("/", 1)[-1]) for rel, _, _ in jobs}
    listing = temps_file(folder, undo)
    write_private(listing, json.dumps(names).encode())
    fsync_dir(folder)

    def one(job: Job) -> None:
        rel, data, mode = job
        found = _parent(ws, rel)
        if found is None:
            raise OSError(errno.ENOENT, f"the folder of {rel} is gone")
        dir_fd, name = found
        try:
            write_temp(dir_fd, name, data(), mode, None, names[rel])
        finally:
            os.close(dir_fd)

    if jobs:
        with ThreadPoolExecutor(max_workers=min(WORKERS, len(jobs))) as pool:
            for done in [pool.submit(one, job) for job in jobs]:
                done.result()
    return names


def sweep(ws: Workspace, folder: Path) -> None:
    """Remove the temporary files a commit or undo of this set prepared and did not install."""
    for undo in (False, True):
        listing = temps_file(folder, undo)
        try:
            names = json.loads(listing.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(names, dict):
            for rel, temp in names.items():
                if isinstance(rel, str) and isinstance(temp, str) and TEMP_NAME_RE.fullmatch(temp):
                    found = _parent(ws, rel)
                    if found is not None:
                        discard_temp(found[0], temp)
                        os.close(found[0])
        listing.unlink(missing_ok=True)


def _put(
    ws: Workspace,
    journal: Journal,
    seq: int,
    rel: str,
    data: Callable[[], bytes],
    mode: int,
    ready: dict[str, str] | None = None,
) -> None:
    """`rel` holds the new bytes (created or replaced), atomically: a fsynced temporary file
    renamed over it (the one `prepare` made, when there is one)."""
    found = _parent(ws, rel)
    if found is None:
        raise OSError(errno.ENOENT, f"the folder of {rel} is gone")
    dir_fd, name = found
    try:
        temp = (ready or {}).get(rel)
        if temp is None:
            temp = temp_name(name)
            journal.note_temp(seq, rel, temp)
            write_temp(dir_fd, name, data(), mode, None, temp)
        try:
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            discard_temp(dir_fd, temp)
            raise
    finally:
        os.close(dir_fd)


def _remove(ws: Workspace, rel: str, *, folder: bool) -> None:
    found = _parent(ws, rel)
    if found is None:
        return
    dir_fd, name = found
    try:
        if folder:
            os.rmdir(name, dir_fd=dir_fd)
        else:
            os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(dir_fd)


def _mkdir(ws: Workspace, rel: str, mode: int) -> None:
    found = _parent(ws, rel)
    if found is None:
        raise OSError(errno.ENOENT, f"the folder of {rel} is gone")
    dir_fd, name = found
    try:
        os.mkdir(name, mode, dir_fd=dir_fd)
    except FileExistsError:
        pass
    finally:
        os.close(dir_fd)


def forward(
    ws: Workspace,
    journal: Journal,
    seq: int,
    upper: Path,
    index: int,
    item: Item,
    ready: dict[str, str] | None = None,
) -> str | None:
    """Take one step of the set; a note when a folder is kept (it still holds ignored files)."""
    if item.op == "delete":
        _remove(ws, item.rel, folder=False)
    elif item.op == "rmdir":
        try:
            _remove(ws, item.rel, folder=True)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                return f"{item.rel}/ was kept: it still holds entries the set does not take"
            raise
    elif item.op == "mkdir":
        _mkdir(ws, item.rel, item.new_mode if item.new_mode is not None else 0o755)
    else:
        _put(
            ws,
            journal,
            seq,
            item.rel,
            lambda: _read_new(upper, item.rel),
            item.new_mode if item.new_mode is not None else NEW_FILE_MODE,
            ready,
        )
    return None


def new_job(upper: Path, item: Item) -> Job:
    mode = item.new_mode if item.new_mode is not None else NEW_FILE_MODE
    return item.rel, lambda: _read_new(upper, item.rel), mode


def old_job(folder: Path, index: int, item: Item) -> Job:
    assert item.before is not None
    return item.rel, lambda: _read_pre(folder, index), item.before.mode


def restores(item: Item) -> bool:
    """Whether taking `item` back writes a file's old bytes (from its pre-image)."""
    return item.op in ("write", "delete") and item.before is not None and item.before.kind == "file"


def backward(
    ws: Workspace,
    journal: Journal,
    seq: int,
    folder: Path,
    index: int,
    item: Item,
    ready: dict[str, str] | None = None,
) -> None:
    """Take one step of the set back: the entry as the set found it."""
    before = item.before
    if item.op == "mkdir":
        try:
            _remove(ws, item.rel, folder=True)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
    elif item.op == "rmdir":
        _mkdir(ws, item.rel, before.mode if before is not None else 0o755)
    elif item.op == "delete" or (item.op == "write" and before is not None):
        assert before is not None
        if before.kind == "symlink":
            found = _parent(ws, item.rel)
            if found is not None and item.link is not None:
                dir_fd, name = found
                try:
                    os.symlink(item.link, name, dir_fd=dir_fd)
                except FileExistsError:
                    pass
                finally:
                    os.close(dir_fd)
        elif before.kind == "file":
            _put(ws, journal, seq, item.rel, lambda: _read_pre(folder, index), before.mode, ready)
    else:  # a file the set created
        _remove(ws, item.rel, folder=False)


def sync_folders(ws: Workspace, items: list[Item] | tuple[Item, ...]) -> str | None:
    """fsync every folder the set changed an entry of; a note when one could not be."""
    folders = {"/".join(item.rel.split("/")[:-1]) for item in items}
    for rel in sorted(folders):
        try:
            fd = ws.open_dir(ws.walked(rel) if rel else ws.target("."))
        except OperatorError:
            continue
        try:
            os.fsync(fd)
        except OSError as exc:
            return (
                f"a folder could not be synced to disk ({exc.strerror or exc}), so the change may "
                "not survive a power cut"
            )
        finally:
            os.close(fd)
    return None
