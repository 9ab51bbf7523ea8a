"""The one way from a plan to the disk, for every change someone is asked about: the question
(through the host's `ask`: the person, or the answer given ahead), the intent recorded just before
the commit (`before_commit`), the commit (changes/write.py), and the undo journal kept within its
budget after it (safety/journal_budget.py). A write of the model's (executor.py) and a command's
change-set (shell/run.py) both go this way, and what became of the plan comes back as a value:
applied, declined, not approved (no one could be asked), or refused at the commit. Also the record
of a change made (protocol/outcomes.py `ChangeOutcome`), made here once from the plan."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol

from msgspec import Struct

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.outcomes import ChangeKind, ChangeOutcome
from ..boundary.workspace import Workspace
from ..safety.journal_budget import keep_within_budget
from .outcomes import CommitOutcome
from .plan import WritePlan
from .write import commit

if TYPE_CHECKING:
    from ..state.session import Session

Verdict = Literal["applied", "declined", "not_approved", "conflict", "failed"]


class Asker(Protocol):
    """What applying a plan needs of the engine (executor.py `Engine`)."""

    workspace: Workspace
    session: Session

    def ask(self, plan: WritePlan, message: int) -> object: ...  # False: no

    @property
    def nobody_to_ask(self) -> bool: ...


class Applied(Struct, frozen=True, kw_only=True):
    verdict: Verdict
    done: CommitOutcome | None = None  # applied
    error: OperatorError | None = None  # conflict, failed
    undo_cut: str | None = None  # applied: the oldest undo history was let go of for it


def apply_plan(
    host: Asker,
    plan: WritePlan,
    message: int,
    before_commit: Callable[[WritePlan], None] | None = None,
) -> Applied:
    """Ask about `plan`, and commit it on a yes."""
    if host.ask(plan, message) is False:
        return Applied(verdict="not_approved" if host.nobody_to_ask else "declined")
    if before_commit is not None:
        before_commit(plan)
    state_dir = host.session.state_dir
    try:
        done = commit(plan, host.workspace, state_dir)
    except OperatorError as exc:
        verdict: Verdict = "conflict" if exc.code is ErrorCode.ERR_CONFLICT else "failed"
        return Applied(verdict=verdict, error=exc)
    # What a change keeps to be undone counts in the journal's budget, whatever kind it is.
    cut = keep_within_budget(state_dir, done.seq, message)
    return Applied(verdict="applied", done=done, undo_cut=cut)


_KINDS: dict[str, ChangeKind] = {
    "create": "create",
    "modify": "modify",
    "delete": "delete",
    "copy": "copy",
    "move": "move",
    "noop": "none",
}


def change_record(
    ws: Workspace,
    plan: WritePlan,
    *,
    seq: int | None,
    rewrote: bool,
    undo_cut: str | None = None,
    undoes: int | None = None,
    new_sha: str | None = None,
) -> ChangeOutcome:
    """The record of `plan`, made (a plan of kind create, modify, delete, copy or move; or
    noop, a write that finds its content there already). `new_sha`: the new content's hash,
    when the commit computed it already."""
    to = plan.target_to
    new = plan.new_bytes if plan.kind in ("create", "modify", "noop") else None
    return ChangeOutcome(
        kind=_KINDS[plan.kind],
        path=plan.target.rel,
        real=ws.resolved(plan.target).rel,
        path_to=to.rel if to is not None else None,
        real_to=ws.resolved(to).rel if to is not None else None,
        moves=plan.line_moves,
        rewrote=rewrote,
        old_sha256=_sha(plan.base),
        new_sha256=new_sha or _sha(new),
        lines=_line_count(new),
        seq=seq,
        undoes=undoes,
        undo_cut=undo_cut,
    )


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _line_count(data: bytes | None) -> int | None:
    if data is None:
        return None
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
