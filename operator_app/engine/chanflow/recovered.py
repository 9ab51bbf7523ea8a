"""The String result of a change the app died in the middle of (changes/recovery.py works out
whether it landed): its confirmation when it did (an /undo landed when the change it takes back
is undone), else an error that says nothing changed, or that it is not known."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.results import string_failed, string_ok
from ...protocol.results import CommandResult

if TYPE_CHECKING:
    from ..changes.outcomes import Landing
    from ..state.used_ids import WriteIntent


def recovered_result(intent: WriteIntent, landing: Landing) -> CommandResult:
    topic = str(intent.extra.get("topic", "file:main"))
    request = str(intent.extra.get("request", intent.action))
    at = str(intent.extra.get("at", ""))
    if landing.landed is True:
        result = string_ok(
            intent.command_id,
            topic=topic,
            request=request,
            at=at,
            message=intent.summary,
            action=intent.action,
            path=intent.path,
            line=intent.line,
        )
        return replace(result, extra={"recovered": True})
    shown = f"~/{intent.path}"
    if landing.landed is False:
        error = StringError(
            StringCode.WRITE_FAILED,
            f"Operator stopped while making this change to {shown}; it was not made",
            "send the block again in a new message",
        )
    else:
        error = StringError(
            StringCode.WRITE_FAILED,
            f"Operator stopped while making this change to {shown}, and the file has changed "
            "since: whether the change was made is not known",
            f"/open {shown} before sending it again",
        )
    return string_failed(
        intent.command_id,
        error,
        topic=topic,
        request=request,
        at=at,
        action=intent.action,
        path=intent.path,
        line=intent.line,
    )
