"""Results for writes the app died in the middle of. An approved write is recorded as an intent
(session.record_intent) before its commit; its result is recorded after. If the app dies in
between, the intent has no result, and the model would never hear of a change that may well
be on disk. Recovery, run under the session lock before the next message and before results
are printed or shown again, asks the journal whether the change landed and records the result
the model should have had: the ok summary if it did, an error saying nothing changed if not."""

from __future__ import annotations

from collections.abc import Callable

from ...protocol.results import CommandResult
from ..boundary.workspace import Workspace
from ..safety.journal import Journal, JournalEntry
from ..safety.sweep import sweep_temps
from ..state.session import Session, WriteIntent
from .kinds import kind_of_entry
from .outcomes import Landing, NotPutBack

CLOCK_SLACK_S = 2.0  # a journal entry is made just after its intent; allow for a clock step back


Phrase = Callable[[WriteIntent, Landing], CommandResult]


def recover_interrupted_writes(
    ws: Workspace, session: Session, phrase: Phrase
) -> list[tuple[int, CommandResult]]:
    """Record a result for every approved write that has none; return what was recorded, each
    with the number of the message it belongs to. `phrase` gives the result in the form of the
    write's dialect (engine/recovering.py asks the dialect). Call it with the session lock held."""
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
        landing = _landing(ws, journal, entries, intent)
        result = phrase(intent, landing)
        # A change that landed burns its block's id, as one that left its place does (a delete
        # not put back); one that did not leaves it free to be sent again.
        landed = result.ok or isinstance(landing.landed, NotPutBack)
        session.record_result(intent.message, result, intent.content_key if landed else None)
        recovered.append((intent.message, result))
    return recovered


def _landing(
    ws: Workspace, journal: Journal, entries: list[JournalEntry], intent: WriteIntent
) -> Landing:
    undoes = intent.extra.get("undoes")
    if undoes is not None:  # an undo landed when the change it takes back is undone
        taken_back = next((e for e in entries if e.seq == undoes), None)
        return Landing(taken_back is not None and taken_back.undone, intent.summary)
    entry = _entry_of(intent, entries)
    if entry is None:
        return Landing(False, intent.summary)
    return Landing(_landed(ws, journal, entry), entry.summary or intent.summary)


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
