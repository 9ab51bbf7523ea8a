"""String's pure half (protocol/dialect.py): a result is a response block tagged with its topic
and the time (responses.py), its actions are its commands ("/open"), its codes spell the
engine's its own way (errors.py), and its system prompt is spec/string.txt. Its blocks are found
by reader.py (a span reader) and run by engine/chanflow. Light to import: the message scanner
makes its reader for every message, so what only results and prompts need is imported when
they are asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import grammar
from .blocks import ChanBlock

if TYPE_CHECKING:
    from ..dialect import ActionKind, Dialect, PromptLength
    from ..message.reader import Opening
    from ..results import CommandResult
    from .reader import ChanReader

# A result's frame: what the response block says besides the id, the system message (the summary)
# and what follows it (the details).
TOPIC, REQUEST, TIME, MODE = "topic", "request", "time", "mode"

# String's codes that are one of the engine's, spelt String's way (engine/chanflow/mapping.py
# spells them so); the others are String's alone, or stand for several of the engine's.
ENGINE_CODES = {
    "NOT_FOUND": "ERR_NOT_FOUND",
    "SECRET_DECLINED": "ERR_SECRET_DECLINED",
    "CONFLICT": "ERR_CONFLICT",
    "REJECTED": "ERR_REJECTED",
    "NOT_APPROVED": "ERR_NOT_APPROVED",
    "LINES_MOVED": "ERR_LINES_MOVED",
    "TIMEOUT": "ERR_COMMAND_TIMEOUT",
    "KILLED": "ERR_COMMAND_KILLED",
    "INTERNAL": "ERR_INTERNAL",
}


class StringDialect:
    name = "string"
    title = "String"
    block_form = f"{grammar.OPEN}{grammar.CHANNEL}:...>"
    opener = grammar.OPEN
    page_opener = grammar.OPEN + grammar.CHANNEL
    opener_starts_line = False
    engine_half = "operator_app.engine.chanflow.runner"
    prompt_lengths: tuple[PromptLength, ...] = ("prompt",)

    def reader(self, opening: Opening) -> ChanReader:
        from .reader import ChanReader

        return ChanReader(opening)

    def own_answers(self, text: str, blocks: tuple[Any, ...]) -> str | None:
        if any(isinstance(block, ChanBlock) and block.is_response for block in blocks):
            return "Operator's own String responses: paste them into the chat, not here"
        return None

    def render(self, result: CommandResult) -> str:
        from .responses import Response

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

    def action_kind(self, action: str | None) -> ActionKind | None:
        from .bash import SCRIPT
        from .commands import BY_NAME

        if action == SCRIPT:  # a bash topic's script: asked about, its changes reviewed
            return "run"
        if action is None or not action.startswith("/"):
            return None
        spec = BY_NAME.get(action[1:])
        return "write" if spec is not None and spec.writes else "read"

    def engine_code(self, code: str | None) -> str | None:
        return ENGINE_CODES.get(code or "")

    def named(self, result: CommandResult) -> str:
        return f"[{result.shown_id}] {result.frame.get(REQUEST, result.action or '')}"

    def request(self, result: CommandResult) -> str | None:
        return result.frame.get(REQUEST) or None

    def folder(self, rel: str) -> str:
        # as its responses name folders ("cwd: ~/src")
        return "~/" if rel == "." else f"~/{rel}"

    def bare_summary(self, summary: str, code: str | None) -> str:
        summary = summary.removeprefix(f"{grammar.OK_MARK} ")
        return summary.removeprefix(f"{grammar.ERROR_MARK} {code}: ") if code else summary

    def prompt(self, length: PromptLength = "prompt") -> str:
        from .spec import string_prompt

        return string_prompt()


DIALECT: Dialect = StringDialect()
