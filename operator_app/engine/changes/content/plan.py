"""Planning a change to one file's content (fs.write, fs.applyEdits, fs.patch and the region
actions): read the file once, compute the new bytes with the pure text operations, keep the
file's newline style, BOM and final-newline state, and describe the change. No plan leaves a file
over WRITE_MAX_BYTES (ERR_FILE_TOO_LARGE). Nothing here writes; content/commit.py does, after the
person approved the plan."""

from __future__ import annotations

import json
import stat as stat_module
from collections.abc import Callable
from typing import TYPE_CHECKING

from ....protocol.errors import ErrorCode, OperatorError
from ....protocol.grammar import WRITE_MAX_BYTES
from ....protocol.results import count
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...textops.diff import text_diff
from ...textops.line_moves import moves_clause
from ...textops.textfile import TextDoc, new_file_bytes, split_lines
from ..plan import PlanKind, WritePlan

if TYPE_CHECKING:  # each command's family is declared only when a command of it is validated
    from ....protocol.commands.base import Command
    from ....protocol.commands.regions import MarkerFields
    from ....protocol.commands.writing import FsApplyEdits, FsPatch, FsWrite


def _existing(ws: Workspace, target: Target) -> bytes | None:
    """The target's bytes, or None when it does not exist yet."""
    st = ws.lstat(target)
    if st is None:
        return None
    if stat_module.S_ISLNK(st.st_mode):
        raise OperatorError(
            ErrorCode.ERR_SYMLINK_TARGET,
            (
                f"{target.rel} is a symlink; Operator does not write "
                "through symlinks; write to the file it points to"
            ),
        )
    if stat_module.S_ISDIR(st.st_mode):
        raise OperatorError(
            ErrorCode.ERR_NOT_A_FILE, f"{target.rel} is a folder; name a file inside it"
        )
    try:
        data = ws.read_file(target, max_bytes=WRITE_MAX_BYTES)
    except OperatorError as exc:
        if exc.code is ErrorCode.ERR_FILE_TOO_LARGE:
            raise OperatorError(
                ErrorCode.ERR_FILE_TOO_LARGE,
                (
                    f"{target.rel} is over the {WRITE_MAX_BYTES}-byte limit "
                    "for edits; Operator does not rewrite files that large"
                ),
            ) from None
        raise
    return data


def _text_of(target: Target, data: bytes | None) -> TextDoc:
    if data is None:
        raise OperatorError(
            ErrorCode.ERR_NOT_FOUND,
            (
                f"{target.rel} does not exist; create it with "
                "fs.write (or fs.insertRegion needs an existing file)"
            ),
        )
    return TextDoc.decode(data, label=target.rel)


def _plan(
    cmd: Command,
    target: Target,
    old: bytes | None,
    new: bytes,
    summary: str,
    *,
    before: str,
    after: str,
    notes: tuple[str, ...] = (),
) -> WritePlan:
    """`before`/`after`: the texts with "\n" line breaks that the preview diff compares (the
    planner has them already; decoding the bytes again would double the cost on big files)."""
    if len(new) > WRITE_MAX_BYTES:  # before the preview diff, which would be as large
        raise OperatorError(
            ErrorCode.ERR_FILE_TOO_LARGE,
            (
                f"{cmd.action} would make {target.rel} {len(new):,} bytes (it is "
                f"{0 if old is None else len(old):,} now), over the {WRITE_MAX_BYTES:,}-byte limit "
                "of a file Operator writes; nothing was written; split the file or the change"
            ),
        )
    if old is not None and old == new:
        return WritePlan(
            action=cmd.action,
            command_id=cmd.id,
            target=target,
            kind="noop",
            base_hash=None,
            new_bytes=new,
            diff="",
            added=0,
            removed=0,
            summary=f"No change: {target.rel} already has this content",
            base=old,
        )
    diff = text_diff(before, after, target.rel, created=old is None)
    kind: PlanKind = "create" if old is None else "modify"
    moves = None
    if old is not None:
        old_lines = before.count("\n") + (1 if before and not before.endswith("\n") else 0)
        moves = moves_clause(diff.moves, old_lines)
    counts = summary.format(added=diff.added, removed=diff.removed)
    return WritePlan(
        action=cmd.action,
        command_id=cmd.id,
        target=target,
        kind=kind,
        base_hash=None,
        new_bytes=new,
        diff=diff.text,
        added=diff.added,
        removed=diff.removed,
        summary=counts + (f"; {moves}" if moves else ""),
        notes=notes,
        base=old,
        moves=moves,
        line_moves=diff.moves,
    )


def _counts() -> str:
    return "+{added} -{removed} lines"


def plan_fs_write(cmd: FsWrite, ws: Workspace, target: Target) -> WritePlan:
    old = _existing(ws, target)
    text = cmd.text
    if old is None:
        new = new_file_bytes(text)
        lines = len(split_lines(text))
        return _plan(
            cmd,
            target,
            None,
            new,
            f"Created {target.rel} ({count(lines, 'line')}, {len(new)} bytes)",
            before="",
            after=text.replace("\r\n", "\n"),
        )
    try:
        doc = TextDoc.decode(old, label=target.rel)
    except OperatorError:
        # Replacing a binary or non-UTF-8 file with text is allowed (the person sees it and it can
        # be undone); only its conventions cannot be kept.
        new = new_file_bytes(text)
        return _plan(
            cmd,
            target,
            old,
            new,
            f"Wrote {target.rel}: replaced {len(old)} bytes "
            f"of non-text content with {len(new)} bytes",
            before="",
            after=text,
            notes=("the old content is not UTF-8 text; the diff shows only the new text",),
        )
    # The whole text is new, so no untouched line of a mixed file is at stake: CRLF content for an
    # LF file takes the file's line endings too, as the spec promises (conform alone keeps a "\r"
    # that an edit of an LF file carries, since there it may be part of the line).
    after = doc.conform(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    new = doc.encode_conformed(after)
    return _plan(
        cmd,
        target,
        old,
        new,
        f"Wrote {target.rel}: {_counts()} ({len(new)} bytes)",
        before=doc.text,
        after=after,
    )


def plan_fs_apply_edits(cmd: FsApplyEdits, ws: Workspace, target: Target) -> WritePlan:
    from ...textops.edits import apply_edits

    old = _existing(ws, target)
    doc = _text_of(target, old)
    outcome = apply_edits(doc.text, cmd.edits_b64, label=target.rel)
    after = doc.conform(outcome.text)
    edits = count(outcome.applied, "edit")
    return _plan(
        cmd,
        target,
        old,
        doc.encode_conformed(after),
        f"Applied {edits} to {target.rel}: {_counts()}",
        before=doc.text,
        after=after,
    )


def plan_fs_patch(cmd: FsPatch, ws: Workspace, target: Target) -> WritePlan:
    from ...textops.patch import apply_patch

    old = _existing(ws, target)
    doc = TextDoc.decode(old, label=target.rel) if old is not None else None
    outcome = apply_patch(
        doc.text if doc is not None else None,
        cmd.patch_b64,
        label=target.rel,
        crlf=doc is not None and doc.newline == "\r\n",
        bom=doc is not None and doc.bom,
    )
    hunks = count(outcome.hunks, "hunk")
    if doc is None:
        return _plan(
            cmd,
            target,
            None,
            new_file_bytes(outcome.text),
            f"Created {target.rel} from a patch: {hunks}, {_counts()}",
            before="",
            after=outcome.text,
        )
    # The patch itself says whether the file ends with a newline, so it is not forced back.
    after = doc.conform(outcome.text, keep_final_newline=False)
    return _plan(
        cmd,
        target,
        old,
        doc.encode_conformed(after),
        f"Patched {target.rel}: {hunks}, {_counts()}",
        before=doc.text,
        after=after,
    )


def plan_region(cmd: MarkerFields, ws: Workspace, target: Target) -> WritePlan:
    from ....protocol.commands.regions import (  # declared already: cmd is one of them
        FsInsertRegion,
        FsReplaceRegion,
    )
    from ...textops import regions
    from ...textops.styles import style_for

    old = _existing(ws, target)
    doc = _text_of(target, old)
    style = style_for(cmd, target.rel)
    if isinstance(cmd, FsInsertRegion):
        text = regions.insert_region(
            doc.text,
            style,
            cmd.marker_id,
            cmd.anchor,
            cmd.content_b64,
            position=cmd.position,
            occurrence=cmd.occurrence,
            label=target.rel,
        )
        summary = (
            f"Inserted region {cmd.marker_id} in {target.rel} {cmd.position} "
            f"the line holding {json.dumps(cmd.anchor)}: {_counts()}"
        )
    elif isinstance(cmd, FsReplaceRegion):
        text = regions.replace_region(
            doc.text, style, cmd.marker_id, cmd.content_b64, label=target.rel
        )
        summary = f"Replaced region {cmd.marker_id} in {target.rel}: {_counts()}"
    else:
        text = regions.delete_region(doc.text, style, cmd.marker_id, label=target.rel)
        summary = f"Emptied region {cmd.marker_id} in {target.rel} (markers kept): {_counts()}"
    after = doc.conform(text)
    return _plan(
        cmd, target, old, doc.encode_conformed(after), summary, before=doc.text, after=after
    )


_CONTENT_PLANNERS: dict[str, Callable[..., WritePlan]] = {  # action -> planner
    "fs.write": plan_fs_write,
    "fs.applyEdits": plan_fs_apply_edits,
    "fs.patch": plan_fs_patch,
    "fs.insertRegion": plan_region,
    "fs.replaceRegion": plan_region,
    "fs.deleteRegion": plan_region,
}
CONTENT_ACTIONS = tuple(_CONTENT_PLANNERS)


def plan_content(cmd: Command, ws: Workspace) -> WritePlan:
    """The plan of a command that changes one file's content (an action of CONTENT_ACTIONS)."""
    target = ws.target(cmd.path_or_none or "")
    if not target.parts:
        raise OperatorError(
            ErrorCode.ERR_NOT_A_FILE,
            f"{cmd.action} needs a file path; . is the workspace root folder",
        )
    return _CONTENT_PLANNERS[cmd.action](cmd, ws, target)
