"""The String commands that change a file, each mapped onto an action the engine already has, so
every one is planned, shown as a diff and asked about, committed atomically, journalled,
recovered after a crash and undone like any other write: /write, /append and /edit of a whole
file are fs.write; /replace and /edit of a block or of lines are fs.applyEdits' replaceRange;
/undo is the engine's undo of the topic's last change, asked about first.

A change to a file this topic read is refused with CONFLICT when the file changed on disk since;
the plan is refused the same way if the file changes between the topic's look and the plan's."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from ...protocol.chanflow.commands import Location, parse_location, usage_error
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.responses import numbered_change
from ...protocol.chanflow.results import confirmation
from ...protocol.commands.base import Command
from ...protocol.commands.catalog import model_for
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.grammar import WRITE_MAX_BYTES
from ...protocol.results import count
from ..boundary.target import Target
from ..changes.outcomes import UndoRefused
from ..changes.plan import WritePlan
from ..changes.undo import undo_entry, undoable
from ..safety.journal import Journal, JournalEntry, PreImageMismatch
from ..textops.diff import unified_diff
from ..textops.textfile import TextDoc, split_lines
from .context import Answer, Call
from .documents import Doc, block_of, check_lines, decode, digest, read_bytes, short, target_of
from .mapping import not_approved_in_string, told_in_string

Message = Callable[[WritePlan], str]  # a change's confirmation, from its plan


def _command(call: Call, action: str, rel: str, **fields: str) -> Command:
    model = model_for(action)
    assert model is not None
    return model.model_validate(
        {"version": "1", "id": call.request_id, "action": action, "path": rel, **fields}
    )


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


def _run(call: Call, doc: Doc | None, target: Target, command: Command, message: Message) -> Answer:
    """Run the change through the engine: planned, shown, asked about, committed. The plan must
    start from the very bytes the new text was made from."""
    base = doc.data if doc is not None else None
    accepted: list[WritePlan] = []

    def accept(plan: WritePlan) -> OperatorError | None:
        if plan.base != base:
            return OperatorError(
                ErrorCode.ERR_CONFLICT,
                f"{target.rel} changed while the change was being prepared; nothing was changed",
            )
        accepted.append(plan)
        return None

    def before_commit(plan: WritePlan) -> None:
        # What recovery answers if the app dies before the result is recorded but after the
        # change landed: the same confirmation.
        call.record_intent(call.command, plan.target.rel, message(plan), {})

    result = call.context.execute(
        command,
        before_commit=before_commit,
        accept_plan=accept,
        action_label=call.command,
    )
    if not result.ok:
        if result.error_code == ErrorCode.ERR_NOT_APPROVED.value:
            raise not_approved_in_string(call.request.line)
        if result.status == "rejected":
            raise StringError(
                StringCode.REJECTED,
                f"the person declined {call.request.line}; nothing changed",
                "ask them what they want before trying again",
            )
        code = ErrorCode(result.error_code) if result.error_code else ErrorCode.ERR_INTERNAL
        error = OperatorError(code, result.summary.partition(": ")[2] or result.summary)
        raise told_in_string(error, writing=True)
    plan = accepted[-1]
    call.topic.read[target.rel] = digest(plan.new_bytes) or ""
    if plan.kind != "noop":
        call.topic.changes.append(call.request_id)
    change = numbered_change(plan.diff) if plan.diff else "(no change: the file already holds this)"
    cut = result.extra.get("undo_cut")
    return Answer(
        message(plan),
        content=change,
        path=target.rel,
        diff=plan.diff or None,
        context=(str(cut),) if cut else (),
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
    doc = _current(call, target, shown)
    text = as_lines(call.request.body or "")
    command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        size, lines = _size(plan), count(len(split_lines(text)), "line")
        return confirmation(f"Written: {shown} ({count(size, 'byte')}, {lines})")

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
    text = old + joint + as_lines(call.request.body)
    command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        return confirmation(f"Appended to: {shown} (now {count(_size(plan), 'byte')})")

    return _run(call, doc, target, command, message)


def _replace_part(call: Call, location: Location, what: str) -> Answer:
    """Replace the block or the lines `location` names with the block's content."""
    body = call.request.body
    assert body is not None
    target, shown = target_of(call, location)
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
            return confirmation(f"Edited {shown} ({count(len(new_lines), 'line')})")
        added, removed = count(plan.added, "line"), count(plan.removed, "line")
        return confirmation(f"{shown} \u2014 Added {added}, removed {removed}")

    return _run(call, doc, target, command, message)


def cmd_replace(call: Call) -> Answer:
    location = parse_location("replace", call.request.argument)
    if location.block is None and location.lines is None:
        raise usage_error("replace", "/replace names lines (path:L5-L10) or a block (path#id)")
    if call.request.body is None:
        raise usage_error("replace", "/replace needs the new lines after the command line")
    return _replace_part(call, location, "replace")


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
    text = as_lines(call.request.body or "")
    command = _command(call, "fs.write", target.rel, content_b64=_b64(text))

    def message(plan: WritePlan) -> str:
        return confirmation(f"Edited {shown} ({count(len(split_lines(text)), 'line')}, whole file)")

    return _run(call, doc, target, command, message)


# --- /undo ----------------------------------------------------------------------------------


def _last_change(call: Call, journal: Journal) -> JournalEntry:
    """The newest change of this topic that is still in effect."""
    mine = set(call.topic.changes)
    for entry in undoable(call.ws, journal):
        if entry.command_id in mine:
            return entry
    if any(entry.cut and entry.command_id in mine for entry in journal.entries()):
        raise StringError(
            StringCode.NO_HISTORY,
            "this topic's remaining changes can no longer be undone: they were let go of to keep "
            "the undo journal within its budget",
            "/open the file and write back what you want",
        )
    raise StringError(
        StringCode.NO_HISTORY,
        "no change of this topic to undo",
        "changes made by other topics or by OPERATOR_CMD are not this topic's",
    )


def cmd_undo(call: Call) -> Answer:
    journal = Journal(call.context.session.state_dir)
    entry = _last_change(call, journal)
    target = call.ws.target(entry.rel)
    shown = f"~/{entry.rel}"
    data = read_bytes(call, target, limit=WRITE_MAX_BYTES, writing=True)
    if digest(data) != entry.new_sha:
        raise StringError(
            StringCode.CONFLICT,
            f"{shown} changed since this topic's change; it cannot be taken back",
            f"expected: {short(entry.new_sha)}",
            f"current: {short(digest(data))}",
            "/refresh it, and write the part you want back",
        )
    before: bytes | None = None
    if entry.kind != "create":
        try:
            before = journal.pre_image(entry, data)
        except (OSError, PreImageMismatch):
            raise StringError(
                StringCode.WRITE_FAILED,
                f"the saved copy of {shown} from before the change is missing; nothing changed",
            ) from None
    old_text = TextDoc.decode(data, label=entry.rel).text if data else ""
    new_text = TextDoc.decode(before, label=entry.rel).text if before else ""
    diff, added, removed = unified_diff(old_text, new_text, entry.rel, deleted=before is None)
    summary = f"Undo: reverted {shown}" if before is not None else f"Undo: removed {shown}"
    plan = WritePlan(
        action="/undo",
        command_id=call.request_id,
        target=target,
        kind="modify" if before is not None else "delete",
        base_hash=None,
        new_bytes=before,
        diff=diff,
        added=added,
        removed=removed,
        summary=summary,
    )
    if not call.context.consent(plan):
        if call.context.nobody_to_ask:
            raise not_approved_in_string(f"/undo of {shown}")
        raise StringError(
            StringCode.REJECTED,
            f"the person declined /undo of {shown}; nothing changed",
            "ask them what they want before trying again",
        )
    lines = count(len(split_lines(new_text)), "line")
    message = confirmation(
        f"Undo: reverted {shown} ({lines})" if before is not None else f"Undo: removed {shown}"
    )
    call.record_intent("/undo", entry.rel, message, {"undoes": entry.seq})
    try:
        undo_entry(call.ws, journal, entry)
    except (UndoRefused, OperatorError) as exc:
        raise StringError(StringCode.WRITE_FAILED, f"{exc}") from None
    call.topic.changes.remove(entry.command_id)
    call.topic.read[entry.rel] = digest(before) or ""
    if before is None:
        call.topic.read.pop(entry.rel, None)
    return Answer(
        message,
        content=numbered_change(diff) if diff else None,
        path=entry.rel,
        diff=diff,
    )
