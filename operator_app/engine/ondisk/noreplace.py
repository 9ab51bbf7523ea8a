"""A rename that never replaces what is at its destination: FileExistsError instead, in one step,
so no check-then-rename window lets a file saved meanwhile be overwritten. Recovery and undo put
entries back into the workspace with it, and the trash moves use it too.

Linux has renameat2(RENAME_NOREPLACE) and macOS renameatx_np(RENAME_EXCL), reached with ctypes.
Where neither is there (an older kernel or C library, a file system without the flag), a
non-folder is hard-linked to its new name (a link never replaces) and its old name removed, and
a folder is renamed over an empty folder made for it with mkdir (a rename onto a folder that is
not empty, or onto a file, fails). That last step can replace only an empty folder someone
swapped in for the one made: nothing in it to lose. Where hard links are not to be had either,
the OSError says so and nothing moved."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable
from functools import cache

# The call is refused for this file system, or the system lacks it: the other way is taken.
_NOT_AVAILABLE = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}

RenameCall = Callable[[int, bytes, int, bytes], int]  # returns 0, or an errno


@cache
def _system_call() -> RenameCall | None:
    """The platform's no-replace rename, or None where this C library has none."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):
            function, flag = libc.renameat2, 1  # RENAME_NOREPLACE
        elif sys.platform == "darwin":
            function, flag = libc.renameatx_np, 0x4  # RENAME_EXCL
        else:
            return None
    except (AttributeError, OSError):
        return None
    function.argtypes = (
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    )
    function.restype = ctypes.c_int

    def call(src_fd: int, src: bytes, dst_fd: int, dst: bytes) -> int:
        return 0 if function(src_fd, src, dst_fd, dst, flag) == 0 else ctypes.get_errno()

    return call


def rename_noreplace(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Rename entry `src` of folder `src_fd` to `dst` of folder `dst_fd` (nothing is followed);
    FileExistsError, and nothing moved, when anything is at `dst`."""
    call = _system_call()
    if call is not None:
        error = call(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst))
        if not error:
            return
        if error not in _NOT_AVAILABLE:
            raise OSError(error, os.strerror(error), dst)
    rename_by_link(src_fd, src, dst_fd, dst)


def rename_by_link(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """The same without the system call: a hard link for a non-folder, an empty folder made first
    for a folder."""
    if not stat.S_ISDIR(os.stat(src, dir_fd=src_fd, follow_symlinks=False).st_mode):
        os.link(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)
        os.unlink(src, dir_fd=src_fd)
        return
    os.mkdir(dst, 0o700, dir_fd=dst_fd)
    try:
        os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
    except OSError as exc:
        try:
            os.rmdir(dst, dir_fd=dst_fd)
        except OSError:
            pass  # not the empty folder made above any more: not ours to remove
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise FileExistsError(
                errno.EEXIST, "something was put at the destination meanwhile", dst
            ) from None
        raise
