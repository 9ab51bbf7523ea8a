"""All-or-nothing file replacement relative to a checked directory descriptor: a temporary file
in the same folder, written, flushed and fsynced, given the old permission bits (and owner, where
allowed; set-ID bits only with the owner they belong to), renamed over the target with
os.replace, and the folder fsynced. A reader (or a crash) sees the old bytes or
the new bytes, never a mix; on any failure the temporary file is removed."""

from __future__ import annotations

import os
import re
import secrets
import stat


def _read_umask() -> int:
    # os.umask can only be read by setting it; do it once, at import, before any worker threads.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _read_umask()
NEW_FILE_MODE = 0o666 & ~UMASK


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _keep_owner(fd: int, owner: tuple[int, int] | None, mode: int) -> int:
    """Give the new inode the replaced file's owner and group where the process may (root, or a
    group it belongs to), so a write does not hand someone's file to whoever ran Operator; the
    mode to give it. Where the owner (or group) could not be kept, the set-user-ID (set-group-ID)
    bit is dropped: on a file now owned by whoever ran Operator it would run programs as them."""
    if owner is None or owner == (os.geteuid(), os.getegid()):
        return mode
    try:
        os.fchown(fd, *owner)
    except PermissionError:
        try:
            os.fchown(fd, -1, owner[1])  # the group alone, when the process is a member
        except PermissionError:
            pass
    info = os.fstat(fd)
    if info.st_uid != owner[0]:
        mode &= ~stat.S_ISUID
    if info.st_gid != owner[1]:
        mode &= ~stat.S_ISGID
    return mode


TEMP_NAME_RE = re.compile(r"\..{1,100}\.operator-[0-9a-f]{12}\.tmp", re.DOTALL)


def temp_name(name: str) -> str:
    """A fresh name for the temporary file beside `name` (hidden, and saying whose it is)."""
    return f".{name[:100]}.operator-{secrets.token_hex(6)}.tmp"


def write_temp(
    dir_fd: int,
    name: str,
    data: bytes,
    mode: int,
    owner: tuple[int, int] | None = None,
    temp: str | None = None,
) -> str:
    """Write `data` to a new temporary file beside `name` (called `temp`, or a fresh name),
    fsynced, with `mode` and (where allowed) `owner` (uid, gid); its name. The caller installs it
    with `install_temp` or removes it with `discard_temp`."""
    temp = temp or temp_name(name)
    fd = os.open(
        temp,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=dir_fd,
    )
    try:
        try:
            write_all(fd, data)
            # The owner before the mode: a chown clears set-user-ID and set-group-ID bits.
            os.fchmod(fd, _keep_owner(fd, owner, mode))
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        discard_temp(dir_fd, temp)
        raise
    return temp


def install_temp(dir_fd: int, temp: str, name: str) -> str | None:
    """Put `temp` in place of `name`, then make the rename durable. Once the replace is done the
    change is made whatever follows, so a failed fsync of the folder is returned as a note for the
    result (the change may not survive a power cut), not raised as if nothing had changed."""
    os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    try:
        os.fsync(dir_fd)
    except OSError as exc:
        return (
            f"the folder could not be synced to disk ({exc.strerror or exc}), "
            "so the change may not survive a power cut"
        )
    return None


def discard_temp(dir_fd: int, temp: str) -> None:
    try:
        os.unlink(temp, dir_fd=dir_fd)
    except OSError:
        pass
