""" "Send selection to Operator" with the real TUI and bridge: the person's selection runs in
Operator and its results land in the page's input box, exactly what `c` copies. The first reply
to a page message says `message: null` (Operator's engine opens the message a moment later, on
its own thread); the extension must watch for the results all the same. The page is one nobody
chose to watch: the selection is the person's own choice of text, and only it is read."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.blocks import block
from tests.support.browser import require_browser
from tests.support.end_to_end import (
    input_value,
    open_chat,
    paired_tui_and_browser,
    panel_says,
    tab_id,
)
from tests.support.pilot import notes, rows, wait_for
from tests.support.pilot import press_copy as copied

require_browser()

pytestmark = pytest.mark.asyncio

PAGE = (
    "Two things to run:\n\n"
    + block("s1", "fs.list", path="notes")
    + "\n"
    + block("s2", "fs.read", path="notes/plan.txt")
    + "\nThanks."
)
SELECT_THE_BLOCKS = """() => {
  const parts = [...document.querySelectorAll('.bubble p')].filter(p =>
    p.textContent.includes('OPERATOR_CMD'));
  const range = document.createRange();
  range.setStartBefore(parts[0]);
  range.setEndAfter(parts[parts.length - 1]);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
}"""


async def test_send_selection_runs_the_selected_blocks_and_fills_the_input_box(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "127.0.0.1", "/local/selection")
        await page.evaluate("text => mockChat.show(text)", PAGE)
        await page.evaluate(SELECT_THE_BLOCKS)
        tab = await tab_id(browser, "/local/selection")
        # What the context menu's click hands the background (its selectionText loses the line
        # breaks; the extension reads the selection in the page).
        await browser.worker.evaluate(
            "([tabId, url]) => globalThis.operatorBridge.sendSelection("
            "{menuItemId: 'operator-send-selection', frameId: 0, pageUrl: url, "
            "selectionText: 'OPERATOR_CMD version: 1 id: s1'},"
            " {id: tabId, url, title: 'Local chat'})",
            [tab, page.url],
        )
        await wait_for(
            pilot, lambda: rows(app) == [("s1", "ok"), ("s2", "ok")] and app.current().finished
        )
        assert app.current().source == f"bridge 127.0.0.1:{mock_sites.port}"
        await panel_says(pilot, page, "ready")
        filled = await input_value(page)
        assert filled == await copied(pilot, app)
        assert filled.split("\n").count("OPERATOR_RESULT") == 2
        await wait_for(
            pilot, lambda: any("2 results are in the chat's input box" in n for n in notes(app))
        )
        # The page itself was not chosen: its own answer is not read, only the selection was.
        await asyncio.sleep(3.0)
        assert len(app.states) == 1
