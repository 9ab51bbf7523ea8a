"""The line-number rule for OPERATOR_CMD (docs/design.md): the lines an fs.applyEdits
replaceRange or an fs.patch hunk names count the file as it was when the message began. Before
such a command runs, each of its ranges is carried through the writes the message made so far
(engine/messages/lines.py); one whose lines they moved or changed refuses the command with
ERR_LINES_MOVED, the range to send and those lines as they are now."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...protocol.errors import ErrorCode, OperatorError

if TYPE_CHECKING:
    from ...protocol.commands.base import Command
    from ..messages.interface import MessageContext
    from ..messages.lines import LinesMoved

_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)


def line_ranges(command: Command) -> list[tuple[str, int, int]]:
    """(which part, first line, last line) of each range of lines the command names."""
    if command.action == "fs.applyEdits":
        edits = command.__dict__.get("edits_b64") or ()
        return [
            (f"edit #{index + 1} (edits[{index}], replaceRange)", edit.start_line, edit.end_line)
            for index, edit in enumerate(edits)
            if edit.op == "replaceRange"
        ]
    if command.action == "fs.patch":
        ranges = []
        patch = command.__dict__.get("patch_b64") or ""
        for index, match in enumerate(_HUNK_RE.finditer(patch)):
            start, size = int(match.group(1)), int(match.group(2) or "1")
            first = max(start, 1)
            ranges.append((f"hunk {index + 1} ({match.group(0)})", first, first + max(size, 1) - 1))
        return ranges
    return []


def lines_moved(context: MessageContext, command: Command) -> OperatorError | None:
    """ERR_LINES_MOVED for the first range of `command` whose lines an earlier write of the
    message moved or changed; None when every range still names the lines it named."""
    ranges = line_ranges(command)
    if not ranges:
        return None
    try:
        rel = context.workspace.target(command.path_or_none or "").rel
    except OperatorError:
        return None  # the command fails on its path when it runs
    for where, first, last in ranges:
        moved = context.lines.moved(context.workspace, rel, first, last)
        if moved is not None:
            return _refusal(command, where, moved)
    return None


def _refusal(command: Command, where: str, moved: LinesMoved) -> OperatorError:
    if moved.by_command:
        return _after_command(where, moved)
    (first, last), (now_first, now_last) = moved.asked, moved.now
    ids = ", ".join(moved.by)
    writes = "write" if len(moved.by) == 1 else "writes"
    if command.action == "fs.patch":
        again = f"the patch again with that hunk at line {now_first}"
    else:
        again = f"the edit again with startLine {now_first}, endLine {now_last}"
    message = (
        f"{where} of {moved.rel}: your lines {first}-{last} count the file as it was when your "
        f"message began, and the earlier {writes} {ids} of this message moved them or changed "
        f"lines inside them; they are now lines {now_first}-{now_last} (shown in details); "
        f"nothing was written; if those are the lines you meant, send {again} and a new id "
        "(several line edits of one file in one message go bottom-up, highest lines first)"
    )
    return OperatorError(ErrorCode.ERR_LINES_MOVED, message, _shown(moved))


def _after_command(where: str, moved: LinesMoved) -> OperatorError:
    """A command of the message changed the file: where the lines went is not known."""
    first, last = moved.asked
    message = (
        f"{where} of {moved.rel}: your lines {first}-{last} count the file as it was when your "
        f"message began, and the command {moved.by[0]} of this message (shell.run) changed the "
        "file since, so where those lines are now is not known; nothing was written; lines "
        f"{first}-{last} as they are now are in details; read the file again with fs.readSlice "
        "and send the edit with a new id (give line edits of a file before a command that "
        "changes it)"
    )
    return OperatorError(ErrorCode.ERR_LINES_MOVED, message, _shown(moved))


def _shown(moved: LinesMoved) -> str:
    """The lines the refusal shows, as they are now, numbered."""
    now_first, now_last = moved.now
    header = f"# {moved.rel}: lines {now_first}-{now_last} of {moved.total}, as they are now"
    rows, previous = [header], None
    for number, text in moved.lines:
        if previous is not None and number != previous + 1:
            rows.append("# ...")
        rows.append(f"{number}: {text}")
        previous = number
    return "\n".join(rows)
