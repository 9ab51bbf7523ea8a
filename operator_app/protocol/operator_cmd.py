"""The OPERATOR_CMD dialect's pure half (protocol/dialect.py): OPERATOR_RESULT blocks (one per
command, a single-line summary, a single-line details_b64), the wording of an invalid block's
result, and the compact system prompt. Its blocks are found by scanner.py (a line reader),
validated by commands/, and run by engine/opcmd. Its error codes are the engine's own."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .codec import encode_b64_text
from .errors import ErrorCode, OperatorError
from .grammar import CMD_START, RESULT_END, RESULT_START
from .results import CommandResult, one_line

if TYPE_CHECKING:
    from .dialect import ActionKind, Dialect, PromptLength
    from .message.reader import Opening
    from .scanner import Scanner


def invalid_summary(error: OperatorError) -> str:
    return f"Invalid OPERATOR_CMD ({error.code.value}): {error.message}"


def operator_error(
    result_id: str, error: OperatorError, *, related_id: str | None, line: int | None
) -> CommandResult:
    """The spec's operator.error result, for a block whose id could not be read."""
    message = invalid_summary(error) + (f" ({error.context})" if error.context else "")
    details = json.dumps({"message": message, "related_id": related_id})
    return CommandResult(
        id=result_id,
        ok=False,
        summary=invalid_summary(error),
        details=details,
        action="operator.error",
        error_code=error.code.value,
        status="invalid",
        line=line,
    )


class OperatorCmd:
    name = "operator"
    title = "OPERATOR_CMD"
    block_form = CMD_START
    opener = CMD_START
    page_opener = CMD_START
    opener_starts_line = True
    engine_half = "operator_app.engine.opcmd.runner"
    prompt_lengths: tuple[PromptLength, ...] = ("prompt", "full", "raw")

    def reader(self, opening: Opening) -> Scanner:
        from .scanner import Scanner

        return Scanner(
            first_line=opening.first_line,
            skip_first_fragment=opening.fragment,
            window_cut=opening.window_cut,
        )

    def own_answers(self, text: str, blocks: tuple[Any, ...]) -> str | None:
        if RESULT_START in text:
            return (
                "Operator's own results (OPERATOR_RESULT blocks): paste them into the chat, not "
                "here"
            )
        return None

    def render(self, result: CommandResult) -> str:
        lines = [
            RESULT_START,
            f"id: {result.shown_id}",
            f"ok: {'true' if result.ok else 'false'}",
            f"summary: {one_line(result.summary)}",
        ]
        if result.details is not None and result.details != "":
            lines.append(f"details_b64: {encode_b64_text(result.details)}")
        lines.append(RESULT_END)
        return "\n".join(lines)

    def describe(self, result: CommandResult) -> dict[str, Any]:
        return {}

    def action_kind(self, action: str | None) -> ActionKind | None:
        from .commands import model_for

        model = model_for(action) if action is not None else None
        if model is None:
            return None
        if model.RUNS:
            return "run"
        return "write" if model.WRITES else "read"

    def engine_code(self, code: str | None) -> str | None:
        return code if code in _ENGINE_CODES else None

    def named(self, result: CommandResult) -> str:
        return f"{result.shown_id} ({result.action} on {result.path})"

    def request(self, result: CommandResult) -> str | None:
        return None

    def folder(self, rel: str) -> str:
        # as its results name folders: from the root
        return "the workspace root" if rel == "." else f"{rel}/"

    def bare_summary(self, summary: str, code: str | None) -> str:
        if code:
            for prefix in (f"Invalid OPERATOR_CMD ({code}): ", f"{code}: "):
                summary = summary.removeprefix(prefix)
        return summary

    def prompt(self, length: PromptLength = "prompt") -> str:
        from .spec import full_prompt, interface_text, system_prompt

        if length == "full":
            return full_prompt()
        return interface_text() if length == "raw" else system_prompt()


_ENGINE_CODES = frozenset(code.value for code in ErrorCode)
DIALECT: Dialect = OperatorCmd()
