"""What a change's commit, recovery and undo hand back, shared by every kind of change
(changes/kinds.py): the committed summary and journal number, an undo done or refused, a delete
that could not be put back; and the one wording of a conflict found at commit time."""

from __future__ import annotations

from msgspec import Struct

from ...protocol.errors import ErrorCode, OperatorError
from ..boundary.target import Target
from ..safety.journal import JournalEntry


class CommitOutcome(Struct, frozen=True):
    summary: str
    seq: int | None
    note: str = ""  # what the commit adds to the plan's summary, alone (a change-set's record)
    new_sha: str | None = None  # a content change: the hash of the bytes it wrote, as journalled


class UndoRefused(Exception):
    """An undo that was not done, with the reason; nothing was touched."""


class UndoOutcome(Struct, frozen=True):
    entry: JournalEntry
    summary: str


class NotPutBack(Struct, frozen=True):
    """A delete cut short before its entry left the workspace, whose place is taken now: the
    entry stays under Operator's hidden name, at `where`."""

    where: str


class Landing(Struct, frozen=True):
    """Whether an approved write the app died in the middle of took effect: True or False, a
    NotPutBack, or None when what is on disk tells neither; and what it did, as its journal entry
    says (else as its intent said). The write's dialect phrases the result from it."""

    landed: bool | NotPutBack | None
    summary: str


# What the model does about a conflict on an entry it did not read as text (delete, copy, move).
LOOK_AGAIN = "look again (fs.stat, fs.list)"


def conflict(
    target: Target, what: str, *, side: str = "", look_again: str = "read it again (fs.readSlice)"
) -> OperatorError:
    """ERR_CONFLICT for a change whose target (or, with `side`, its other path) is no longer what
    the person saw: "{side}{path} {what} since the preview; nothing was changed; ..."."""
    return OperatorError(
        ErrorCode.ERR_CONFLICT,
        (
            f"{side}{target.rel} {what} since the preview; nothing "
            f"was changed; {look_again} and resend the command"
        ),
    )
