"""The toy dialect's pure half: its answers read `[[toy-answer ID ok]]` (or `error=CODE`, the
engine's code spelt the toy's way: `not-found` for ERR_NOT_FOUND), then the summary and the
details, then `[[/toy]]`; its one action is `read`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from operator_app.protocol import ActionKind, CommandResult, Dialect, PromptLength
    from operator_app.protocol.message.reader import Opening

    from .reader import ToyReader

PROMPT = (
    "Read a file of the workspace by writing [[toy: read PATH]]. Operator answers with "
    "[[toy-answer ID ok]], what it read, and [[/toy]]."
)


def spelt(code: str) -> str:
    """An engine code as the toy spells it: ERR_NOT_FOUND -> not-found."""
    return code.removeprefix("ERR_").lower().replace("_", "-")


class ToyDialect:
    name = "toy"
    title = "Toy"
    block_form = "[[toy: ...]]"
    opener = "[[toy:"
    page_opener = "[[toy:"
    opener_starts_line = False
    engine_half = "tests.support.toy_dialect.engine"
    prompt_lengths: tuple[PromptLength, ...] = ("prompt",)

    def reader(self, opening: Opening) -> ToyReader:
        from .reader import ToyReader

        return ToyReader(opening)

    def own_answers(self, text: str, blocks: tuple[Any, ...]) -> str | None:
        return "the toy's own answers: paste them into the chat" if "[[toy-answer" in text else None

    def render(self, result: CommandResult) -> str:
        state = "ok" if result.ok else f"error={spelt(result.error_code or 'ERR_INTERNAL')}"
        lines = [f"[[toy-answer {result.shown_id} {state}]]", result.summary]
        lines += [result.details] if result.details else []
        return "\n".join([*lines, "[[/toy]]"])

    def describe(self, result: CommandResult) -> dict[str, Any]:
        return {"toy_command": result.frame.get("command")}

    def action_kind(self, action: str | None) -> ActionKind | None:
        return "read" if action == "toy.read" else None

    def engine_code(self, code: str | None) -> str | None:
        # Its results keep the engine's codes; it spells them only when it renders.
        return code if code is not None and code.startswith("ERR_") else None

    def named(self, result: CommandResult) -> str:
        return f"[[toy: {result.frame.get('command', '')}]]"

    def request(self, result: CommandResult) -> str | None:
        return result.frame.get("command")

    def folder(self, rel: str) -> str:
        return rel

    def bare_summary(self, summary: str, code: str | None) -> str:
        return summary.removeprefix(f"{code}: ") if code else summary

    def prompt(self, length: PromptLength = "prompt") -> str:
        return PROMPT


DIALECT: Dialect = ToyDialect()
