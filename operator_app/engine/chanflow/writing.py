"""The String commands that change a file, each mapped onto an action the engine already has, so
every one is planned, shown as a diff and asked about, committed atomically, journalled,
recovered after a crash and undone like any other write: /write, /append and /edit of a whole
file are fs.write; /replace and /edit of a block or of lines, and Operator's own /insert, are
fs.applyEdits' replaceRange;
/undo is the engine's undo of the topic's last change, asked about first.

A change to a file this topic read is refused with CONFLICT when the file changed on disk since;
the plan is refused the same way if the file changes between the topic's look and the plan's."""

from __future__ import annotations

import base64
import json

from ...protocol.chanflow.commands import Location, parse_location, usage_error
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.insert import read_insert
from ...protocol.chanflow.responses import numbered_change
from ...protocol.chanflow.results import confirmation
from ...protocol.commands.base import Command
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.grammar import WRITE_MAX_BYTES
from ...protocol.results import count
from ..boundary.target import Target
from ..changes.plan import WritePlan
from ..textops.textfile import split_lines
from .actions import Message, command_for, run_change
from .content import content_of
from .context import Answer, Call
from .documents import (
    Doc,
    block_of,
    check_lines,
    decode,
    digest,
    missing,
    numbered,
    read_bytes,
    short,
    target_of,
)


def _command(call: Call, action: str, rel: str, **fields: str) -> Command:
    return command_for(call, action, {"path": rel, **fields})


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def _current(call: Call, target: Target, shown: str) -> Doc | None:
    """The file as it is now (None: it does not exist); CONFLICT when this topic read it and it
    changed on disk since."""
    data = read_bytes(call, target, limit=WRITE_MAX_BYTES, writing=True)
    expected = call.topic.read.get(target.rel)
    now = digest(data)
    if expected is not None and now != expected:
        raise StringError(
            StringCode.CONFLICT,
            "file has been modified since last read",
            f"expected: {short(expected)}",
            f"current: {short(now)}",
            "use /refresh to reload, then retry",
        )
    return None if data is None else Doc(target, shown, data, decode(target, data))


def _run(
    call: Call,
    doc: Doc | None,
    target: Target,
    command: Command,
    message: Message,
    *,
    rewrites: bool | None = None,
) -> Answer:
    """Run the change through the engine: planned, shown, asked about, committed. The plan must
    start from the very bytes the new text was made from. `rewrites`: see MessageContext.execute
    (None: /write and /edit of a whole file give its whole text)."""
    base = doc.data if doc is not None else None

    def accept(plan: WritePlan) -> OperatorError | None:
        if plan.base != base:
            return OperatorError(
                ErrorCode.ERR_CONFLICT,
                f"{target.rel} changed while the change was being prepared; nothing was changed",
            )
        return None

    changed = run_change(call, command, message, accept=accept, rewrites=rewrites)
    plan = changed.plan
    call.topic.read[target.rel] = digest(plan.new_bytes) or ""
    if plan.diff:
        change = numbered_change(plan.diff)
    elif plan.base is None:  # a new, empty file: no lines to show, but a change all the same
        change = "(a new, empty file)"
    else:
        change = "(no change: the file already holds this)"
    return Answer(
        message(plan),
        content=change,
        path=target.rel,
        diff=plan.diff or None,
        context=changed.context,
    )


def _moves(plan: WritePlan) -> str:
    """How the change moved the lines after it, as a clause of its answer (the line-number rule)."""
    return f"; {plan.moves}" if plan.moves else ""


def _check_lines_held(call: Call, target: Target, location: Location) -> None:
    """LINES_MOVED when an earlier change of this message moved or changed the lines a :L range
    names: they count the file as it was when the message began."""
    assert location.lines is not None
    first, last = location.lines
    moved = call.context.lines.moved(call.ws, target.rel, first, last)
    if moved is None:
        return
    now_first, now_last = moved.now
    now = f":L{now_first}" + (f"-L{now_last}" if now_last != now_first else "")
    asked = f":L{first}" + (f"-L{last}" if last != first else "")
    by = ", ".join(f"[{rid}]" for rid in moved.by)
    rows, previous = [], None
    for number, text in moved.lines:
        if previous is not None and number != previous + 1:
            rows.append("\u2026")
        rows.append(numbered([text], number))
        previous = number
    where = "~/" + target.rel
    if moved.by_command:
        raise StringError(
            StringCode.LINES_MOVED,
            f"your {asked} may have moved: the script {by} of this message changed {where}, so "
            "where those lines are now is not known; nothing was written",
            f"{where}{asked} as it is now:",
            *rows,
            f"line numbers count the file as it was when your message began; /open {where} "
            "again and send the change with the lines you see (send line edits of a file before "
            "a script that changes it)",
        )
    raise StringError(
        StringCode.LINES_MOVED,
        f"your {asked} is now {now} after {by} of this message; nothing was written",
        f"{where}{now} as it is now:",
        *rows,
        "line numbers count the file as it was when your message began; if these are the lines "
        f"you meant, send /{call.request.name} {where}{now} again with the content (several line "
        "edits of one file in one message go bottom-up)",
    )


def as_lines(body: str) -> str:
    """A block's content as the lines of a file: the line break String's transport drops before
    the close tag is given back to the last line, so a written file ends with one."""
    return body + "\n" if body and not body.endswith("\n") else body


def _size(plan: WritePlan) -> int:
    return len(plan.new_bytes) if plan.new_bytes is not None else 0


def cmd_write(call: Call) -> Answer:
    location = parse_location("write", call.request.argument)
    if location.path is None or location.block or location.lines or location.version:
        raise usage_error(
            "write", "/write names a file: /write path, the content on the next lines"
        )
    target, shown = target_of(call, location)
    if call.request.body is None:
        raise usage_error(
            "write",
            "/write needs the content on the lines after the command line (for an empty file, "
            "one empty line)",
        )
    doc = _current(call, target, shown)
    text = as_lines(content_of(call) or "")
    command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        size, lines = _size(plan), count(len(split_lines(text)), "line")
        return confirmation(f"Written: {shown} ({count(size, 'byte')}, {lines}){_moves(plan)}")

    return _run(call, doc, target, command, message)


def cmd_append(call: Call) -> Answer:
    location = parse_location("append", call.request.argument)
    if location.path is None or location.block or location.lines or location.version:
        raise usage_error(
            "append", "/append names a file: /append path, the content on the next lines"
        )
    if call.request.body is None:
        raise usage_error("append", "/append needs the content on the lines after the command line")
    target, shown = target_of(call, location)
    doc = _current(call, target, shown)
    old = doc.text.text if doc is not None else ""
    joint = "" if not old or old.endswith("\n") else "\n"
    text = old + joint + as_lines(content_of(call) or "")
    command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        return confirmation(f"Appended to: {shown} (now {count(_size(plan), 'byte')})")

    return _run(call, doc, target, command, message, rewrites=False)


def _replace_part(call: Call, location: Location, what: str) -> Answer:
    """Replace the block or the lines `location` names with the block's content."""
    body = content_of(call)
    assert body is not None
    target, shown = target_of(call, location)
    if location.lines is not None:
        _check_lines_held(call, target, location)
    doc = _current(call, target, shown)
    if doc is None:
        raise StringError(StringCode.NOT_FOUND, "file not found", f"path: {shown}")
    if location.block is not None:
        block = block_of(doc, location.block)
        first, last = block.first, block.last
    else:
        assert location.lines is not None
        first, last = check_lines(doc, location.lines)
    new_lines = split_lines(body)
    if last >= first:
        edits = {
            "version": 1,
            "edits": [{"op": "replaceRange", "startLine": first, "endLine": last, "text": body}],
        }
        command = _command(call, "fs.applyEdits", target.rel, edits_b64=_b64(json.dumps(edits)))
    else:  # an empty block: nothing to replace, the content goes between its markers
        lines = doc.lines
        text = "\n".join(lines[: first - 1] + new_lines + lines[first - 1 :])
        command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        if what == "edit":
            return confirmation(f"Edited {shown} ({count(len(new_lines), 'line')}){_moves(plan)}")
        added, removed = count(plan.added, "line"), count(plan.removed, "line")
        return confirmation(f"{shown} \u2014 Added {added}, removed {removed}{_moves(plan)}")

    return _run(call, doc, target, command, message, rewrites=False)


def cmd_replace(call: Call) -> Answer:
    location = parse_location("replace", call.request.argument)
    if location.block is None and location.lines is None:
        raise usage_error("replace", "/replace names lines (path:L5-L10) or a block (path#id)")
    if call.request.body is None:
        raise usage_error("replace", "/replace needs the new lines after the command line")
    return _replace_part(call, location, "replace")


def cmd_insert(call: Call) -> Answer:
    """Operator's own /insert: the content goes after a :L range or a block (with --before,
    before it), as fs.applyEdits' replaceRange of the line it stands beside, that line kept as
    it was. A :L range is held to the line-number rule as /replace's is."""
    place = read_insert(call.request.argument)
    location = place.location
    body = content_of(call)
    if not body:
        raise usage_error("insert", "/insert needs the lines to insert, after the command line")
    target, shown = target_of(call, location)
    if location.lines is not None:
        _check_lines_held(call, target, location)
    doc = _current(call, target, shown)
    if doc is None:
        raise missing(call, target, shown)
    if location.block is not None:
        block = block_of(doc, location.block)
        first, last = block.first, block.last
    else:
        assert location.lines is not None
        first, last = check_lines(doc, location.lines)
    at = first - 1 if place.before else last  # how many of the file's lines stay above
    lines, new_lines = doc.lines, split_lines(body)
    if at < len(lines):  # the line below the new ones is rewritten as it is, below them
        anchor, text = at + 1, "\n".join([*new_lines, lines[at]])
    else:  # at the end: the last line, then the new ones
        anchor, text = at, "\n".join([lines[at - 1], *new_lines])
    if anchor < len(lines) or doc.text.final_newline:
        text += "\n"  # the rewritten line's own break (an empty last line would take it)
    edits = {
        "version": 1,
        "edits": [{"op": "replaceRange", "startLine": anchor, "endLine": anchor, "text": text}],
    }
    command = _command(call, "fs.applyEdits", target.rel, edits_b64=_b64(json.dumps(edits)))
    now = f":L{at + 1}" + (f"-L{at + len(new_lines)}" if len(new_lines) > 1 else "")

    def message(plan: WritePlan) -> str:
        added = count(len(new_lines), "line")
        return confirmation(f"{shown} \u2014 Added {added} as {now}{_moves(plan)}")

    return _run(call, doc, target, command, message, rewrites=False)


def cmd_edit(call: Call) -> Answer:
    """/edit with content: the whole file, or the block (or lines) it names."""
    location = parse_location("edit", call.request.argument)
    if location.version is not None:
        raise usage_error("edit", "a kept version cannot be edited: /open it, then /write")
    if location.block is not None or location.lines is not None:
        return _replace_part(call, location, "edit")
    target, shown = target_of(call, location)
    doc = _current(call, target, shown)
    if doc is None:
        raise StringError(
            StringCode.NOT_FOUND, "file not found", f"path: {shown}", "/write creates a file"
        )
    text = as_lines(content_of(call) or "")
    command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        lines = count(len(split_lines(text)), "line")
        return confirmation(f"Edited {shown} ({lines}, whole file){_moves(plan)}")

    return _run(call, doc, target, command, message)
