"""Results for writes the app died in the middle of. An approved write is recorded as an intent
(session.record_intent) before its commit; its result is recorded after. If the app dies in
between, the intent has no result, and the model would never hear of a change that may well
be on disk. Recovery, run under the session lock before the next message and before results
are printed or shown again, asks the journal whether the change landed and records the result
the model should have had: the ok summary if it did, an error saying nothing changed if not."""

from __future__ import annotations

from dataclasses import replace

from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.results import string_failed, string_ok
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.results import CommandResult, failed
from ..boundary.workspace import Workspace
from ..safety.journal import Journal, JournalEntry
from ..safety.sweep import sweep_temps
from ..state.session import Session, WriteIntent
from .kinds import kind_of_entry
from .outcomes import NotPutBack

CLOCK_SLACK_S = 2.0  # a journal entry is made just after its intent; allow for a clock step back


def recover_interrupted_writes(ws: Workspace, session: Session) -> list[tuple[int, CommandResult]]:
    """Record a result for every approved write that has none; return what was recorded, each
    with the number of the message it belongs to. Call it with the session lock held."""
    intents = session.unresolved_intents()
    if not intents:
        return []
    journal = Journal(session.state_dir)
    # The killed commit's temporary file (its new bytes) sits beside the target, where the model's
    # next fs.list or fs.searchTree would find it; without this it stays until the next write.
    sweep_temps(ws, journal)
    entries = journal.entries()
    recovered = []
    for intent in intents:
        if intent.extra.get("dialect") == "string":
            result = _string_outcome(ws, journal, entries, intent)
            # As for any write: a change that landed burns its block; one that did not leaves
            # the block free to be sent again.
            key = intent.content_key if result.ok else None
            session.record_result(intent.message, result, key)
            recovered.append((intent.message, result))
            continue
        entry = _entry_of(intent, entries)
        landed = False if entry is None else _landed(ws, journal, entry)
        if isinstance(landed, NotPutBack):
            error = OperatorError(
                ErrorCode.ERR_DELETE_INCOMPLETE,
                (
                    f"Operator stopped while applying {intent.action} to {intent.path}, and "
                    "something new is at its place now, so the entry was not put back: it "
                    f"is {landed.where}; tell the person, and do not send the command again"
                ),
            )
            result = failed(
                intent.command_id, error, action=intent.action, path=intent.path, line=intent.line
            )
            # it did leave its place
            session.record_result(intent.message, result, intent.content_key)
        elif landed and entry is not None:
            result = CommandResult(
                id=intent.command_id,
                ok=True,
                summary=entry.summary or intent.summary,
                action=intent.action,
                path=intent.path,
                line=intent.line,
                extra={"recovered": True},
            )
            session.record_result(intent.message, result, intent.content_key)
        else:
            error = OperatorError(
                ErrorCode.ERR_INTERNAL,
                (
                    f"Operator stopped while applying {intent.action} to "
                    f"{intent.path}; the change was not made; send the command again"
                )
                if landed is False
                else (
                    f"Operator stopped while applying {intent.action} to {intent.path}, "
                    "and the file has changed since: whether the change was made is "
                    "not known; read it (fs.readSlice) before sending the command again"
                ),
            )
            result = failed(
                intent.command_id, error, action=intent.action, path=intent.path, line=intent.line
            )
            # nothing changed: the id stays free
            session.record_result(intent.message, result, None)
        recovered.append((intent.message, result))
    return recovered


CLI_HOW = "operator-app results --message {number} prints its results to copy back"


def recovery_notices(recovered: list[tuple[int, CommandResult]], how: str = CLI_HOW) -> list[str]:
    """One line per message whose results recovery completed: the model has not seen them yet,
    and they belong to that earlier message, not to the one being run now. `how` says how to
    get that message's results ({number} is filled in)."""
    by_message: dict[int, list[CommandResult]] = {}
    for number, result in recovered:
        by_message.setdefault(number, []).append(result)
    return [
        f"Operator stopped during a write of message {number} last time; the result of "
        + ", ".join(f"{r.shown_id} ({'ok' if r.ok else r.error_code})" for r in results)
        + " is now recorded with that message: "
        + how.format(number=number)
        for number, results in sorted(by_message.items())
    ]


def _entry_of(intent: WriteIntent, entries: list[JournalEntry]) -> JournalEntry | None:
    for entry in reversed(entries):
        if (
            entry.command_id == intent.command_id
            and entry.rel == intent.path
            and entry.time >= intent.time - CLOCK_SLACK_S
        ):
            return entry
    return None


def _landed(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | NotPutBack | None:
    """Did the change take effect (whatever happened to it since, an undo included)? None when
    what is on disk tells neither; the kind of change decides (changes/kinds.py)."""
    if entry.committed or entry.undone:
        return True
    return kind_of_entry(entry).recover(ws, journal, entry)


def _string_outcome(
    ws: Workspace, journal: Journal, entries: list[JournalEntry], intent: WriteIntent
) -> CommandResult:
    """The result, in String's form, of a String change the app died in the middle of: its
    confirmation when it landed (an /undo landed when the change it takes back is undone),
    else an error that says nothing changed, or that it is not known."""
    undoes = intent.extra.get("undoes")
    if undoes is not None:
        taken_back = next((e for e in entries if e.seq == undoes), None)
        landed: bool | NotPutBack | None = taken_back is not None and taken_back.undone
    else:
        entry = _entry_of(intent, entries)
        landed = False if entry is None else _landed(ws, journal, entry)
    topic = str(intent.extra.get("topic", "file:main"))
    request = str(intent.extra.get("request", intent.action))
    at = str(intent.extra.get("at", ""))
    if landed is True:
        result = string_ok(
            intent.command_id,
            topic=topic,
            request=request,
            at=at,
            message=intent.summary,
            action=intent.action,
            path=intent.path,
            line=intent.line,
        )
        return replace(result, extra={"recovered": True})
    if landed is False:
        error = StringError(
            StringCode.WRITE_FAILED,
            f"Operator stopped while making this change to ~/{intent.path}; it was not made",
            "send the block again in a new message",
        )
    else:
        error = StringError(
            StringCode.WRITE_FAILED,
            f"Operator stopped while making this change to ~/{intent.path}, and the file has "
            "changed since: whether the change was made is not known",
            f"/open ~/{intent.path} before sending it again",
        )
    return string_failed(
        intent.command_id,
        error,
        topic=topic,
        request=request,
        at=at,
        action=intent.action,
        path=intent.path,
        line=intent.line,
    )
