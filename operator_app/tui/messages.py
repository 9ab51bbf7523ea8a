"""Textual messages that carry engine events from worker threads to the app, where the handlers
own all UI state (workers never touch widgets)."""

from __future__ import annotations

from textual.message import Message

from ..engine.executor import EngineEvent


class EngineEventPosted(Message):
    def __init__(self, message_number: int, event: EngineEvent) -> None:
        super().__init__()
        self.message_number = message_number
        self.event = event


class MessageStarted(Message):
    def __init__(self, number: int, text: str, source: str) -> None:
        super().__init__()
        self.number = number
        self.text = text
        self.source = source


class MessageGrew(Message):
    """A followed message received more text (and maybe has a pending block)."""

    def __init__(self, number: int, text: str, pending_line: int | None, pending_id: str | None) -> None:
        super().__init__()
        self.number = number
        self.text = text
        self.pending_line = pending_line
        self.pending_id = pending_id


class MessageFinished(Message):
    def __init__(self, number: int, warnings: list[str]) -> None:
        super().__init__()
        self.number = number
        self.warnings = warnings


class ClipboardText(Message):
    """New clipboard text holding OPERATOR_CMD (--watch-clipboard)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class WorkFailed(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
