"""What the engine announces while it works on a message, to whoever listens (the TUI, the
bridge): a message opened, the blocks its scan found, a block started, a write waiting for the
person, a result ready (always after it is recorded), a repeat answered, a long read's progress,
a block for another channel."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from ...protocol.dialect import Block
    from ...protocol.results import CommandResult
    from ..changes.plan import WritePlan
    from .outlook import WriteOutlook


class MessageOpened(Struct, frozen=True):
    number: int
    source: str


# A block's first and last line in its message (None: open to the message's end).
BlockSpan = tuple[int, int | None]


class BlocksFound(Struct, frozen=True):
    """Blocks the message's scan found (a pasted message's all at once, a streamed one's as each
    is complete), by their lines, before any of them runs: where a view marks the blocks, from
    the engine's one scan of the text instead of a scan of its own. Only blocks Operator answers
    (not another channel's)."""

    spans: tuple[BlockSpan, ...]

    @classmethod
    def of(cls, blocks: Iterable[Block]) -> BlocksFound:
        return cls(tuple((block.start_line, block.end_line) for block in blocks if block.runs))


class BlockStarted(Struct, frozen=True):
    line: int
    command_id: str | None
    action: str | None
    path: str | None


class AwaitingDecision(Struct, frozen=True):
    plan: WritePlan
    outlook: WriteOutlook  # which write of its message it is, and what else the message writes


class ResultReady(Struct, frozen=True):
    result: CommandResult


class DuplicateSkipped(Struct, frozen=True):
    command_id: str
    earlier: CommandResult
    earlier_message: int
    line: int | None = None


class ForeignBlock(Struct, frozen=True):
    """A block the engine does not answer (a ChanFlow block of another channel): no result."""

    line: int
    channel: str


class Progress(Struct, frozen=True):
    command_id: str
    text: str


class CommandOutput(Struct, frozen=True):
    """A command running (engine/shell): its last lines of output so far, how long it has run, and
    how to stop it; sent a few times a second, and once more with `done` when it has ended, with
    its exit status (None: it was stopped, ran out of time, or never started). That last one
    comes before its change-set is asked about, so a front end can show how it ended first."""

    command_id: str
    text: str
    seconds: float
    lines: int
    stop: Callable[[], None]
    done: bool = False
    exit: int | None = None


EngineEvent = (
    ForeignBlock
    | MessageOpened
    | BlocksFound
    | BlockStarted
    | AwaitingDecision
    | ResultReady
    | DuplicateSkipped
    | Progress
    | CommandOutput
)
Listener = Callable[[EngineEvent], None]
