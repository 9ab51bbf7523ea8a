"""The bridge's feeder thread with the TUI's real EngineRunner behind it, without the app: what the
runner tells the screen of a streamed message (MessageBegan, then MessageGrew per chunk) adds up
to exactly the text the page sent, however the page's updates were queued."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from operator_app.bridge.feeder import Feeder
from operator_app.bridge.pages import End, Feed, Open
from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.state.session import Session
from operator_app.protocol.results import CommandResult
from operator_app.tui.messages import MessageBegan, MessageFinished, MessageGrew
from operator_app.tui.runner import EngineRunner

FIRST = "Hello.\n\n```text\nOPERATOR_CMD\n"
REST = "version: 1\nid: r1\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n```\n\nDone."


class Events:
    """The feeder's FeederEvents, recorded; `done` is set when a message ends or fails."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.problems: list[str] = []

    def opened(self, serial: int, number: int) -> None:
        pass

    def engine_event(self, serial: int, event: Any) -> None:
        pass

    def ended(self, serial: int, results: list[CommandResult]) -> None:
        self.done.set()

    def failed(self, serial: int, why: str) -> None:
        self.problems.append(why)
        self.done.set()


def shown_text(posted: list[Any]) -> str:
    """The text the TUI's message pane holds: what MessageBegan carried, then every chunk grown."""
    text = ""
    for message in posted:
        if isinstance(message, MessageBegan):
            text = message.text
        elif isinstance(message, MessageGrew):
            text += message.chunk
    return text


def test_a_streamed_message_is_shown_once_whatever_was_queued_when_it_opened(
    tmp_path: Path,
) -> None:
    (tmp_path / "ws").mkdir()
    posted: list[Any] = []
    runner = EngineRunner(
        Workspace(tmp_path / "ws"), Session(tmp_path / "state"), posted.append, lambda *_: "no"
    )
    events = Events()
    feeder = Feeder(lambda: runner, events)  # type: ignore[arg-type]
    # The page's first text comes with its Open, as Bridge.update queues them: the message opens
    # while the first chunk is still in the queue (it is what a write's dialog looks ahead at).
    feeder.put([Open(1, ("claude.ai/chat/x", 0), "bridge Claude"), Feed(1, FIRST)])
    feeder.start()
    feeder.put([Feed(1, REST[:20]), Feed(1, REST[20:]), End(1)])
    assert events.done.wait(10) and not events.problems
    feeder.stop()
    feeder.join(5)
    assert any(isinstance(message, MessageFinished) for message in posted)
    number = next(message.number for message in posted if isinstance(message, MessageBegan))
    assert runner.message_text(number) == FIRST + REST  # what the session saved
    assert shown_text(posted) == FIRST + REST  # what the screen shows: the same, once
