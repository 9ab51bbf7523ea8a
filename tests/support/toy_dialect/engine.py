"""The toy dialect's engine half: a `[[toy: read PATH]]` block is the engine's fs.read, run through
the message's context like any dialect's block, its result kept with the engine's codes and
tagged with the toy's name and its block's command (what the toy's answers quote)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec.structs import replace

from operator_app.engine import BlockStarted
from operator_app.protocol import CommandResult

from .reader import ToyBlock

if TYPE_CHECKING:
    from operator_app.engine import PlannedWrite, Unanswered
    from operator_app.engine.messages.interface import DialectEngine, MessageContext
    from operator_app.protocol import Block


class ToyRunner:
    def __init__(self, context: MessageContext) -> None:
        self.context = context

    def run(self, block: Block) -> None:
        assert isinstance(block, ToyBlock)
        context = self.context
        command_id = f"toy-{block.start_line}"
        context.notify(BlockStarted(block.start_line, command_id, "toy.read", None))
        verb, _, path = block.command.partition(" ")
        if block.end_line is None or verb != "read" or not path.strip():
            result = CommandResult(
                id=command_id,
                ok=False,
                summary="ERR_INVALID_PARAMS: a toy block is [[toy: read PATH]]",
                error_code="ERR_INVALID_PARAMS",
                status="invalid",
            )
        else:
            from operator_app.protocol.commands import model_for

            model = model_for("fs.read")
            assert model is not None
            command = model.model_validate(
                {"version": "1", "id": command_id, "action": "fs.read", "path": path.strip()}
            )
            result = context.execute(command)
        result = replace(
            result,
            action="toy.read",
            dialect="toy",
            frame={"command": block.command},
            line=block.start_line,
        )
        context.add(result, content_key=None)

    def planned_write(self, block: Block, used: Mapping[str, object]) -> PlannedWrite | None:
        return None  # it only reads

    def pause(self) -> None:
        pass

    def end(self) -> None:
        pass


class ToyEngine:
    name = "toy"

    def runner(self, context: MessageContext) -> ToyRunner:
        return ToyRunner(context)

    def unanswered(
        self, block: Block, used: Mapping[str, object], number: int, interrupted: bool
    ) -> Unanswered | None:
        return None

    def recovered(self, intent: object, landing: object) -> CommandResult:
        raise AssertionError("the toy dialect writes nothing, so no write of it is recovered")


ENGINE_HALF: DialectEngine = ToyEngine()
