"""The engine half of a dialect, and what it is given. `DialectEngine` is registered once: the
dialect's pure half (protocol/dialect.py) names the module that holds it as `ENGINE_HALF`, typed
`DialectEngine` there so the type checker holds it to this interface. For each message it makes
a `BlockRunner`, which answers that dialect's blocks in message order through the
`MessageContext` the executor hands it: the engine's actions (execute, consent), the session, and
the one way results are added (recorded before anyone sees them). The executor never looks at a
block's type: it asks the block's dialect."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from msgspec import Struct

if TYPE_CHECKING:
    from ...protocol.commands.base import Command
    from ...protocol.dialect import Block
    from ...protocol.errors import OperatorError
    from ...protocol.results import CommandResult
    from ..boundary.secrets import SecretPaths
    from ..boundary.workspace import Workspace
    from ..changes.outcomes import Landing
    from ..changes.plan import WritePlan
    from ..state.session import Session, WriteIntent
    from ..state.used_ids import UsedId
    from .events import EngineEvent
    from .lines import MessageLines
    from .outlook import PlannedWrite


class MessageContext(Protocol):
    """What a runner may use of the message it runs in (engine/executor.py `MessageRun`)."""

    number: int  # the message's number in the session
    # Why the block to run is not run: a write before it waits for an approval no person can give
    # in this run (not_approved.py). A runner answers such a block in its own form with
    # ERR_NOT_APPROVED, its id left free; a block that would not run anyway is answered as ever.
    held_back: str | None

    @property
    def origin_key(self) -> str:
        """What the message's blocks are known by besides their place in it: shared by every
        delivery of one page message (the bridge), the message's own otherwise."""
        ...

    @property
    def unattended(self) -> bool:
        """Writes are approved without anyone being asked (exec --approve all)."""
        ...

    @property
    def lines(self) -> MessageLines:
        """What this message's writes did to each file's lines (the line-number rule)."""
        ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def session(self) -> Session: ...

    @property
    def secrets(self) -> SecretPaths:
        """The paths that look like secrets: a read that would show the model one's content asks
        the person first, through `consent` (engine/changes/secret_read.py), in either dialect."""
        ...

    def execute(
        self,
        command: Command,
        *,
        before_commit: Callable[[WritePlan], None] | None = None,
        accept_plan: Callable[[WritePlan], OperatorError | None] | None = None,
        action_label: str | None = None,
        notes: tuple[str, ...] = (),
        rewrites: bool | None = None,
    ) -> CommandResult:
        """Run one engine action (Engine.execute): a read at once, a write planned, asked about
        and committed; never raises for the command's own failure. `notes`: what the person must
        read first in the write's dialog, which then asks about it on its own. `rewrites`: the
        write gives the file's whole text, so later line numbers of the message count that text
        (None: fs.write does, no other action)."""
        ...

    def consent(self, plan: WritePlan) -> bool:
        """Ask the person about something the runner does itself: a change (String's /undo), or
        a read of a file that looks like a secret (a plan of kind "read")."""
        ...

    @property
    def nobody_to_ask(self) -> bool:
        """No person can answer in this run: a refused consent is ERR_NOT_APPROVED, not the
        person's no (engine/messages/not_approved.py)."""
        ...

    def notify(self, event: EngineEvent) -> None: ...

    def warn(self, text: str) -> None:
        """A warning about the message (not a result): "line 4: ..."."""
        ...

    def add(self, result: CommandResult, *, content_key: str | None, durable: bool = False) -> None:
        """A block's answer: recorded in the session, then announced. `content_key`: what the
        session keeps to know the block again (None: nothing ran, it may be sent again);
        `durable`: a change was attempted, so the record is synced on its own."""
        ...

    def flush(self) -> None:
        """Record and announce the answers so far (before a write is asked about)."""
        ...

    def record_intent(
        self,
        command_id: str,
        *,
        action: str,
        path: str,
        line: int,
        summary: str,
        content_key: str | None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Before an approved change commits: what recovery needs if the app dies meanwhile.
        The dialect's name is added to `extra`, so recovery asks the right dialect to phrase it."""
        ...


class BlockRunner(Protocol):
    """Answers one message's blocks of its dialect, in order; made per message."""

    def run(self, block: Block) -> None:
        """Answer `block` through the context: every block that runs gets exactly one result."""
        ...

    def planned_write(self, block: Block, used: Mapping[str, UsedId]) -> PlannedWrite | None:
        """The write `block` will ask about when it is reached, as far as its text tells; None
        for a read, an invalid block, or one that will not run."""
        ...

    def pause(self) -> None:
        """The session is about to be let go of (a chunk is done, a write waits for the person):
        save what the runner keeps while the message runs (String's topics)."""
        ...

    def end(self) -> None:
        """The message is over (pause() was called just before)."""
        ...


class Unanswered(Struct, frozen=True):
    """A block of a recorded message that has no result of its own (after a restart)."""

    line: int
    command_id: str | None
    repeat: CommandResult | None  # a repeat of an earlier message's command: that result, marked
    earlier_message: int | None = None


@runtime_checkable
class DialectEngine(Protocol):
    name: str

    def runner(self, context: MessageContext) -> BlockRunner: ...

    def unanswered(
        self,
        block: Block,
        used: Mapping[str, UsedId],
        number: int,
        interrupted: bool,
    ) -> Unanswered | None:
        """What a block with no stored result of message `number` is: a repeat of an earlier
        message's command (its result, marked), a block the app stopped before (when
        `interrupted`), or None when it needs no row (a block that is not run)."""
        ...

    def recovered(self, intent: WriteIntent, landing: Landing) -> CommandResult:
        """The result, in this dialect's form, of a write the app died in the middle of, from
        whether it took effect (changes/recovery.py)."""
        ...
