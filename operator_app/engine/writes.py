"""Planning every write-type action: read the file once, compute the new bytes with the pure text
operations, keep the file's newline style, BOM and final-newline state, and describe the change.
No plan leaves a file over WRITE_MAX_BYTES (ERR_FILE_TOO_LARGE). Nothing here writes;
`commit.py` does, after the person approved the plan."""

from __future__ import annotations

import json
import os
import stat as stat_module
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..protocol.grammar import WRITE_MAX_BYTES
from ..protocol.errors import ErrorCode, OperatorError
from ..protocol.results import count
from .plan import PlanKind, WritePlan, unified_diff
from .textfile import TextDoc, new_file_bytes, split_lines
from .workspace import Target, Workspace

if TYPE_CHECKING:  # each command's family is declared only when a command of it is validated
    from ..protocol.commands.base import Command
    from ..protocol.commands.regions import MarkerFields
    from ..protocol.commands.writing import FsApplyEdits, FsDelete, FsPatch, FsWrite

TRANSFER_ACTIONS = ("fs.copy", "fs.move", "fs.rename")  # two paths: transfer.py plans them
DELETE_PREVIEW_FILES = 200
DELETE_PREVIEW_BYTES = 200_000


def _existing(ws: Workspace, target: Target) -> bytes | None:
    """The target's bytes, or None when it does not exist yet."""
    st = ws.lstat(target)
    if st is None:
        return None
    if stat_module.S_ISLNK(st.st_mode):
        raise OperatorError(ErrorCode.ERR_SYMLINK_TARGET, (
            f"{target.rel} is a symlink; Operator does not write through symlinks; write to the file it points to"
        ))
    if stat_module.S_ISDIR(st.st_mode):
        raise OperatorError(ErrorCode.ERR_NOT_A_FILE, f"{target.rel} is a folder; name a file inside it")
    try:
        data = ws.read_file(target, max_bytes=WRITE_MAX_BYTES)
    except OperatorError as exc:
        if exc.code is ErrorCode.ERR_FILE_TOO_LARGE:
            raise OperatorError(ErrorCode.ERR_FILE_TOO_LARGE, (
                f"{target.rel} is over the {WRITE_MAX_BYTES}-byte limit for edits; Operator does not rewrite files that large"
            )) from None
        raise
    return data


def _text_of(target: Target, data: bytes | None) -> TextDoc:
    if data is None:
        raise OperatorError(ErrorCode.ERR_NOT_FOUND, (
            f"{target.rel} does not exist; create it with fs.write (or fs.insertRegion needs an existing file)"
        ))
    return TextDoc.decode(data, label=target.rel)


def _plan(cmd: Command, target: Target, old: bytes | None, new: bytes, summary: str, *, before: str, after: str,
          notes: tuple[str, ...] = ()) -> WritePlan:
    """`before`/`after`: the texts with "\n" line breaks that the preview diff compares (the
    planner has them already; decoding the bytes again would double the cost on big files)."""
    if len(new) > WRITE_MAX_BYTES:  # before the preview diff, which would be as large
        raise OperatorError(ErrorCode.ERR_FILE_TOO_LARGE, (
            f"{cmd.action} would make {target.rel} {len(new):,} bytes (it is {0 if old is None else len(old):,} now), over "
            f"the {WRITE_MAX_BYTES:,}-byte limit of a file Operator writes; nothing was written; split the file or the change"
        ))
    if old is not None and old == new:
        return WritePlan(cmd.action, cmd.id, target, "noop", None, new, "", 0, 0,
                         f"No change: {target.rel} already has this content", base=old)
    diff, added, removed = unified_diff(before, after, target.rel, created=old is None)
    kind: PlanKind = "create" if old is None else "modify"
    return WritePlan(cmd.action, cmd.id, target, kind, None, new, diff, added, removed,
                     summary.format(added=added, removed=removed), notes=notes, base=old)


def _counts() -> str:
    return "+{added} -{removed} lines"


def plan_fs_write(cmd: FsWrite, ws: Workspace, target: Target) -> WritePlan:
    old = _existing(ws, target)
    text = cmd.text
    if old is None:
        new = new_file_bytes(text)
        lines = len(split_lines(text))
        return _plan(cmd, target, None, new, f"Created {target.rel} ({count(lines, 'line')}, {len(new)} bytes)",
                     before="", after=text.replace("\r\n", "\n"))
    try:
        doc = TextDoc.decode(old, label=target.rel)
    except OperatorError:
        # Replacing a binary or non-UTF-8 file with text is allowed (the person sees it and it can
        # be undone); only its conventions cannot be kept.
        new = new_file_bytes(text)
        return _plan(cmd, target, old, new, f"Wrote {target.rel}: replaced {len(old)} bytes of non-text content with {len(new)} bytes",
                     before="", after=text, notes=("the old content is not UTF-8 text; the diff shows only the new text",))
    # The whole text is new, so no untouched line of a mixed file is at stake: CRLF content for an
    # LF file takes the file's line endings too, as the spec promises (conform alone keeps a "\r"
    # that an edit of an LF file carries, since there it may be part of the line).
    after = doc.conform(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    new = doc.encode_conformed(after)
    return _plan(cmd, target, old, new, f"Wrote {target.rel}: {_counts()} ({len(new)} bytes)", before=doc.text, after=after)


def plan_fs_apply_edits(cmd: FsApplyEdits, ws: Workspace, target: Target) -> WritePlan:
    from .textops.edits import apply_edits

    old = _existing(ws, target)
    doc = _text_of(target, old)
    outcome = apply_edits(doc.text, cmd.edits_b64, label=target.rel)
    after = doc.conform(outcome.text)
    edits = count(outcome.applied, "edit")
    return _plan(cmd, target, old, doc.encode_conformed(after), f"Applied {edits} to {target.rel}: {_counts()}",
                 before=doc.text, after=after)


def plan_fs_patch(cmd: FsPatch, ws: Workspace, target: Target) -> WritePlan:
    from .textops.patch import apply_patch

    old = _existing(ws, target)
    doc = TextDoc.decode(old, label=target.rel) if old is not None else None
    outcome = apply_patch(doc.text if doc is not None else None, cmd.patch_b64, label=target.rel,
                          crlf=doc is not None and doc.newline == "\r\n", bom=doc is not None and doc.bom)
    hunks = count(outcome.hunks, "hunk")
    if doc is None:
        return _plan(cmd, target, None, new_file_bytes(outcome.text), f"Created {target.rel} from a patch: {hunks}, {_counts()}",
                     before="", after=outcome.text)
    # The patch itself says whether the file ends with a newline, so it is not forced back.
    after = doc.conform(outcome.text, keep_final_newline=False)
    return _plan(cmd, target, old, doc.encode_conformed(after), f"Patched {target.rel}: {hunks}, {_counts()}",
                 before=doc.text, after=after)


def plan_region(cmd: MarkerFields, ws: Workspace, target: Target) -> WritePlan:
    from ..protocol.commands.regions import FsInsertRegion, FsReplaceRegion  # declared already: cmd is one of them
    from .styles import style_for
    from .textops import regions

    old = _existing(ws, target)
    doc = _text_of(target, old)
    style = style_for(cmd, target.rel)
    if isinstance(cmd, FsInsertRegion):
        text = regions.insert_region(doc.text, style, cmd.marker_id, cmd.anchor, cmd.content_b64,
                                     position=cmd.position, occurrence=cmd.occurrence, label=target.rel)
        summary = f"Inserted region {cmd.marker_id} in {target.rel} {cmd.position} the line holding {json.dumps(cmd.anchor)}: {_counts()}"
    elif isinstance(cmd, FsReplaceRegion):
        text = regions.replace_region(doc.text, style, cmd.marker_id, cmd.content_b64, label=target.rel)
        summary = f"Replaced region {cmd.marker_id} in {target.rel}: {_counts()}"
    else:
        text = regions.delete_region(doc.text, style, cmd.marker_id, label=target.rel)
        summary = f"Emptied region {cmd.marker_id} in {target.rel} (markers kept): {_counts()}"
    after = doc.conform(text)
    return _plan(cmd, target, old, doc.encode_conformed(after), summary, before=doc.text, after=after)


def plan_fs_delete(cmd: FsDelete, ws: Workspace, target: Target) -> WritePlan:
    from .fingerprint import tree_fingerprint

    if not target.parts:
        raise OperatorError(ErrorCode.ERR_DELETE_ROOT, (
            "fs.delete of the workspace root is refused; delete the entries inside it one by one"
        ))
    st = ws.lstat(target)
    if st is None:
        close = ws.close_names(target)
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise OperatorError(ErrorCode.ERR_NOT_FOUND, f"{target.rel} does not exist{hint}; nothing to delete")
    fingerprint, files, listing = tree_fingerprint(ws, target, st)
    is_dir = stat_module.S_ISDIR(st.st_mode)
    if is_dir:
        shown = listing[:DELETE_PREVIEW_FILES]
        more = f"\n... and {len(listing) - len(shown)} more" if len(listing) > len(shown) else ""
        diff = f"Folder {target.rel}/ goes to the trash with {count(files, 'file')}:\n" + "\n".join(shown) + more + "\n"
        summary = f"Moved folder {target.rel}/ ({count(files, 'file')}) to the trash"
        return WritePlan(cmd.action, cmd.id, target, "delete", fingerprint, None, diff, 0, 0, summary,
                         is_dir=True, file_count=files)
    removed = 0
    what = entry_description(ws, target, st)
    diff = f"{target.rel} goes to the trash ({what})\n"
    if stat_module.S_ISREG(st.st_mode) and 0 < st.st_size <= DELETE_PREVIEW_BYTES:
        try:
            text = TextDoc.decode(ws.read_file(target, max_bytes=DELETE_PREVIEW_BYTES), label=target.rel).text
            diff, _, removed = unified_diff(text, "", target.rel, deleted=True)
            what = f"{count(len(split_lines(text)), 'line')}, {count(st.st_size, 'byte')}"
        except OperatorError:
            pass  # binary: the one-line description above is the preview
    # What left the workspace, not a line count as if the file had been edited ("-2 lines").
    summary = f"Moved {target.rel} ({what}) to the trash"
    return WritePlan(cmd.action, cmd.id, target, "delete", fingerprint, None, diff, 0, removed, summary, file_count=1)


def entry_description(ws: Workspace, target: Target, st: os.stat_result) -> str:
    """What an entry that is not a folder is, in a few words: "120 bytes", "empty file", "symlink to
    README.md", "FIFO"."""
    if stat_module.S_ISLNK(st.st_mode):
        try:
            dir_fd, name, _ = ws.open_parent_dir(target, create=False)
            try:
                return f"symlink to {os.readlink(name, dir_fd=dir_fd)}"
            finally:
                os.close(dir_fd)
        except (OSError, OperatorError):
            return "symlink"
    if not stat_module.S_ISREG(st.st_mode):
        from .fsops import kind_of

        return kind_of(st.st_mode)
    return "empty file" if st.st_size == 0 else count(st.st_size, "byte")


_PLANNERS: dict[str, Callable[..., WritePlan]] = {  # action -> planner
    "fs.write": plan_fs_write,
    "fs.applyEdits": plan_fs_apply_edits,
    "fs.patch": plan_fs_patch,
    "fs.insertRegion": plan_region,
    "fs.replaceRegion": plan_region,
    "fs.deleteRegion": plan_region,
    "fs.delete": plan_fs_delete,
}


def plan_write(cmd: Command, ws: Workspace) -> WritePlan:
    if cmd.action in TRANSFER_ACTIONS:
        from ..protocol.commands.transfer import TwoPathCommand  # declared already: cmd is one
        from .transfer import plan_transfer

        assert isinstance(cmd, TwoPathCommand)
        return plan_transfer(cmd, ws)
    target = ws.target(cmd.path_or_none or "")
    if not target.parts and cmd.action != "fs.delete":
        raise OperatorError(ErrorCode.ERR_NOT_A_FILE, f"{cmd.action} needs a file path; . is the workspace root folder")
    return _PLANNERS[cmd.action](cmd, ws, target)
