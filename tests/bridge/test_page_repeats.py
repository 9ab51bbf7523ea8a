"""The repeat rule on the bridge's path (bridge/pages.py turning the page's updates into stream
operations, the feeder thread, the TUI's real EngineRunner): a page message the page sends again
after its Operator message ended becomes a further Operator message, whose blocks that already
ran are answered from then and never run twice; the same text in another page message (a new
answer of the model) is new: its change is asked about, the dialog told it repeats message N."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from operator_app.bridge.feeder import Feeder
from operator_app.bridge.pages import PageMessages
from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.state.session import Session
from operator_app.tui.runner import EngineRunner
from tests.bridge.test_feeder import Events
from tests.support.string_exec import chan


def test_a_page_message_sent_again_never_runs_a_block_twice(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "log.md").write_text("start\n")
    asked: list[Any] = []

    def ask(plan: Any, number: int, outlook: Any) -> str:
        asked.append(plan)
        return "no" if plan.asked_alone else "yes"

    runner = EngineRunner(Workspace(ws), Session(tmp_path / "state"), lambda _: None, ask)
    pages = PageMessages()
    first = "Adding a line.\n" + chan("/append log.md\nonce")
    grown = first + "And a look at it.\n" + chan("/open log.md")

    def deliver(key: tuple[str, int], text: str) -> list[Any]:
        events = Events()
        feeder = Feeder(lambda: runner, events)
        feeder.start()
        feeder.put(pages.update(key, text, generating=False, source="bridge test"))
        assert events.done.wait(20) and not events.problems
        feeder.stop()
        feeder.join(5)
        return runner.results_of(runner.session.last_message_number())

    page = ("chat.example/c/1", 3)
    (appended,) = deliver(page, first)
    assert appended.ok and (ws / "log.md").read_text() == "start\nonce\n"
    # The page shows the answer again, grown after its message ended: a further Operator message
    # with the whole text. Its /append already ran: answered from then, not run again.
    repeat, opened = deliver(page, grown)
    assert repeat.repeat_of == 1 and repeat.id == appended.id
    assert opened.ok and (ws / "log.md").read_text() == "start\nonce\n"
    assert len(asked) == 1
    # The same words as a new answer of the model (the next position): a look-alike, asked about
    # with the fact in the dialog; declined, nothing changes.
    (declined,) = deliver(("chat.example/c/1", 5), first)
    assert declined.error_code == "REJECTED" and (ws / "log.md").read_text() == "start\nonce\n"
    assert asked[-1].asked_alone
    assert asked[-1].notes[0].startswith("this message has the same text as message 1, whose ")
