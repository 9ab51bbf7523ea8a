"""End to end, as a person uses the bridge day to day (issue 20): the real TUI (Pilot) with its real
bridge, the real extension in Chromium, the mock chat pages. What the terminal shows of a streamed
answer, and what happens to an answer written while the bridge was off."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from operator_app.tui.screens.confirm import ConfirmScreen
from tests.support.blocks import block
from tests.support.browser import AsyncExtensionBrowser, require_browser
from tests.support.end_to_end import (
    input_value,
    open_chat,
    paired_tui_and_browser,
    panel_says,
    pre_pair,
    until,
)
from tests.support.panel import panel_text_async as panel_text
from tests.support.pilot import SIZE, question, rows, wait_for
from tests.support.pilot import press_copy as copied

require_browser()

pytestmark = pytest.mark.asyncio

START = "Hello.\n\n```text\nOPERATOR_CMD\nversion: 1"
REST = "\nid: r1\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n```\n\nDone."
READ = block("r1", "fs.read", path="notes/plan.txt")


async def test_the_message_pane_shows_the_claude_pages_answer_once(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "claude.ai", "/chat/e2e-once")
        await page.evaluate("text => { mockChat.begin(); mockChat.grow(text); }", START)
        await wait_for(pilot, lambda: app.current() is not None)
        await pilot.pause(1.0)
        await page.evaluate("text => { mockChat.grow(text); mockChat.end(); }", REST)
        await wait_for(pilot, lambda: app.current().finished and rows(app) == [("r1", "ok")])
        whole = app.runner.session.message_text(
            app.current().number
        )  # as the page shows it: no fences
        assert whole.startswith("Hello.\n\nOPERATOR_CMD\nversion: 1\nid: r1\n") and whole.endswith(
            "\n\nDone."
        )
        await wait_for(pilot, lambda: not app.panes.redraw_pending)
        assert [
            line.text for line in app.message_view.lines if line.number is not None
        ] == whole.split("\n")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_answer_written_while_the_bridge_was_off_runs_only_when_the_person_says_so(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    """Issue 20, bug 3: b off, the model answers, b on. The page says at once that Operator stopped
    and started listening; the answer does not run by itself: the TUI asks, and y runs it."""
    from operator_app.tui.app import OperatorApp

    token = pre_pair()
    port = free_port()  # the same port when the bridge comes back, as a person's remembered one
    app = OperatorApp(
        workspace=workspace, state_dir=state, bridge=True, bridge_port=port, poll_interval=0.05
    )
    async with (
        app.run_test(size=SIZE) as pilot,
        AsyncExtensionBrowser(tmp_path / "profile") as browser,
    ):
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.port == port)
        await browser.set_storage({"token": token, "port": port})
        page = await open_chat(browser, mock_sites, "claude.ai", "/chat/e2e-off")
        await until(
            pilot,
            lambda: browser.worker.evaluate(
                "() => [...globalThis.operatorBridge.chatTabs.values()]"
                ".some(tab => tab.url.includes('e2e-off'))"
            ),
        )
        await wait_for(pilot, lambda: "Claude" in str(app.bridge_badge.render()))
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
        stopped_at = time.monotonic()
        await panel_says(pilot, page, "not-connected")
        assert time.monotonic() - stopped_at < 4.0  # at once, not at the next 10 s heartbeat
        assert "Operator is not listening" in await panel_text(page, ".panel")
        await page.evaluate(
            "text => mockChat.answer(text, {chunk: 40, every: 20})", "Reading.\n\n" + READ
        )
        await page.wait_for_function("() => !mockChat.generating")
        await asyncio.sleep(1.0)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is not None)
        started_at = time.monotonic()
        # "listening again", then Operator's word on the answer:
        await panel_says(pilot, page, "held")
        assert time.monotonic() - started_at < 6.0  # it ran by itself 7 to 22 s after, unannounced
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        # The page may tell the answer again before it has seen it end (a busy machine): the
        # question then says "began", and follows the page's word that it ended.
        await wait_for(
            pilot,
            lambda: "1 answer ended while Operator was not listening — run it?" in question(app),
        )
        assert "Claude" in question(app)
        assert "ended while Operator was not listening" in await panel_text(page, ".panel")
        await asyncio.sleep(3.0)
        assert app.states == {}  # nothing ran by itself
        await pilot.press("y")
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok")] and app.current().finished)
        await panel_says(pilot, page, "ready")
        assert await input_value(page) == await copied(pilot, app)
