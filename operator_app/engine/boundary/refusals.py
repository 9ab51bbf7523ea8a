"""How a failure on a checked path reads to the model: which component is missing and the close
names in its folder, a file in the way of a folder, a symlink met while opening, a FIFO or device
refused, permission and I/O errors. Each is an OperatorError that says what to do next; the
OSError it comes from is the workspace's (workspace.py), met at a known component."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.escapes import escape_name
from .fsops import StepError, open_dir_chain, resolve_steps
from .target import Target

MAX_CLOSE_NAMES = 5
LIST_HINT = "list the folder with fs.list"


def outside(rel: str, link: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
        f"{rel} resolves through a symlink to outside the workspace ({link} "
        "is a symlink that leads out); use a path inside the workspace",
    )


def close_names(root: Path, t: Target) -> list[str]:
    """Names in the folder where `t` stops existing that are close to the one asked for."""
    missing = first_missing(root, t)
    if missing is None:
        return []
    parent = root.joinpath(*t.parts[:missing])
    resolved = Path(os.path.realpath(parent))
    if not resolved.is_relative_to(root):
        return []
    try:
        fd, _ = open_dir_chain(str(root), resolved.relative_to(root).parts)
    except StepError:
        return []
    try:
        with os.scandir(fd) as scan:
            names = sorted(entry.name for entry in scan)
    except OSError:
        return []
    finally:
        os.close(fd)
    by_folded: dict[str, list[str]] = {}
    for name in names:
        by_folded.setdefault(name.casefold(), []).append(name)
    import difflib  # only a not-found message needs it; keeps start-up short

    matches = difflib.get_close_matches(
        t.parts[missing].casefold(), list(by_folded), n=MAX_CLOSE_NAMES
    )
    prefix = "/".join(t.parts[:missing])
    return [
        name if not prefix else f"{prefix}/{name}"
        for folded in matches
        for name in by_folded[folded]
    ][:MAX_CLOSE_NAMES]


def first_missing(root: Path, t: Target) -> int | None:
    return next(
        (index for index, _, exists in resolve_steps(str(root), t.parts) if not exists), None
    )


def not_found(root: Path, t: Target) -> OperatorError:
    """ERR_NOT_FOUND for `t`: which component is missing, and close names in its folder."""
    missing = first_missing(root, t)
    gap = ""
    if missing is not None:
        lexical = root.joinpath(*t.parts[: missing + 1])
        if os.path.islink(lexical):
            # A dangling symlink is listed by fs.list: "does not exist" alone would contradict it.
            shown_link = "/".join(t.parts[: missing + 1])
            return OperatorError(
                ErrorCode.ERR_NOT_FOUND,
                (
                    f"{t.rel} does not exist: {shown_link} is a symlink to "
                    f"{escape_name(os.readlink(lexical))}, which does not exist; {LIST_HINT}"
                ),
            )
        if missing < len(t.parts) - 1:
            gap = f": there is no {'/'.join(t.parts[: missing + 1])}"
    names = close_names(root, t)
    close = f"; close names: {', '.join(escape_name(name) for name in names)}" if names else ""
    quoted = ""
    if len(t.rel) > 2 and t.rel[0] == t.rel[-1] and t.rel[0] in "\"'`":
        quoted = "; values are taken literally: write the path without quotes"
    return OperatorError(
        ErrorCode.ERR_NOT_FOUND, f"{t.rel} does not exist{gap}{close}{quoted}; {LIST_HINT}"
    )


def not_a_file(t: Target) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_NOT_A_FILE,
        f"{t.rel} is a folder, not a file; list it with fs.list or search it with fs.searchTree",
    )


def refuse_kind(t: Target, kind: str) -> OperatorError:
    if kind == "dir":
        return not_a_file(t)
    if kind == "symlink":
        return changed(t)
    return OperatorError(
        ErrorCode.ERR_SPECIAL_FILE,
        f"{t.rel} is a {kind}, not a regular file; Operator never "
        "opens FIFOs, sockets or devices; pick a regular file",
    )


def changed(t: Target) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
        f"{t.rel} met a symlink while being opened (the path changed "
        "after it was checked, or a symlink loops); nothing was opened; "
        "use a path inside the workspace that does not go through it",
    )


def fail(
    root: Path,
    t: Target,
    error: OSError,
    index: int,
    doing: str,
    parts: tuple[str, ...],
    *,
    whole: bool = False,
) -> OperatorError:
    """The error for an OSError met at component `index` of `parts` (resolved, relative to root)."""
    code = error.errno
    if index < 0:
        return OperatorError(
            ErrorCode.ERR_IO,
            "the workspace folder itself cannot be opened "
            f"({error.strerror}); ask the person to check it",
        )
    if code == errno.ENOENT:
        return not_found(root, t)
    if code == errno.ENOTDIR:
        if whole and index == len(parts) - 1:
            if os.path.isfile(t.abs) and not os.path.islink(t.abs):
                return OperatorError(
                    ErrorCode.ERR_NOT_A_DIRECTORY,
                    f"{t.rel} is a file, not a folder; read it with fs.read",
                )
            return OperatorError(
                ErrorCode.ERR_NOT_A_DIRECTORY, f"{t.rel} is not a folder; {LIST_HINT}"
            )
        blocker = "/".join(parts[: index + 1])
        return OperatorError(
            ErrorCode.ERR_NOT_A_DIRECTORY,
            f"{t.rel} goes through {blocker}, which is a file, not a folder; {LIST_HINT}",
        )
    if code == errno.ELOOP:
        return changed(t)
    if code in (errno.EACCES, errno.EPERM):
        return OperatorError(
            ErrorCode.ERR_PERMISSION_DENIED,
            f"permission denied {doing} {t.rel}; ask the person to fix the permissions",
        )
    if code == errno.EISDIR:
        return not_a_file(t)
    if code == errno.ENXIO:
        return refuse_kind(t, "socket")
    if code == errno.ENAMETOOLONG:
        return OperatorError(
            ErrorCode.ERR_INVALID_PATH,
            f"{t.rel} has a name that is too long for the filesystem; use a shorter name",
        )
    name = errno.errorcode.get(code or 0, "?")
    return OperatorError(
        ErrorCode.ERR_IO,
        f"{doing} {t.rel} failed: {error.strerror} "
        f"({name}); try again or ask the person to check it",
    )
