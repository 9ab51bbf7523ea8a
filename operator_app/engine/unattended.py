"""A run with no person to ask (`operator-app exec` without a terminal and without --approve).

Each write is answered at once without being shown to anyone, and is not applied. Its result
says so, ERR_NOT_APPROVED (String: NOT_APPROVED), never ERR_REJECTED: no person declined it, and a
model told "the person declined" would argue with the person or drop the change.

The commands after it in its message are held back with it: not run, and answered with the same
code, their ids left free. A model writes a message in one go, so a read after a write is there to
look at what the write did (the spec's workflow: change, then read to verify); run before the
change, it would show the file as it was, and when the person runs the message again with approval
it would be answered as a repeat of that stale read ("already ran in message 1"). Held back, the
rerun runs every command in order, each seeing what the writes before it left. This is decision 7
of docs/design.md (a write waiting for consent holds back the rest of its message) for a write
whose consent cannot come in this run. Commands before the write ran, as they would have anyway.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..protocol.errors import HOW_TO_APPROVE, ErrorCode, OperatorError
from ..protocol.results import CommandResult, failed

if TYPE_CHECKING:
    from ..protocol.chanflow.blocks import ChanBlock
    from ..protocol.commands.base import Command
    from .changes.plan import WritePlan


def no_person(plan: WritePlan) -> bool:
    """The decider of a run with no one to ask: nothing is applied."""
    return False


def not_approved(action: str, rel: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_NOT_APPROVED,
        (
            f"{action} on {rel} was not applied: no person was asked (Operator ran this message "
            "without a terminal and without --approve); nothing changed; not a refusal: tell the "
            f"person the change waits for their approval ({HOW_TO_APPROVE}); do not send it again "
            "under a new id"
        ),
    )


def topic_or_none(written: str | None) -> str | None:
    """A String block's topic as its answer names it (file:main for none), or None when it is not
    one Operator serves: such a block is answered as it would be anyway, running nothing."""
    from ..protocol.chanflow.commands import parse_topic
    from ..protocol.chanflow.errors import StringError

    try:
        return parse_topic(written)
    except StringError:
        return None


def holds_back(result: CommandResult) -> bool:
    """A write no person was asked about: the rest of its message waits with it. (String's code is
    spelt out: its catalog is imported only when a String block comes.)"""
    return result.error_code in (ErrorCode.ERR_NOT_APPROVED.value, "NOT_APPROVED")


class HeldBack:
    """The rest of a message after a write no person was asked about. (A plain class: a dataclass
    costs `exec` a millisecond of start-up to declare.)"""

    __slots__ = ("write",)

    def __init__(self, write: CommandResult) -> None:
        self.write = write

    def _reason(self) -> str:
        write = self.write
        what = (
            f"[{write.shown_id}] {write.request}"
            if write.dialect == "string"
            else f"{write.shown_id} ({write.action} on {write.path})"
        )
        return (
            f"not run: it comes after {what}, which waits for a person's approval; the commands "
            "after a write wait with it; nothing changed"
        )

    def result(self, command: Command, line: int) -> CommandResult:
        """An OPERATOR_CMD command's answer: not run, its id free."""
        error = OperatorError(
            ErrorCode.ERR_NOT_APPROVED,
            f"{self._reason()}; it runs when the person runs the same message again with approval",
        )
        return failed(
            command.id, error, action=command.action, path=command.path_or_none
        ).with_line(line)

    def string_result(
        self, block: ChanBlock, request_id: str, *, repeat: bool
    ) -> CommandResult | None:
        """A String block's answer, in String's form: not run, its key free. None for a block
        that runs nothing anyway (a repeat, a refused block, a command Operator does not serve),
        which is answered as ever."""
        from ..protocol.chanflow.commands import BY_NAME
        from ..protocol.chanflow.errors import StringCode, StringError
        from ..protocol.chanflow.results import string_failed
        from .chanflow.run import command_word, now, request_line

        line = request_line(block.payload)
        action = command_word(line)
        topic = topic_or_none(block.topic)
        if repeat or block.fault or block.attributes or topic is None:
            return None
        if action[1:] not in BY_NAME:
            return None
        error = StringError(
            StringCode.NOT_APPROVED,
            self._reason(),
            "it runs when the person runs the same message again with approval",
        )
        result = string_failed(
            request_id,
            error,
            topic=topic,
            request=line,
            at=now(),
            action=action,
            line=block.start_line,
        )
        return replace(result, status="failed")
