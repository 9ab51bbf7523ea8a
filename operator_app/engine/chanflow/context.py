"""What a String command is handed and hands back. `Call` holds the block being answered: the
message it runs in (engine/messages/interface.py `MessageContext`: the engine's `execute` and
`consent`, the workspace, the session), the topic's state, and the request. `Answer` is a
handler's success; a failure is a StringError raised. Either way the handler leaves the record of
what the engine did in `Call.outcome`, and the answer carries it."""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct, field

from ...protocol.chanflow.commands import Request
from ...protocol.outcomes import Outcome
from ..boundary.workspace import Workspace
from ..messages.interface import MessageContext
from .topics import TopicState, TopicStore


class Call(Struct):
    context: MessageContext
    store: TopicStore
    topic: TopicState
    line: int
    request_id: str
    request: Request
    content_key: str
    record_intent: Callable[
        [str, str, str, dict[str, object]], None
    ]  # (action, rel, summary, extra)
    closed: bool = False  # /close discarded the topic: nothing to save after the command
    # A change in a message with the same text as an earlier one: what its dialog must say first
    # (engine/chanflow/identity.py). None for any other block.
    lookalike: str | None = None
    # Said after the answer's message (why a secret read waited).
    notes: list[str] = field(default_factory=list)
    # What the command did, as the engine recorded it (a read, a change, a walk, a script that
    # ran): the answer carries it, whether the command succeeded or not.
    outcome: Outcome | None = None

    @property
    def ws(self) -> Workspace:
        return self.context.workspace

    @property
    def command(self) -> str:
        """ "/open": how the table and the intent name the command."""
        return f"/{self.request.name}"


class Answer(Struct, frozen=True):
    message: str  # the system message ("Opened notes.md", "✓ Written: ...")
    content: str | None = None  # what follows "---"; None for a confirmation alone
    path: str | None = None  # the workspace-relative path it concerns, for the table
    diff: str | None = None  # a change's preview diff, for the person (never sent to the model)
    context: tuple[str, ...] = ()  # lines after the message, before any content
