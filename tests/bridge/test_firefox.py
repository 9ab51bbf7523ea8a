"""The extension in Firefox (ESR, from the system's packages), driven over WebDriver BiDi: the
manifest loads there as a temporary add-on, the popup pairs by code, and one streamed turn goes
through, the answer streaming to Operator's side and the results landing in the chat's real
ProseMirror editor. Operator's side is the contract double (contract_double.py), as for the
Chromium page tests. Where Firefox is absent the test is skipped, saying so (.ci/run installs
it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.browser import EXTENSION_DIR, MockSites, why_browser_tests_cannot_run
from tests.support.chat_page import ANSWER, COPY_TEXT
from tests.support.contract_double import BridgeDouble
from tests.support.firefox_bidi import Firefox, firefox_path

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(
        firefox_path() is None,
        reason=(
            "Firefox tests skipped: no firefox-esr or firefox on PATH "
            "(Debian: apt-get install firefox-esr)"
        ),
    ),
    pytest.mark.skipif(
        why_browser_tests_cannot_run() is not None, reason=str(why_browser_tests_cannot_run())
    ),
]


async def test_pairing_and_one_streamed_turn_in_firefox(tmp_path: Path) -> None:
    double = BridgeDouble(pairing_code="739104")
    sites = MockSites()
    try:
        async with Firefox(tmp_path / "firefox-profile") as firefox:
            assert (
                await firefox.install_extension(EXTENSION_DIR)
                == "operator-bridge@operator-app.local"
            )
            popup = await firefox.open_extension_page("popup/popup.html")
            await firefox.wait_for(popup, "!document.getElementById('pairing').hidden")
            await firefox.evaluate(
                popup,
                f"""(() => {{
                document.getElementById('pair-port').value = '{double.port}';
                document.getElementById('pair-code').value = '739104';
                document.getElementById('pair-button').click(); return true; }})()""",
            )
            await firefox.wait_for(
                popup, "document.getElementById('connection-state').dataset.state === 'connected'"
            )
            pair = double.posts("/v1/pair")[-1]
            assert pair.headers.get("Origin", "").startswith("moz-extension://")
            assert pair.body["browser"].startswith("Firefox ")

            chat = await firefox.new_tab(sites.url("chatgpt.com", "/c/firefox-turn"))
            await firefox.wait_for(chat, "window.mockChat !== undefined")
            await asyncio.to_thread(
                double.wait_for, lambda d: d.posts("/v1/hello"), 10
            )  # the content script's ping
            await firefox.evaluate(
                chat, f"mockChat.answer({ANSWER!r}, {{chunk: 37, every: 30}}).then(() => true)"
            )
            key = (f"chatgpt.com:{sites.port}/c/firefox-turn", 0)
            await asyncio.to_thread(
                double.wait_for,
                lambda d: any(not r.body["generating"] for r in d.posts("/v1/message")),
                20,
            )
            streamed = [
                body for body in (r.body for r in double.posts("/v1/message")) if body["generating"]
            ]
            assert streamed, "the answer was sent while it was being written"
            finished = [
                r.body["text"] for r in double.posts("/v1/message") if not r.body["generating"]
            ]
            assert "id: r1" in finished[-1] and "id: r2" in finished[-1]
            double.make_ready(key, COPY_TEXT, 2)
            await firefox.wait_for(chat, f"mockChat.inputValue() === {COPY_TEXT!r}", timeout=20)
            await asyncio.to_thread(double.wait_for, lambda d: d.pages[key].delivered_calls, 10)
    finally:
        sites.close()
        double.close()
