"""Textual messages that carry what happens on worker threads (engine events, followed text,
clipboard text, copies, undos) to the app, whose handlers own all UI state: workers never touch
widgets."""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from ..engine import EngineEvent, JournalEntry, WriteOutlook, WritePlan
from .clipboard import CopyOutcome
from .state import MessageState


class FromRunner(Message):
    """Posted by an EngineRunner, which stamps itself as `origin`: after a workspace change the app
    ignores what the previous runner still says."""

    origin: object = None


class MessageBegan(FromRunner):
    """The engine opened a message (its number is known from here on)."""

    def __init__(self, number: int, source: str, text: str) -> None:
        super().__init__()
        self.number, self.source, self.text = number, source, text


class EngineEventPosted(FromRunner):
    def __init__(self, message_number: int, event: EngineEvent) -> None:
        super().__init__()
        self.message_number = message_number
        self.event = event


class MessageGrew(FromRunner):
    """A followed message received more text (posted before the engine scans it)."""

    def __init__(self, number: int, chunk: str) -> None:
        super().__init__()
        self.number, self.chunk = number, chunk


class PendingChanged(FromRunner):
    """A followed message's trailing block still open (or not any more)."""

    def __init__(self, number: int, pending: tuple[int, str | None, str] | None) -> None:
        """`pending`: the open block's start line, what names it, and what it waits for."""
        super().__init__()
        self.number, self.pending = number, pending


class MessageFinished(FromRunner):
    def __init__(self, number: int, warnings: list[str]) -> None:
        super().__init__()
        self.number, self.warnings = number, warnings


class ClipboardText(Message):
    """New clipboard text holding OPERATOR_CMD (--watch-clipboard)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class CopyDone(Message):
    """`what` was copied; `note` is said beside its size; `auto`: auto-copy did it, not a key."""

    def __init__(
        self, what: str, text: str, outcome: CopyOutcome, *, note: str = "", auto: bool = False
    ) -> None:
        super().__init__()
        self.what, self.text, self.outcome, self.note, self.auto = what, text, outcome, note, auto


class UndoDone(Message):
    def __init__(self, text: str, ok: bool) -> None:
        super().__init__()
        self.text, self.ok = text, ok


class WorkFailed(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class HistoryLoaded(FromRunner):
    """The session folder of a newly opened workspace was read (on a worker)."""

    def __init__(self, states: dict[int, MessageState]) -> None:
        super().__init__()
        self.states = states


class UndoChecked(FromRunner):
    """What the journal allows to undo now, newest first; `ask` when the person pressed u.
    `undone`: the changes undone already (command id -> when), which their rows show."""

    def __init__(self, entries: list[JournalEntry], ask: bool, undone: dict[str, float]) -> None:
        super().__init__()
        self.entries, self.ask, self.undone = entries, ask, undone


class ConsentAsked(Message):
    """A write waits for the person (posted by the engine's worker, which then waits for `answer`).
    A message, not a direct call, so it is handled after the engine events posted before it."""

    def __init__(
        self,
        plan: WritePlan,
        number: int,
        outlook: WriteOutlook,
        answer: Callable[[str | None], None],
    ) -> None:
        super().__init__()
        self.plan, self.number, self.outlook, self.answer = plan, number, outlook, answer
