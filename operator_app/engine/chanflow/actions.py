"""A String command run as one of the engine's actions (docs/design.md, "The String dialect",
Mapping): the command model made from the String command's fields (its id is the block's), and
a change run through `MessageContext.execute`: planned, shown under the String command's name
(with what a repeated message's dialog must say first), asked about, committed; a decline or a
failure told in String's terms (a change no one could be asked about, NOT_APPROVED:
engine/messages/not_approved.py), and the change remembered as the topic's, for /undo; its
record (`Call.outcome`) goes with the answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from msgspec import Struct

from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.commands.base import Command
from ...protocol.commands.catalog import model_for
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.outcomes import undo_cut
from ..changes.plan import WritePlan
from .context import Call
from .mapping import failure_of, not_approved_in_string, told_in_string

Message = Callable[[WritePlan], str]  # a change's confirmation, from its plan
Accept = Callable[[WritePlan], OperatorError | None]


def declined(what: str, outcome: str = "nothing changed") -> StringError:
    """REJECTED: the person said no to `what` ("/append notes.md", "to run pytest")."""
    return StringError(
        StringCode.REJECTED,
        f"the person declined {what}; {outcome}",
        "ask them what they want before trying again",
    )


def command_for(call: Call, action: str, fields: Mapping[str, object]) -> Command:
    """The engine's command for the block, or the String error of fields it refuses."""
    model = model_for(action)
    assert model is not None
    try:
        return model.model_validate(
            {"version": "1", "id": call.request_id, "action": action, **fields}
        )
    except OperatorError as error:
        raise told_in_string(error) from None


class Changed(Struct, frozen=True):
    plan: WritePlan  # the plan that was approved and committed
    # What the answer says after its confirmation: that the oldest undo history was let go of to
    # keep the journal within its budget (engine/safety/journal_budget.py), when this change did.
    context: tuple[str, ...] = ()


def run_change(
    call: Call,
    command: Command,
    message: Message,
    *,
    accept: Accept | None = None,
    rewrites: bool | None = None,
) -> Changed:
    """Run a change: the plan that was approved and committed. `message`: its confirmation
    (recorded before the commit, so recovery tells it too); `accept`: a check of the plan
    before anyone is asked; `rewrites`: see MessageContext.execute."""
    planned: list[WritePlan] = []

    def accepted(plan: WritePlan) -> OperatorError | None:
        refused = accept(plan) if accept is not None else None
        if refused is None:
            planned.append(plan)
        return refused

    def before_commit(plan: WritePlan) -> None:
        # What recovery answers if the app dies before the result is recorded but after the
        # change landed: the same confirmation.
        call.record_intent(call.command, plan.target.rel, message(plan), {})

    result = call.context.execute(
        command,
        before_commit=before_commit,
        accept_plan=accepted,
        action_label=call.command,
        notes=(call.lookalike,) if call.lookalike else (),
        rewrites=rewrites,
    )
    if not result.ok:
        if result.error_code == ErrorCode.ERR_NOT_APPROVED.value:
            raise not_approved_in_string(call.request.line)
        if result.status == "rejected":
            raise declined(call.request.line)
        raise failure_of(result, writing=True)
    plan = planned[-1]
    if plan.kind != "noop":
        call.topic.changes.append(call.request_id)
    call.outcome = result.outcome
    cut = undo_cut(result.outcome)
    return Changed(plan, (cut,) if cut else ())
