"""Results for writes the app died in the middle of. An approved write is recorded as an intent
(session.record_intent) before its commit; its result is recorded after. If the app dies in
between, the intent has no result, and the model would never hear of a change that may well
be on disk. Recovery, run under the session lock before the next message and before results
are printed or shown again, asks the journal whether the change landed and records the result
the model should have had: the ok summary if it did, an error saying nothing changed if not."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..protocol.errors import ErrorCode, OperatorError
from ..protocol.results import CommandResult, failed
from .journal import Journal, JournalEntry, PreImageMismatch
from .session import Session, WriteIntent
from .workspace import Workspace

CLOCK_SLACK_S = 2.0  # a journal entry is made just after its intent; allow for a clock step back


@dataclass(frozen=True)
class NotPutBack:
    """A delete cut short before its entry left the workspace, whose place is taken now: the
    entry stays under Operator's hidden name, at `where`."""

    where: str


def recover_interrupted_writes(ws: Workspace, session: Session) -> list[tuple[int, CommandResult]]:
    """Record a result for every approved write that has none; return what was recorded, each
    with the number of the message it belongs to. Call it with the session lock held."""
    intents = session.unresolved_intents()
    if not intents:
        return []
    journal = Journal(session.state_dir)
    # The killed commit's temporary file (its new bytes) sits beside the target, where the model's
    # next fs.list or fs.searchTree would find it; without this it stays until the next write.
    from .commit import sweep_temps

    sweep_temps(ws, journal)
    entries = journal.entries()
    recovered = []
    for intent in intents:
        entry = _entry_of(intent, entries)
        landed = False if entry is None else _landed(ws, journal, entry)
        if isinstance(landed, NotPutBack):
            error = OperatorError(ErrorCode.ERR_DELETE_INCOMPLETE, (
                f"Operator stopped while applying {intent.action} to {intent.path}, and something new is at its place "
                f"now, so the entry was not put back: it is {landed.where}; tell the person, and do not send the command again"
            ))
            result = failed(intent.command_id, error, action=intent.action, path=intent.path, line=intent.line)
            session.record_result(intent.message, result, intent.content_key)  # it did leave its place
        elif landed and entry is not None:
            result = CommandResult(id=intent.command_id, ok=True, summary=entry.summary or intent.summary,
                                   action=intent.action, path=intent.path, line=intent.line,
                                   extra={"recovered": True})
            session.record_result(intent.message, result, intent.content_key)
        else:
            error = OperatorError(ErrorCode.ERR_INTERNAL, (
                f"Operator stopped while applying {intent.action} to {intent.path}; the change was not made; "
                "send the command again"
            ) if landed is False else (
                f"Operator stopped while applying {intent.action} to {intent.path}, and the file has changed since: "
                "whether the change was made is not known; read it (fs.readSlice) before sending the command again"
            ))
            result = failed(intent.command_id, error, action=intent.action, path=intent.path, line=intent.line)
            session.record_result(intent.message, result, None)  # nothing changed: the id stays free
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
        + " is now recorded with that message: " + how.format(number=number)
        for number, results in sorted(by_message.items())
    ]


def _entry_of(intent: WriteIntent, entries: list[JournalEntry]) -> JournalEntry | None:
    for entry in reversed(entries):
        if entry.command_id == intent.command_id and entry.rel == intent.path and entry.time >= intent.time - CLOCK_SLACK_S:
            return entry
    return None


def _landed(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | None | NotPutBack:
    """Did the change take effect (whatever happened to it since, an undo included)? None when
    the file tells neither: it holds neither the new bytes nor those it had before. "Not made"
    would then be a guess, and a wrong one has the model apply the change a second time."""
    if entry.committed or entry.undone:
        return True
    from .commit import read_current
    from .plan import sha256

    if entry.kind == "delete":
        return _delete_outcome(ws, journal, entry)
    if entry.kind in ("copy", "move"):
        from .transfer_recovery import transfer_outcome

        return transfer_outcome(ws, journal, entry)
    try:
        current = read_current(ws, ws.target(entry.rel))
    except OperatorError:
        return None
    if sha256(current.data if current else None) == entry.new_sha:
        return True
    if entry.kind == "create":
        return False if current is None else None
    try:
        before = journal.pre_image(entry)
    except (OSError, PreImageMismatch):
        return None
    return False if current is not None and current.data == before else None


def _delete_outcome(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | None | NotPutBack:
    """A delete's entry may be a folder or a symlink, which read_current refuses: what stands at
    the place is compared by the fingerprint the delete checked (entry.old_sha) instead. The very
    entry still there: not made. Otherwise the delete was cut short somewhere: where its entry is
    decides (_delete_landed); another entry at the place is a new one saved after the delete, or
    the old one edited, and unless the entry is found in a trash, which it is is not known."""
    from .fingerprint import current_fingerprint

    try:
        now = current_fingerprint(ws, ws.target(entry.rel))
    except (OperatorError, OSError):
        return None
    if now is not None and now == entry.old_sha:
        return False
    landed = _delete_landed(ws, journal, entry)
    return None if landed is None and now is not None else True if landed is None else landed


def _delete_landed(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | None | NotPutBack:
    """A delete killed part way: put the entry back if it never left the workspace and its place
    is free (not made; NotPutBack when the place is taken), or record where it went so undo can
    bring it back (made). None: gone, and where is not known."""
    from .commit import parent_path
    from .trash_recovery import clear_moved_source, find_interrupted_delete

    target = ws.target(entry.rel)
    try:
        dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    except OperatorError:
        return None  # its folder is gone too: the entry certainly is not in it
    try:
        try:
            where, record = find_interrupted_delete(dir_fd, name, parent_path(ws, target), journal.state_dir, entry.seq,
                                                    entry.time)
        except OSError:
            return None
        if where == "back":
            return False
        if where == "stranded" and record is not None:
            return NotPutBack(str(record["where"]))
        if record is None:
            return None
        journal.commit(entry, trash=record)
        # The trash copy is whole and recorded: the source a move across file systems was
        # removing when the app died is litter beside the place now.
        try:
            clear_moved_source(dir_fd, name, entry.seq)
        except OSError:
            pass  # left for a look by hand; the delete's result is right either way
        return True
    finally:
        os.close(dir_fd)

