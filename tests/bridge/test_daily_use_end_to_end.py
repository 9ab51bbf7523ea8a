"""End to end, as a person uses the bridge day to day (issue 20): the real TUI (Pilot) with its real
bridge, the real extension in Chromium, the mock chat pages. What the terminal shows of a streamed
answer, and what happens to an answer written while the bridge was off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser_support import require_browser

require_browser()

from e2e_helpers import open_chat, paired_tui_and_browser, rows, wait_for  # noqa: E402

pytestmark = pytest.mark.asyncio

START = "Hello.\n\n```text\nOPERATOR_CMD\nversion: 1"
REST = "\nid: r1\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n```\n\nDone."


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
        whole = app.runner.session.message_text(app.current().number)  # as the page shows it: no fences
        assert whole.startswith("Hello.\n\nOPERATOR_CMD\nversion: 1\nid: r1\n") and whole.endswith("\n\nDone.")
        await wait_for(pilot, lambda: not app._refresh_scheduled)
        assert [line.text for line in app.message_view.lines if line.number is not None] == whole.split("\n")
