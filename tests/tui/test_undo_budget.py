"""Issue 28, item 5, in the TUI: when the undo journal lets go of the oldest changes to stay
within its budget, the person is told, as a warning of the message, and the change's row says
it too."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from operator_app.engine.safety import journal_budget
from tests.support.blocks import b64, block
from tests.support.pilot import SIZE, asks, notes, wait_for
from tests.support.tui_app import finished, make_app, results_of

pytestmark = pytest.mark.asyncio


async def test_the_person_is_told_when_undo_depth_is_cut(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_budget, "MESSAGE_MAX_BYTES", 60_000)
    (workspace / "f.txt").write_text("A" * 25_000)
    message = "".join(
        block(f"w{n}", "fs.write", path="f.txt", content_b64=b64(letter * 25_000))
        for n, letter in enumerate("BCD", 1)
    )
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("a")  # this write and the others of the message, to the same file
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 3)
        cut = results_of(app)[2]
        assert "undo depth cut: the 1 oldest changes" in cut.summary, cut.summary
        warned = [warning for warning in app.current().warnings if "undo depth cut" in warning]
        assert warned, app.current().warnings
        await wait_for(pilot, lambda: any("undo depth cut" in note for note in notes(app)))
    assert (workspace / "f.txt").read_text() == "D" * 25_000
