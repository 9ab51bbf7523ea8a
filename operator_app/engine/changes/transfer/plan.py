"""Planning fs.copy, fs.move and fs.rename: both paths checked against the workspace boundary, the
entry and the destination looked at, and the plan the person approves: what goes where, and over
an existing file (overwrite: true) the diff of the file it replaces. Nothing here writes;
transfer/commit.py does, after the person's yes, and refuses if either side changed since.

What is refused, before anything is shown: the workspace root as the entry, a destination that is
the entry itself or inside the folder being copied or moved, a rename into another folder, an
existing destination without overwrite (a folder or symlink there, ever), a FIFO, socket or
device, and a copy over the copy limits."""

from __future__ import annotations

import os
import stat as stat_module
from typing import TYPE_CHECKING

from ....protocol.errors import ErrorCode, OperatorError
from ....protocol.results import count
from ...boundary.fsops import kind_of
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.fingerprint import tree_fingerprint
from ...ondisk.tree_scan import scan_tree
from ...textops.diff import unified_diff
from ...textops.textfile import TextDoc, split_lines
from ..plan import PlanKind, WritePlan, entry_description
from .links import check_links

if TYPE_CHECKING:
    from ....protocol.commands.base import Command
    from ....protocol.commands.transfer import TwoPathCommand

PREVIEW_FILES = 200  # files of a folder listed in the preview
DIFF_PREVIEW_BYTES = 2_000_000  # a replaced file and its replacement are diffed up to this size
VERBS = {
    "fs.copy": ("copy", "Copied"),
    "fs.move": ("move", "Moved"),
    "fs.rename": ("rename", "Renamed"),
}


def _invalid(message: str) -> OperatorError:
    return OperatorError(ErrorCode.ERR_INVALID_PATH_TO, message)


def _folder_of(rel: str) -> str:
    return rel.rsplit("/", 1)[0] + "/" if "/" in rel else "the workspace root"


def _check_places(
    cmd: TwoPathCommand, ws: Workspace, src: Target, dst: Target, src_dir: bool
) -> None:
    """The two paths make sense together: not the root, not the entry itself or inside it, and for
    a rename, the same folder."""
    verb = VERBS[cmd.action][0]
    if not src.parts:
        raise _invalid(
            f"{cmd.action} of the workspace root (.) is refused: "
            f"it cannot go inside itself; {verb} the entries in it"
        )
    if not dst.parts:
        raise OperatorError(
            ErrorCode.ERR_TARGET_EXISTS,
            (
                "path_to . is the workspace root, a folder, which is never "
                f"replaced; name the new path itself, e.g. path_to: {src.parts[-1]}"
            ),
        )
    src_at, dst_at = ws.entry_parts(src), ws.entry_parts(dst)
    if dst_at == src_at:
        raise _invalid(f"path_to {dst.rel} is {src.rel} itself; name another path")
    if src_dir and dst_at[: len(src_at)] == src_at:
        raise _invalid(
            f"path_to {dst.rel} lies inside the folder {src.rel}/ "
            f"that is to {verb}; a folder cannot go inside itself"
        )
    if cmd.action == "fs.rename" and dst_at[:-1] != src_at[:-1]:
        here = "/".join(src_at[:-1])
        suggested = f"{here}/{dst.parts[-1]}" if here else dst.parts[-1]
        rename = (
            f"to rename it send path_to: {suggested}, " if dst.parts[-1] != src.parts[-1] else ""
        )
        raise _invalid(
            f"fs.rename keeps {src.rel} in its folder ({_folder_of(src.rel)}), and path_to "
            f"{dst.rel} is in {_folder_of(dst.rel)}; {rename}to move it there use fs.move"
        )


def _check_destination_folder(ws: Workspace, dst: Target) -> list[str]:
    """The folders that will be made on the way to `dst` (relative paths, outermost first);
    ERR_NOT_A_DIRECTORY when a file stands where one of them would be."""
    parts = ws.entry_parts(dst)[:-1]
    missing: list[str] = []
    for depth in range(len(parts), 0, -1):
        path = ws.root.joinpath(*parts[:depth])
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            missing.insert(0, "/".join(parts[:depth]))
            continue
        if not stat_module.S_ISDIR(info.st_mode):
            raise OperatorError(
                ErrorCode.ERR_NOT_A_DIRECTORY,
                (
                    f"path_to {dst.rel} goes through {'/'.join(parts[:depth])}, "
                    "which is a file, not a folder; choose another path_to"
                ),
            )
        break
    return missing


def _tree_facts(ws: Workspace, target: Target) -> tuple[int, int, str | None]:
    """(files, bytes, the first FIFO, socket or device met) below a folder, nothing followed,
    read through descriptors (tree_scan.py): no name from outside can be met."""
    files = size = 0
    base = "/".join(ws.entry_parts(target))
    parent_fd, name, _ = ws.open_parent_dir(target, create=False)
    walk = scan_tree(parent_fd, name)
    try:
        for node in walk:
            if node.step != "entry":
                continue
            info = node.info
            if not (stat_module.S_ISREG(info.st_mode) or stat_module.S_ISLNK(info.st_mode)):
                return files, size, "/".join((base, *node.parts))
            files += 1
            size += info.st_size
    finally:
        walk.close()
        os.close(parent_fd)
    return files, size, None


def _check_copy_limits(cmd: TwoPathCommand, target: Target, files: int, size: int) -> None:
    from ....protocol.commands.transfer import COPY_MAX_BYTES, COPY_MAX_FILES

    if files > COPY_MAX_FILES or size > COPY_MAX_BYTES:
        raise OperatorError(
            ErrorCode.ERR_FILE_TOO_LARGE,
            (
                f"{cmd.action} of {target.rel} would copy {count(files, 'file')} and {size:,} "
                f"bytes, over the limit of {COPY_MAX_FILES:,} files and {COPY_MAX_BYTES:,} "
                "bytes Operator copies; nothing was changed; copy a smaller part"
            ),
        )


def _device_of_folder(ws: Workspace, target: Target) -> int:
    """The device of the folder `target` is (or will be) in: its nearest existing ancestor's."""
    path = ws.root.joinpath(*ws.entry_parts(target)[:-1])
    while True:
        try:
            return os.stat(path).st_dev
        except FileNotFoundError:
            path = path.parent


def _text(ws: Workspace, target: Target, size: int) -> str | None:
    """A file's text for the preview diff, or None when it is too large or not text."""
    if size > DIFF_PREVIEW_BYTES:
        return None
    try:
        return TextDoc.decode(
            ws.read_file(target, max_bytes=DIFF_PREVIEW_BYTES), label=target.rel
        ).text
    except OperatorError:
        return None


def _describe_file(ws: Workspace, target: Target, st: os.stat_result, text: str | None) -> str:
    if text:
        return f"{count(len(split_lines(text)), 'line')}, {count(st.st_size, 'byte')}"
    return entry_description(ws, target, st)


def plan_transfer(command: Command, ws: Workspace) -> WritePlan:
    # declared already: the command is one
    from ....protocol.commands.transfer import TwoPathCommand

    assert isinstance(command, TwoPathCommand)
    cmd = command
    src, dst = ws.target(cmd.path), ws.target(cmd.path_to)
    st = _entry_stat(cmd, ws, src, dst)
    src_dir = stat_module.S_ISDIR(st.st_mode)
    made = _check_destination_folder(ws, dst)
    if src_dir or stat_module.S_ISLNK(st.st_mode):
        check_links(cmd.action, ws, src, dst)
    across = cmd.action != "fs.copy" and _device_of_folder(ws, src) != _device_of_folder(ws, dst)
    fingerprint, files, listing = tree_fingerprint(ws, src, st)
    if cmd.action == "fs.copy" or across:
        _check_copy(cmd, ws, src, st)
    src_text = _text(ws, src, st.st_size) if stat_module.S_ISREG(st.st_mode) else None
    what = count(files, "file") if src_dir else _describe_file(ws, src, st, src_text)
    lines = _preview(ws, src, dst, src_dir, what, listing)
    to_hash, added, removed, replacing = _destination(cmd, ws, src, dst, st, src_text, lines)
    kind: PlanKind = "copy" if cmd.action == "fs.copy" else "move"
    return WritePlan(
        action=cmd.action,
        command_id=cmd.id,
        target=src,
        kind=kind,
        base_hash=fingerprint,
        new_bytes=None,
        diff="\n".join(lines) + "\n",
        added=added,
        removed=removed,
        summary=_summary(cmd.action, src, dst, src_dir, what, replacing, across),
        is_dir=src_dir,
        file_count=files,
        notes=_notes(src, dst, made, across),
        target_to=dst,
        to_hash=to_hash,
    )


def _entry_stat(cmd: TwoPathCommand, ws: Workspace, src: Target, dst: Target) -> os.stat_result:
    """The entry's lstat, once it exists, the two paths make sense together (_check_places) and
    it is a file, a symlink or a folder."""
    st = ws.lstat(src) if src.parts else None
    if src.parts and st is None:
        raise ws.not_found(src)
    src_dir = st is not None and stat_module.S_ISDIR(st.st_mode)
    _check_places(cmd, ws, src, dst, src_dir)
    assert st is not None  # only the root has none, and _check_places refuses it
    if not (src_dir or stat_module.S_ISREG(st.st_mode) or stat_module.S_ISLNK(st.st_mode)):
        raise OperatorError(
            ErrorCode.ERR_SPECIAL_FILE,
            (
                f"{src.rel} is a {kind_of(st.st_mode)}; Operator "
                "never copies or moves FIFOs, sockets or devices"
            ),
        )
    return st


def _check_copy(cmd: TwoPathCommand, ws: Workspace, src: Target, st: os.stat_result) -> None:
    """What is copied (a copy, or a move to another file system) holds no FIFO, socket or device
    and keeps within the copy limits."""
    if not stat_module.S_ISDIR(st.st_mode):
        _check_copy_limits(cmd, src, 1, st.st_size)
        return
    files, size, special = _tree_facts(ws, src)
    if special is not None:
        raise OperatorError(
            ErrorCode.ERR_SPECIAL_FILE,
            (
                f"{src.rel}/ holds {special}, a FIFO, socket or device, "
                "which Operator never copies; nothing was changed"
            ),
        )
    _check_copy_limits(cmd, src, files, size)


def _preview(
    ws: Workspace, src: Target, dst: Target, src_dir: bool, what: str, listing: list[str]
) -> list[str]:
    """The first lines the person reviews: what goes where, and a folder's files."""
    slash = "/" if src_dir else ""
    lines = [f"{src.rel}{slash} -> {dst.rel}{slash} ({'folder, ' if src_dir else ''}{what})"]
    if src_dir:
        shown, base = listing[:PREVIEW_FILES], "/".join(ws.entry_parts(src))
        lines += [f"  {os.path.relpath(name, base)}" for name in shown]
        if len(listing) > len(shown):
            lines.append(f"  ... and {len(listing) - len(shown)} more")
    return lines


def _notes(src: Target, dst: Target, made: list[str], across: bool) -> tuple[str, ...]:
    notes: list[str] = []
    if made:
        notes.append(
            f"creates the folder{'s' if len(made) > 1 else ''} {', '.join(m + '/' for m in made)}"
        )
    if across:
        notes.append(
            f"{_folder_of(dst.rel)} is on another file system: {src.rel} is "
            "copied there, synced to disk, and the original goes to the trash"
        )
    return tuple(notes)


def _summary(
    action: str, src: Target, dst: Target, src_dir: bool, what: str, replacing: str, across: bool
) -> str:
    slash = "/" if src_dir else ""
    summary = (
        f"{VERBS[action][1]} {'folder ' if src_dir else ''}{src.rel}{slash} "
        f"to {dst.rel}{slash} ({what}){replacing}"
    )
    if across:
        summary += "; it was on another file system: copied, and the original moved to the trash"
    return summary


def _destination(
    cmd: TwoPathCommand,
    ws: Workspace,
    src: Target,
    dst: Target,
    st: os.stat_result,
    src_text: str | None,
    lines: list[str],
) -> tuple[str | None, int, int, str]:
    """Look at what is at path_to: nothing (None, 0, 0, ""), or a file that overwrite: true lets
    the entry replace: its fingerprint, the diff lines added and removed (appended to `lines`),
    and the words the summary ends with."""
    dst_st = ws.lstat(dst)
    if dst_st is None:
        return None, 0, 0, ""
    if (dst_st.st_dev, dst_st.st_ino) == (st.st_dev, st.st_ino):
        raise _invalid(
            f"path_to {dst.rel} is {src.rel} itself (another "
            "name for the same entry); name another path"
        )
    if stat_module.S_ISLNK(dst_st.st_mode):
        raise OperatorError(
            ErrorCode.ERR_SYMLINK_TARGET,
            (
                f"path_to {dst.rel} is a symlink; Operator never "
                "replaces or writes through one; choose another path_to"
            ),
        )
    if stat_module.S_ISDIR(dst_st.st_mode):
        raise OperatorError(
            ErrorCode.ERR_TARGET_EXISTS,
            (
                f"path_to {dst.rel} is a folder that exists, and a folder is never replaced; to "
                f"put {src.rel} in it, name the new path itself: path_to: {dst.rel}/{src.parts[-1]}"
            ),
        )
    if not stat_module.S_ISREG(dst_st.st_mode):
        raise OperatorError(
            ErrorCode.ERR_SPECIAL_FILE,
            f"path_to {dst.rel} is a {kind_of(dst_st.st_mode)}; Operator never replaces those",
        )
    dst_text = _text(ws, dst, dst_st.st_size)
    what = _describe_file(ws, dst, dst_st, dst_text)
    if not cmd.overwrite:
        raise OperatorError(
            ErrorCode.ERR_TARGET_EXISTS,
            (
                f"path_to {dst.rel} exists ({what}); send overwrite: true to replace it (the "
                "person sees the diff of the file it replaces), or choose another path_to"
            ),
        )
    if not stat_module.S_ISREG(st.st_mode):
        kind = "folder" if stat_module.S_ISDIR(st.st_mode) else "symlink"
        raise OperatorError(
            ErrorCode.ERR_TARGET_EXISTS,
            (
                f"path_to {dst.rel} is a file, and {src.rel} is a {kind}: "
                "only a file replaces a file; choose another path_to"
            ),
        )
    to_hash = tree_fingerprint(ws, dst, dst_st)[0]
    if src_text is not None and dst_text is not None:
        diff, added, removed = unified_diff(dst_text, src_text, dst.rel)
        lines.append(
            f"replaces {dst.rel} ({what}); its content changes:"
            if diff
            else f"replaces {dst.rel} ({what}), which already has the same text"
        )
        lines += split_lines(diff)
        return (
            to_hash,
            added,
            removed,
            f", replacing the file there ({what}: +{added} -{removed} lines)",
        )
    lines.append(f"replaces {dst.rel} ({what}; not text, or too large to compare)")
    return to_hash, 0, 0, f", replacing the file there ({what})"
