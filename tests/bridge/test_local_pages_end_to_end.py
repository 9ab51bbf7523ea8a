"""A page on this computer is not a chat the person chose. The generic fallback watches a page only
once the person chose its origin in the popup, and stops when they say so: otherwise a local page
(a cloned repository's docs, a notebook, a dev server) holding a hidden OPERATOR_CMD block would
make Operator run it without anyone asking, and its own script would read the results from its
text box. The real TUI with its real bridge, the real extension in Chromium, and such a page."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.end_to_end import paired_tui_and_browser, panel_state, tab_id, until
from tests.support.pilot import question, rows, wait_for

require_browser()

pytestmark = pytest.mark.asyncio
LOCAL_DOCS = "/project/docs?page=local-docs"
QUIET_S = 4.0  # longer than the generic fallback's quiet period (2.5 s) that ends an answer


async def feedback(page: Any) -> str:
    return str(await page.input_value("#feedback"))


async def test_a_local_page_is_watched_only_once_the_person_chose_it_and_until_they_stop(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        local, other = await browser.context.new_page(), await browser.context.new_page()
        await local.goto(mock_sites.url("127.0.0.1", LOCAL_DOCS))
        await other.goto(mock_sites.url("localhost", LOCAL_DOCS))
        await asyncio.sleep(QUIET_S)
        # Nobody chose these pages: Operator heard nothing of them and ran nothing.
        assert app.states == {}
        assert app.bridge.bridge.tab is None  # and no tab was reported
        for page in (local, other):
            assert await feedback(page) == "" and await page.evaluate("() => window.readBack") == []
            assert await panel_state(page) == ""

        popup = await browser.popup(
            await tab_id(browser, f"127.0.0.1:{mock_sites.port}/project/docs")
        )
        await popup.wait_for_selector("#tab-state[data-state='idle']")
        said = await popup.inner_text("#tab")
        assert "not watching this page" in said and "holds a block for Operator" in said
        assert await popup.is_hidden("#chosen")
        await popup.click("#watch-tab")
        await popup.wait_for_selector("#tab-state[data-state='ok']")
        origin = f"http://127.0.0.1:{mock_sites.port}"
        assert origin in await popup.inner_text("#chosen-origins")
        # Chosen: the page is read like a chat. The block was on it before Operator watched it:
        # it runs when the person says so, and its results go into the page's text box.
        await wait_for(
            pilot, lambda: "1 answer ended while Operator was not listening" in question(app)
        )
        assert app.states == {}
        await pilot.press("y")
        await wait_for(pilot, lambda: rows(app) == [("hidden1", "ok")])
        await until(
            pilot, lambda: local.evaluate("() => document.getElementById('feedback').value !== ''")
        )
        assert "id: hidden1" in await feedback(local)
        assert (
            await feedback(other) == ""
        )  # localhost on the same port is another origin: not chosen
        assert len(app.states) == 1

        # Remembered for the origin: the page loaded again is watched at once.
        await local.reload()
        popup_again = await browser.popup(
            await tab_id(browser, f"127.0.0.1:{mock_sites.port}/project/docs")
        )
        await popup_again.wait_for_selector("#tab-state[data-state='ok']")
        await popup_again.close()

        await popup.reload()
        await popup.wait_for_selector("#stop-tab:not([hidden])")
        await popup.click("#stop-tab")
        await popup.wait_for_selector("#tab-state[data-state='idle']")
        # The list of chosen pages is redrawn beside the tab's line, not before it: wait for it.
        await popup.wait_for_selector("#chosen", state="hidden", timeout=5000)
        # Stopped: a block the page adds now goes nowhere.
        await local.evaluate("() => addHiddenBlock('hidden2')")
        await asyncio.sleep(QUIET_S)
        assert len(app.states) == 1
        assert all(command_id != "hidden2" for command_id, _ in rows(app))
