"""A run with no person to ask (`operator-app exec` without a terminal and without --approve).

Each write, and each command to run (shell.run, a String bash script), is answered at once
without being shown to anyone: the write is not applied, the command does not run. Its result
says so, ERR_NOT_APPROVED (String: NOT_APPROVED), never ERR_REJECTED: no person declined it, and a
model told "the person declined" would argue with the person or drop the change. (`--approve
none` is a person's answer given ahead: ERR_REJECTED, and the rest of the message runs; it also
sets the person's always-allow rules aside.) A command the person always allows in this workspace
is their yes given ahead, so it runs; but what it changed is not applied, since no one can review
it, and its result says that in its `changes` line (protocol/run_text.py NO_REVIEW).

The commands after it in its message are held back with it: not run, and answered with the same
code, their ids left free (each dialect's runner answers them in its own form, through
`MessageContext.held_back`). A model writes a message in one go, so a read after a write is there
to look at what the write did (the spec's workflow: change, then read to verify); run before the
change, it would show the file as it was, and when the person runs the message again with approval
it would be answered as a repeat of that stale read ("already ran in message 1"). Held back, the
rerun runs every command in order, each seeing what the writes before it left. This is decision 7
of docs/design.md (a write waiting for consent holds back the rest of its message) for a write
whose consent cannot come in this run. Commands before the write ran, as they would have anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol.dialects import action_kind, dialect_named, engine_code
from ...protocol.errors import HOW_TO_APPROVE, ErrorCode, OperatorError

if TYPE_CHECKING:
    from ...protocol.results import CommandResult
    from ..changes.plan import WritePlan
    from .outlook import WriteOutlook

# Said of every command held back, after the reason: how it comes to run.
RUNS_WHEN = "it runs when the person runs the same message again with approval"


def no_person(plan: WritePlan, outlook: WriteOutlook) -> bool:
    """The decider of a run with no one to ask: nothing is applied or run."""
    return False


def not_approved(action: str, rel: str) -> OperatorError:
    """A write's answer: not applied, for want of anyone to ask."""
    return OperatorError(
        ErrorCode.ERR_NOT_APPROVED,
        (
            f"{action} on {rel} was not applied: no person was asked (Operator ran this message "
            "without a terminal and without --approve); nothing changed; not a refusal: tell the "
            f"person the change waits for their approval ({HOW_TO_APPROVE}); do not send it again "
            "under a new id"
        ),
    )


def not_run(first_line: str) -> OperatorError:
    """A command's answer (shell.run): not run, for want of anyone to ask."""
    return OperatorError(
        ErrorCode.ERR_NOT_APPROVED,
        (
            f"this command ({first_line}) did not run: no person was asked (Operator ran this "
            "message without a terminal and without --approve); nothing ran and nothing changed; "
            f"not a refusal: tell the person it waits for their approval ({HOW_TO_APPROVE}); do "
            "not send it again under a new id"
        ),
    )


# A change left unrun because its message repeats an earlier one (String's runner marks it so):
# not approved, but it holds nothing back; the same message run again would be a repeat again.
UNASKED_REPEAT = "unasked_repeat"


def holds_back(result: CommandResult) -> bool:
    """A write or a command no person was asked about: the rest of its message waits with it.
    (Its code in its dialect's spelling stands for ERR_NOT_APPROVED: protocol/dialects.py.)"""
    if result.extra.get(UNASKED_REPEAT):
        return False
    return engine_code(result) == ErrorCode.ERR_NOT_APPROVED.value


def runs_a_command(result: CommandResult) -> bool:
    """Whether `result` is a command's (shell.run, a String bash script), not a write's."""
    return action_kind(result.action) == "run"


def held_back_by(write: CommandResult) -> str:
    """Why a command after `write` was not run, as its answer says (in the write's dialect's
    terms, which are the held-back command's too)."""
    return (
        f"not run: it comes after {dialect_named(write.dialect).named(write)}, which waits for a "
        "person's approval; the commands after a write wait with it; nothing changed"
    )
