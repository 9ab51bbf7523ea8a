"""String's /undo: the engine's undo of the topic's last change still in effect, whatever kind
of change it was (a file's content, or an entry Operator's own /mv, /cp or /rm moved, copied or
put in the trash), asked about first like any change (with the diff, or what goes where), and
recorded as an intent that names the change it takes back, so recovery knows whether it
landed. Its answer carries the record of what it did (protocol/outcomes.py `ChangeOutcome`, with
`undoes`: the change it took back), which the message's line bookkeeping reads as it reads any
change's."""

from __future__ import annotations

from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.responses import numbered_change
from ...protocol.chanflow.results import confirmation
from ...protocol.errors import OperatorError
from ...protocol.grammar import WRITE_MAX_BYTES
from ...protocol.results import count
from ..boundary.target import Target
from ..changes.apply import change_record
from ..changes.outcomes import UndoRefused
from ..changes.plan import PlanKind, WritePlan
from ..changes.undo import undo_entry, undoable
from ..safety.journal import Journal, JournalEntry, PreImageMismatch
from ..textops.diff import TextDiff, text_diff
from ..textops.line_moves import moves_clause
from ..textops.textfile import TextDoc, split_lines
from .actions import declined
from .context import Answer, Call
from .documents import digest, read_bytes, short
from .mapping import not_approved_in_string


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
        "changes made by other topics, or not by String commands, are not this topic's",
    )


def cmd_undo(call: Call) -> Answer:
    journal = Journal(call.context.session.state_dir)
    entry = _last_change(call, journal)
    if entry.kind not in ("create", "modify"):
        return _undo_entry_change(call, journal, entry)
    target = call.ws.target(entry.rel)
    shown = f"~/{entry.rel}"
    data = _as_left(call, target, entry, shown)
    before = _before(journal, entry, data, shown)
    old_text = TextDoc.decode(data, label=entry.rel).text if data else ""
    new_text = TextDoc.decode(before, label=entry.rel).text if before else ""
    diff = text_diff(old_text, new_text, entry.rel, deleted=before is None)
    plan = WritePlan(
        action="/undo",
        command_id=call.request_id,
        target=target,
        kind="modify" if before is not None else "delete",
        base_hash=None,
        new_bytes=before,
        diff=diff.text,
        added=diff.added,
        removed=diff.removed,
        summary=f"Undo: reverted {shown}" if before is not None else f"Undo: removed {shown}",
        notes=(call.lookalike,) if call.lookalike else (),
        asked_alone=call.lookalike is not None,
        base=data,
        line_moves=diff.moves,
    )
    _ask(call, plan, shown)
    message = confirmation(_reverted(shown, before, diff, old_text, new_text))
    _take_back(call, journal, entry, message)
    _record(call, plan, entry)
    call.topic.read[entry.rel] = digest(before) or ""
    if before is None:
        call.topic.read.pop(entry.rel, None)
    return Answer(
        message,
        content=numbered_change(diff.text) if diff.text else None,
        path=entry.rel,
        diff=diff.text,
    )


def _as_left(call: Call, target: Target, entry: JournalEntry, shown: str) -> bytes | None:
    """The file as the change left it; CONFLICT when it changed since."""
    data = read_bytes(call, target, limit=WRITE_MAX_BYTES, writing=True)
    if digest(data) != entry.new_sha:
        raise StringError(
            StringCode.CONFLICT,
            f"{shown} changed since this topic's change; it cannot be taken back",
            f"expected: {short(entry.new_sha)}",
            f"current: {short(digest(data))}",
            "/refresh it, and write the part you want back",
        )
    return data


def _before(journal: Journal, entry: JournalEntry, data: bytes | None, shown: str) -> bytes | None:
    """The file's bytes before the change (None: the change created it)."""
    if entry.kind == "create":
        return None
    try:
        return journal.pre_image(entry, data)
    except (OSError, PreImageMismatch):
        raise StringError(
            StringCode.WRITE_FAILED,
            f"the saved copy of {shown} from before the change is missing; nothing changed",
        ) from None


def _reverted(
    shown: str, before: bytes | None, diff: TextDiff, old_text: str, new_text: str
) -> str:
    """What the undo did, as its confirmation says it."""
    if before is None:
        return f"Undo: removed {shown}"
    lines = count(len(split_lines(new_text)), "line")
    moves = moves_clause(diff.moves, len(split_lines(old_text)))
    return f"Undo: reverted {shown} ({lines}{'; ' + moves if moves else ''})"


def _record(call: Call, plan: WritePlan, entry: JournalEntry) -> None:
    """The undo's record, made once: the answer carries it, and the message's line bookkeeping
    reads it (docs/design.md, "the line-number rule")."""
    record = change_record(call.ws, plan, seq=None, rewrote=False, undoes=entry.seq)
    call.outcome = record
    call.context.lines.committed(record, call.request_id)


def _ask(call: Call, plan: WritePlan, shown: str) -> None:
    if not call.context.consent(plan):
        if call.context.nobody_to_ask:
            raise not_approved_in_string(f"/undo of {shown}")
        raise declined(f"/undo of {shown}")


def _take_back(call: Call, journal: Journal, entry: JournalEntry, message: str) -> None:
    call.record_intent("/undo", entry.rel, message, {"undoes": entry.seq})
    try:
        undo_entry(call.ws, journal, entry)
    except (UndoRefused, OperatorError) as exc:
        raise StringError(StringCode.WRITE_FAILED, f"{exc}; nothing changed") from None
    call.topic.changes.remove(entry.command_id)


def _undo_entry_change(call: Call, journal: Journal, entry: JournalEntry) -> Answer:
    """/undo of a /mv, /cp or /rm: the entry moved back, the copy removed, or the entry brought
    back from the trash. The undo itself refuses when the entries are not as the change left
    them (changes/undo.py)."""
    shown, shown_to = f"~/{entry.rel}", f"~/{entry.rel_to}"
    kind: PlanKind
    if entry.kind == "move" and entry.rel_to is not None:
        target, target_to = call.ws.walked(entry.rel_to), call.ws.walked(entry.rel)
        kind, what = "move", f"moves {shown_to} back to {shown}"
        message = f"Undo: moved {shown_to} back to {shown}"
    elif entry.kind == "copy" and entry.rel_to is not None:
        target, target_to = call.ws.walked(entry.rel_to), None
        kind, what = "delete", f"removes {shown_to}, the copy of {shown}"
        message = f"Undo: removed {shown_to}, the copy of {shown}"
    else:
        target, target_to = call.ws.walked(entry.rel), None
        kind, what = "create", f"brings {shown} back from the trash"
        message = f"Undo: restored {shown} from the trash"
    if entry.replaced and entry.kind == "copy":  # the copy went over a file: that file is back
        what = f"puts {shown_to} back as it was before the copy of {shown}"
        message = f"Undo: {shown_to} is back as it was before the copy of {shown}"
    elif entry.replaced:
        what += " and puts back the file it replaced"
        message += " (and put back the file it replaced)"
    plan = WritePlan(
        action="/undo",
        command_id=call.request_id,
        target=target,
        target_to=target_to,
        kind=kind,
        base_hash=None,
        new_bytes=None,
        diff=f"/undo {what} (the change [{entry.command_id}] of this topic)",
        added=0,
        removed=0,
        summary=message,
        notes=(call.lookalike,) if call.lookalike else (),
        asked_alone=call.lookalike is not None,
    )
    _ask(call, plan, shown)
    _take_back(call, journal, entry, confirmation(message))
    _record(call, plan, entry)
    for rel in (entry.rel, entry.rel_to):
        if rel is not None:
            call.topic.read.pop(rel, None)
    return Answer(confirmation(message), path=entry.rel)
