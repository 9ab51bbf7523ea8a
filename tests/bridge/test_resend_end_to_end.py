"""The content script's heartbeat re-posts the answer it follows only when the extension's
background has no word of it. A finished answer whose results went back is not posted again, not
even after the browser stopped the background's service worker (which forgets what it held in
memory). The real TUI and bridge; what the bridge is told is counted at its door."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.blocks import block
from tests.support.browser import AsyncExtensionBrowser, require_browser
from tests.support.end_to_end import (
    last_heartbeat,
    open_chat,
    paired_tui_and_browser,
    panel_says,
    person_asks,
    ping,
    restart_service_worker,
    until,
)
from tests.support.pilot import notes, rows, wait_for

require_browser()

pytestmark = pytest.mark.asyncio
ANSWER = (
    "Reading.\n\n"
    + block("k1", "fs.read", path="notes/plan.txt")
    + "\n"
    + block("k2", "fs.list", path=".")
    + "\nDone."
)


async def heartbeats(pilot: Any, browser: AsyncExtensionBrowser, page: Any, count: int = 3) -> None:
    """`count` heartbeats from the page, each one seen by the background."""
    for _ in range(count):
        before = await last_heartbeat(browser)
        await ping(page)
        await until(pilot, lambda before=before: _later(browser, before))


async def _later(browser: AsyncExtensionBrowser, than: float) -> bool:
    return await last_heartbeat(browser) > than


async def test_a_finished_answer_whose_results_went_back_is_not_posted_again(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.bridge import service

    told: list[tuple[Any, str, bool]] = []  # every text the bridge was given
    update = service.Bridge.update

    def recording(self: Any, key: Any, text: str, generating: bool, tab: Any, **kw: Any) -> Any:
        told.append((key, text, generating))
        return update(self, key, text, generating, tab, **kw)

    monkeypatch.setattr(service.Bridge, "update", recording)
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "chat.mistral.ai", "/chat/e2e-settled")
        await person_asks(page)
        await page.evaluate("text => mockChat.answer(text, {chunk: 50, every: 20})", ANSWER)
        await wait_for(pilot, lambda: rows(app) == [("k1", "ok"), ("k2", "ok")])
        await panel_says(pilot, page, "ready")
        await wait_for(
            pilot, lambda: any("2 results are in the chat's input box" in n for n in notes(app))
        )
        assert told[-1][2] is False  # the finished text was told
        finished = len(told)
        await heartbeats(pilot, browser, page)
        assert len(told) == finished
        await page.click("#send")  # the person sends them; the answer stays on the page
        await heartbeats(pilot, browser, page)
        assert len(told) == finished

        await restart_service_worker(browser)
        await heartbeats(pilot, browser, page)  # the first of them starts the worker again
        await asyncio.sleep(0.5)
        assert len(told) == finished
        assert sorted(app.states) == [app.current().number]
