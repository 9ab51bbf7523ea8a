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
SLOW_S = 120.0  # the most a step may take on a loaded machine (a bound, never a wait)


async def feedback(page: Any) -> str:
    return str(await page.input_value("#feedback"))


async def popup_says(pilot: Any, browser: Any, tab: int | None, *words: str) -> Any:
    """The popup of `tab` once it says all of `words`. It asks the page's content script when it
    opens, so it is opened again until the script, which starts some time after the page on a
    loaded machine, has answered (issue 36: a popup drawn before it said "this tab")."""
    assert tab is not None
    opened: list[Any] = []

    async def says() -> bool:
        if opened:
            await opened.pop().close()
        popup = await browser.popup(tab)
        opened.append(popup)
        said = await popup.inner_text("#tab")
        return all(word in said for word in words)

    await until(pilot, says, timeout=SLOW_S)
    return opened[0]


async def test_a_local_page_is_watched_only_once_the_person_chose_it_and_until_they_stop(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        local, other = await browser.context.new_page(), await browser.context.new_page()
        await local.goto(mock_sites.url("127.0.0.1", LOCAL_DOCS))
        await other.goto(mock_sites.url("localhost", LOCAL_DOCS))
        local_tab = await tab_id(browser, f"127.0.0.1:{mock_sites.port}/project/docs")
        # The extension has read the page (its script there says what it found)...
        unchosen = ("not watching this page", "holds a block for Operator")
        popup = await popup_says(pilot, browser, local_tab, *unchosen)
        # ... and nobody chose these pages: Operator heard nothing of them and ran nothing (the
        # localhost one, whose address the extension is not shown, is looked at again below,
        # once the chosen page's results are in).
        assert app.states == {}
        assert app.bridge.bridge.tab is None  # and no tab was reported
        for page in (local, other):
            assert await feedback(page) == "" and await page.evaluate("() => window.readBack") == []
            assert await panel_state(page) == ""

        assert await popup.get_attribute("#tab-state", "data-state") == "idle"
        assert await popup.is_hidden("#chosen")
        await popup.click("#watch-tab")
        await popup.wait_for_selector("#tab-state[data-state='ok']")
        origin = f"http://127.0.0.1:{mock_sites.port}"
        assert origin in await popup.inner_text("#chosen-origins")
        # Chosen: the page is read like a chat. The block was on it before Operator watched it:
        # it runs when the person says so, and its results go into the page's text box.
        await wait_for(
            pilot,
            lambda: "1 answer ended while Operator was not listening" in question(app),
            timeout=SLOW_S,
        )
        assert app.states == {}
        await pilot.press("y")
        await wait_for(pilot, lambda: rows(app) == [("hidden1", "ok")], timeout=SLOW_S)
        await until(
            pilot,
            lambda: local.evaluate("() => document.getElementById('feedback').value !== ''"),
            timeout=SLOW_S,
        )
        assert "id: hidden1" in await feedback(local)
        assert (
            await feedback(other) == ""
        )  # localhost on the same port is another origin: not chosen
        assert len(app.states) == 1

        # Remembered for the origin: the page loaded again is watched at once.
        await local.reload()
        # (its script comes back some time after the page: the popup is asked until it has)
        await popup.close()
        popup = await popup_says(pilot, browser, local_tab, "Stop watching")
        assert await popup.get_attribute("#tab-state", "data-state") == "ok"

        await popup.click("#stop-tab")
        await popup.wait_for_selector("#tab-state[data-state='idle']", timeout=SLOW_S * 1000)
        # The list of chosen pages is redrawn beside the tab's line, not before it: wait for it.
        await popup.wait_for_selector("#chosen", state="hidden", timeout=SLOW_S * 1000)
        # Stopped (the popup says so once the page's script was told): a block the page adds
        # now goes nowhere. That nothing comes can only be watched for a while.
        await local.evaluate("() => addHiddenBlock('hidden2')")
        await asyncio.sleep(QUIET_S)
        assert len(app.states) == 1
        assert all(command_id != "hidden2" for command_id, _ in rows(app))
