"""String's pure half (protocol/dialect.py): a result is a response block tagged with its topic
and the time (responses.py), its actions are its commands ("/open"), and its system prompt is
spec/string.txt. Its blocks are found by protocol/message.py and run by engine/chanflow."""

from __future__ import annotations

from typing import Any

from ..results import CommandResult
from . import grammar
from .bash import SCRIPT
from .blocks import ChanBlock
from .commands import BY_NAME
from .responses import Response

# A result's frame: what the response block says besides the id, the system message (the summary)
# and what follows it (the details).
TOPIC, REQUEST, TIME, MODE = "topic", "request", "time", "mode"


class StringDialect:
    name = "string"
    title = "String"
    block_form = f"{grammar.OPEN}{grammar.CHANNEL}:...>"
    opener = grammar.OPEN
    engine_half = "operator_app.engine.chanflow.runner"

    def own_answers(self, text: str, blocks: tuple[Any, ...]) -> str | None:
        if any(isinstance(block, ChanBlock) and block.is_response for block in blocks):
            return "Operator's own String responses: paste them into the chat, not here"
        return None

    def render(self, result: CommandResult) -> str:
        frame = result.frame
        return Response(
            topic=frame.get(TOPIC) or grammar.DEFAULT_TOPIC,
            time=frame.get(TIME, ""),
            request_id=result.shown_id,
            request=frame.get(REQUEST, ""),
            message=result.summary,
            rest=result.details,
            mode=frame.get(MODE),
        ).render()

    def describe(self, result: CommandResult) -> dict[str, Any]:
        frame = result.frame
        return {"topic": frame.get(TOPIC), "request": frame.get(REQUEST), "time": frame.get(TIME)}

    def writes(self, action: str | None) -> bool | None:
        if action == SCRIPT:  # a bash topic's script: asked about, its changes reviewed
            return True
        if action is None or not action.startswith("/"):
            return None
        spec = BY_NAME.get(action[1:])
        return spec is not None and spec.writes

    def bare_summary(self, summary: str, code: str | None) -> str:
        summary = summary.removeprefix(f"{grammar.OK_MARK} ")
        return summary.removeprefix(f"{grammar.ERROR_MARK} {code}: ") if code else summary

    def prompt(self) -> str:
        from .spec import string_prompt

        return string_prompt()


DIALECT = StringDialect()
