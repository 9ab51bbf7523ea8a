"""Where an undo puts an entry back, shared by the undo of a delete and of a move: the place in
the trash its journal record names (checked before anything moves, so an unusable record refuses
the whole undo) and the folder it goes back into (made again where it was removed since)."""

from __future__ import annotations

from ...protocol.errors import OperatorError
from ..boundary.target import Target
from ..boundary.workspace import Workspace
from ..safety.journal import Journal, JournalEntry
from ..safety.trash import TrashError
from ..safety.trash_restore import trash_location
from .outcomes import UndoRefused


def trashed_place(
    ws: Workspace, journal: Journal, entry: JournalEntry, target: Target, why: str
) -> tuple[str, str]:
    """Where the trash holds what `entry` took from `target`; checked before anything moves, so an
    unusable record refuses the whole undo."""
    try:
        return trash_location(
            entry.trash or {},
            journal.state_dir,
            entry.seq,
            target.parts[-1],
            ws.root.joinpath(*target.parts[:-1]),
        )
    except TrashError as exc:
        raise UndoRefused(f"{why}: {exc}") from None


def parent_to_restore_into(ws: Workspace, target: Target, why: str) -> tuple[int, str, list[str]]:
    """The folder `target` goes back into, made again where it was removed since."""
    try:
        return ws.open_parent_dir(target, create=True)
    except OperatorError as exc:
        raise UndoRefused(f"{why}: {exc.message}; nothing was touched") from None
