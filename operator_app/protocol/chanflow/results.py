"""A String command's result as a `CommandResult`, so both dialects are recorded, listed, copied
and recovered alike: the id Operator gave the block, the system message as the summary, what
follows it (context lines, or "---" and the content) as the details, and the topic, the command
line and the time it needs to be rendered as a response block again, and the record of what the
engine did for it (protocol/outcomes.py), whichever way it ended."""

from __future__ import annotations

from ..outcomes import Outcome
from ..results import CommandResult, Status
from .dialect import MODE, REQUEST, TIME, TOPIC
from .errors import StringCode, StringError
from .grammar import OK_MARK

# Errors in what the block says, as against in what running it met: the same block can never
# succeed, so it is "invalid" (and, as for an OPERATOR_CMD block, leaves nothing to repeat).
_INVALID = frozenset(
    {
        StringCode.COMMAND_UNSUPPORTED,
        StringCode.INVALID_PARAMS,
        StringCode.INVALID_VARIABLE,
        StringCode.UNDEFINED_VARIABLE,
        StringCode.INVALID_TARGET,
        StringCode.UNCLOSED_BLOCK,
        StringCode.NESTED_BLOCK,
        StringCode.MALFORMED_TAG,
        StringCode.BLOCK_TOO_LARGE,
    }
)
_STATUS: dict[StringCode, Status] = {
    StringCode.REJECTED: "rejected",
    StringCode.SECRET_DECLINED: "rejected",  # nothing was read: the block's key stays free
    StringCode.NOT_APPROVED: "rejected",  # not applied for want of consent: its key stays free
    StringCode.CONFLICT: "conflict",
}


def confirmation(message: str) -> str:
    """A message that confirms a change: "✓ Written: ..."."""
    return f"{OK_MARK} {message}"


def string_ok(
    request_id: str,
    *,
    topic: str,
    request: str,
    at: str,
    message: str,
    rest: str | None = None,
    action: str,
    path: str | None = None,
    line: int | None = None,
    diff: str | None = None,
    mode: str | None = None,
    outcome: Outcome | None = None,
) -> CommandResult:
    frame = {TOPIC: topic, REQUEST: request, TIME: at}
    if mode:
        frame[MODE] = mode  # seed 003: "mode=edit" on the answers of an edit
    return CommandResult(
        id=request_id,
        ok=True,
        summary=message,
        details=rest,
        action=action,
        path=path,
        line=line,
        diff=diff,
        dialect="string",
        frame=frame,
        outcome=outcome,
    )


def string_failed(
    request_id: str,
    error: StringError,
    *,
    topic: str,
    request: str,
    at: str,
    action: str,
    path: str | None = None,
    line: int | None = None,
    diff: str | None = None,
    outcome: Outcome | None = None,
) -> CommandResult:
    status: Status = "invalid" if error.code in _INVALID else _STATUS.get(error.code, "failed")
    return CommandResult(
        id=request_id,
        ok=False,
        summary=error.headline,
        details="\n".join(error.context) or None,
        action=action,
        path=path,
        error_code=error.code.value,
        status=status,
        line=line,
        diff=diff,
        dialect="string",
        frame={TOPIC: topic, REQUEST: request, TIME: at},
        outcome=outcome,
        error_message=error.message,
    )
