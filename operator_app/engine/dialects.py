"""The engine halves of the dialects, found through the protocol's table (protocol/dialects.py
names the module that holds each one's ENGINE_HALF), and the engine's answers that ask every
dialect: a write the app died in the middle of phrased in its own dialect, and the blocks of a
recorded message that have no result (after a restart)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from ..protocol.dialects import default_name, dialect_named

if TYPE_CHECKING:
    from ..protocol.message import MessageScan
    from ..protocol.results import CommandResult
    from .boundary.workspace import Workspace
    from .changes.outcomes import Landing
    from .messages.interface import DialectEngine, Unanswered
    from .state.session import Session, UsedIds
    from .state.used_ids import WriteIntent


@cache
def engine_half(name: str) -> DialectEngine:
    half: DialectEngine = importlib.import_module(dialect_named(name).engine_half).ENGINE_HALF
    return half


def recover_interrupted_writes(
    workspace: Workspace, session: Session
) -> list[tuple[int, CommandResult]]:
    """Record a result for every approved write an earlier run died in the middle of, in the form
    of its own dialect (changes/recovery.py); what was recorded, with each one's message. Call it
    with the session lock held."""
    from .changes.recovery import recover_interrupted_writes as recover

    def phrase(intent: WriteIntent, landing: Landing) -> CommandResult:
        return engine_half(str(intent.extra.get("dialect", default_name()))).recovered(
            intent, landing
        )

    return recover(workspace, session, phrase)


def unanswered_blocks(
    text: str, number: int, used: UsedIds, *, interrupted: bool, scan: MessageScan | None = None
) -> list[Unanswered]:
    """The blocks of message `number` (its recorded `text`) that have no result of their own:
    repeats of an earlier message's commands, and, in a message the app stopped in
    (`interrupted`), blocks that never ran. The caller leaves out those it holds results for.
    `scan`: the scan of `text`, when the caller made it already (it is not made twice)."""
    if scan is None:
        from ..protocol.message import scan_whole

        scan = scan_whole(text)
    found = []
    for block in scan.blocks:
        missing = engine_half(block.dialect).unanswered(block, used, number, interrupted)
        if missing is not None:
            found.append(missing)
    return found
