"""The OPERATOR_CMD result of a write the app died in the middle of (changes/recovery.py works
out whether it landed): its ok summary when it did, an error that says nothing changed, or that
it is not known, or that a deleted entry could not be put back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.results import CommandResult, failed
from ..changes.outcomes import NotPutBack

if TYPE_CHECKING:
    from ..changes.outcomes import Landing
    from ..state.used_ids import WriteIntent


def recovered_result(intent: WriteIntent, landing: Landing) -> CommandResult:
    landed = landing.landed
    doing = f"Operator stopped while applying {intent.action} to {intent.path}"
    if landed is True:
        return CommandResult(
            id=intent.command_id,
            ok=True,
            summary=landing.summary,
            action=intent.action,
            path=intent.path,
            line=intent.line,
            extra={"recovered": True},
        )
    if isinstance(landed, NotPutBack):
        error = OperatorError(
            ErrorCode.ERR_DELETE_INCOMPLETE,
            (
                f"{doing}, and something new is at its place now, so the entry was not put "
                f"back: it is {landed.where}; tell the person, and do not send the command again"
            ),
        )
    elif landed is False:
        error = OperatorError(
            ErrorCode.ERR_INTERNAL, f"{doing}; the change was not made; send the command again"
        )
    else:
        error = OperatorError(
            ErrorCode.ERR_INTERNAL,
            (
                f"{doing}, and the file has changed since: whether the change was made is not "
                "known; read it (fs.readSlice) before sending the command again"
            ),
        )
    return failed(
        intent.command_id, error, action=intent.action, path=intent.path, line=intent.line
    )
