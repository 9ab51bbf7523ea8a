"""The kinds of change Operator makes, each with its four handlers in one table: how a command of
it is planned, how an approved plan is committed, how recovery tells whether it took effect when
the app died in the middle, and how it is undone. The write path (changes/write.py), recovery
(changes/recovery.py) and undo (changes/undo.py) look a kind up here instead of each switching on
it; a new kind of change is one entry.

    kind        plan kinds / journal kinds   actions
    content     create, modify               fs.write, fs.applyEdits, fs.patch, the region actions
    delete      delete                       fs.delete
    transfer    copy, move                   fs.copy, fs.move, fs.rename
    changeset   changeset                    what a command (shell.run, a bash topic) changed
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from ..boundary.workspace import Workspace
from ..safety.journal import Journal, JournalEntry
from .changeset.commit import commit_changeset
from .changeset.plan import plan_unavailable
from .changeset.recover import changeset_outcome
from .changeset.undo import undo_changeset
from .content.commit import commit_content
from .content.plan import CONTENT_ACTIONS, plan_content
from .content.recover import content_outcome
from .content.undo import in_effect, undo_content
from .delete.commit import commit_delete
from .delete.plan import plan_delete
from .delete.recover import delete_outcome
from .delete.undo import undo_delete
from .outcomes import CommitOutcome, NotPutBack, UndoOutcome
from .plan import WritePlan
from .transfer.commit import commit_transfer
from .transfer.plan import plan_transfer
from .transfer.recover import transfer_outcome
from .transfer.undo import undo_transfer

if TYPE_CHECKING:
    from ...protocol.commands.base import Command


def _never(ws: Workspace, entry: JournalEntry) -> bool:
    """A kind whose interrupted change only recovery settles (it records the "commit" itself)."""
    return False


class ChangeKind(Struct, frozen=True, kw_only=True):
    name: str
    actions: tuple[str, ...]  # the commands planned as this kind
    kinds: tuple[str, ...]  # the plan's and the journal entry's `kind` values it covers
    plan: Callable[[Command, Workspace], WritePlan]
    commit: Callable[[WritePlan, Workspace, Path, Journal], CommitOutcome]
    # Whether a change the app died in the middle of took effect: True, False, or None (not
    # known); NotPutBack for a delete stranded under a hidden name. May finish the change.
    recover: Callable[[Workspace, Journal, JournalEntry], bool | NotPutBack | None]
    # Whether a "begin" without its "commit" counts as in effect for undo, without touching disk.
    in_effect: Callable[[Workspace, JournalEntry], bool]
    undo: Callable[[Workspace, Journal, JournalEntry], UndoOutcome]


CHANGE_KINDS = (
    ChangeKind(
        name="content",
        actions=CONTENT_ACTIONS,
        kinds=("create", "modify"),
        plan=plan_content,
        commit=commit_content,
        recover=content_outcome,
        in_effect=in_effect,
        undo=undo_content,
    ),
    ChangeKind(
        name="delete",
        actions=("fs.delete",),
        kinds=("delete",),
        plan=plan_delete,
        commit=commit_delete,
        recover=delete_outcome,
        in_effect=_never,
        undo=undo_delete,
    ),
    ChangeKind(
        name="transfer",
        actions=("fs.copy", "fs.move", "fs.rename"),
        kinds=("copy", "move"),
        plan=plan_transfer,
        commit=commit_transfer,
        recover=transfer_outcome,
        in_effect=_never,
        undo=undo_transfer,
    ),
    ChangeKind(
        # Planned by engine/shell from a finished command's upper layer (changeset/plan.py), not
        # from a command of the model's: no action is planned as one.
        name="changeset",
        actions=(),
        kinds=("changeset",),
        plan=plan_unavailable,
        commit=commit_changeset,
        recover=changeset_outcome,
        in_effect=_never,
        undo=undo_changeset,
    ),
)
_BY_ACTION = {action: kind for kind in CHANGE_KINDS for action in kind.actions}
_BY_KIND = {name: kind for kind in CHANGE_KINDS for name in kind.kinds}


def kind_for_action(action: str) -> ChangeKind:
    return _BY_ACTION[action]


def kind_of_plan(plan: WritePlan) -> ChangeKind:
    return _BY_KIND[plan.kind]


def kind_of_entry(entry: JournalEntry) -> ChangeKind:
    return _BY_KIND[entry.kind]
