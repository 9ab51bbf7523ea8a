"""What a String command is handed and hands back. `Call` holds the block being answered: the
engine to run actions with (its `execute` and `consent`, described by `EngineLike` so this
package never imports the executor above it), the topic's state, and the request. `Answer` is a
handler's success; a failure is a StringError raised."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ...protocol.chanflow.commands import Request
from ..boundary.workspace import Workspace
from ..state.session import Session
from .topics import TopicState, TopicStore

if TYPE_CHECKING:
    from ...protocol.commands.base import Command
    from ...protocol.errors import OperatorError
    from ...protocol.results import CommandResult
    from ..changes.plan import WritePlan


class EngineLike(Protocol):
    workspace: Workspace
    session: Session

    def execute(
        self,
        command: Command,
        *,
        before_commit: Callable[[WritePlan], None] | None = None,
        before_progress: Callable[[], None] | None = None,
        message: int = 0,
        accept_plan: Callable[[WritePlan], OperatorError | None] | None = None,
        action_label: str | None = None,
    ) -> CommandResult: ...

    def consent(self, plan: WritePlan, message: int) -> bool: ...

    @property
    def nobody_to_ask(self) -> bool: ...


@dataclass
class Call:
    engine: EngineLike
    store: TopicStore
    topic: TopicState
    message: int
    line: int
    request_id: str
    request: Request
    content_key: str
    record_intent: Callable[
        [str, str, str, dict[str, object]], None
    ]  # (action, rel, summary, extra)
    closed: bool = False  # /close discarded the topic: nothing to save after the command

    @property
    def ws(self) -> Workspace:
        return self.engine.workspace

    @property
    def command(self) -> str:
        """ "/open": how the table and the intent name the command."""
        return f"/{self.request.name}"


@dataclass(frozen=True)
class Answer:
    message: str  # the system message ("Opened notes.md", "✓ Written: ...")
    content: str | None = None  # what follows "---"; None for a confirmation alone
    path: str | None = None  # the workspace-relative path it concerns, for the table
    diff: str | None = None  # a change's preview diff, for the person (never sent to the model)
    context: tuple[str, ...] = ()  # lines after the message, before any content
