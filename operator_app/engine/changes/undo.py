"""Undo of committed changes, newest first, from the journal; each kind of change undoes its own
(changes/kinds.py): restore the pre-image, remove a file Operator created, bring a deleted entry
back from the trash, or reverse a copy or move. A change is only undone when what is on disk is
still exactly what Operator left, in the workspace it was made in; otherwise the undo is refused
with the reason, and nothing is touched. The journal is not trusted blindly: trash locations
must lie in a trash folder, created folders inside the workspace, and every step on the
workspace is taken relative to checked folder descriptors."""

from __future__ import annotations

from pathlib import Path

from ...protocol.errors import OperatorError
from ..boundary.workspace import Workspace
from ..safety.journal import Journal, JournalEntry
from ..safety.sweep import sweep_temps
from .kinds import kind_of_entry
from .outcomes import UndoOutcome, UndoRefused


def undoable(ws: Workspace, journal: Journal) -> list[JournalEntry]:
    """Changes that took effect and are not undone yet, newest first. A "begin" without its
    "commit" (the app died mid-commit) counts when its kind says it took effect."""
    return [
        entry
        for entry in reversed(journal.entries())
        if not entry.undone
        and not entry.cut  # let go of to keep the journal within its budget (journal_budget.py)
        and (entry.committed or kind_of_entry(entry).in_effect(ws, entry))
    ]


def undo_entry(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    _refuse_elsewhere(ws, entry)
    return kind_of_entry(entry).undo(ws, journal, entry)


def _refuse_elsewhere(ws: Workspace, entry: JournalEntry) -> None:
    if entry.root is not None and entry.root != str(ws.root):
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.where}: it was made in the "
            f"workspace {entry.root}, not in {ws.root}; run undo with --workspace {entry.root}"
        )


def undo_last(
    ws: Workspace, state_dir: Path, steps: int = 1, *, newest: int | None = None
) -> list[UndoOutcome]:
    """Undo up to `steps` changes, newest first; stops at the first refusal (raised after the
    ones before it were undone, so the outcomes so far are on the exception). `newest`: the seq
    of the change the person was shown and confirmed; refused if another is the newest now (one
    committed since, by another process or a followed file, must not be undone in its place)."""
    journal = Journal(state_dir)
    sweep_temps(ws, journal)
    done: list[UndoOutcome] = []
    entries = undoable(ws, journal)
    if newest is not None and (not entries or entries[0].seq != newest):
        now = (
            f"the newest change now is {entries[0].action} "
            f"on {entries[0].rel} ({entries[0].command_id})"
            if entries
            else "it can no longer be undone"
        )
        raise UndoRefused(
            f"the change you confirmed is not the last one any more: {now}; nothing was touched; "
            "look again and confirm the one to undo"
        )
    for entry in entries[:steps]:
        try:
            done.append(undo_entry(ws, journal, entry))
        except (UndoRefused, OperatorError) as exc:
            refused = UndoRefused(str(exc))
            refused.done = done  # type: ignore[attr-defined]
            raise refused from None
    return done
