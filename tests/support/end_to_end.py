"""Helpers for the tests that run the real TUI with its real bridge beside the real extension in
Chromium (Playwright's async API in the TUI's own event loop)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from operator_app import settings
from operator_app.protocol import page_openers
from tests.support.bridge_http import bridged_app
from tests.support.browser import SECURE_HOSTS, AsyncExtensionBrowser
from tests.support.pilot import SIZE, wait_for


async def until(pilot: Any, check: Any, timeout: float = 15.0) -> Any:
    """Await `check()` (a coroutine function) until it is truthy, letting the TUI run meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert time.monotonic() < deadline, "the page did not get there in time"
        await pilot.pause(0.05)


async def open_chat(browser: AsyncExtensionBrowser, sites: Any, host: str, path: str) -> Any:
    """A mock chat page, once the extension's content script watches it (on the chat sites it
    watches by itself): an answer the page shows before then was on it already, and Operator
    asks before it runs one (on a loaded machine the script can start a second after the
    page)."""
    page = await browser.context.new_page()
    url = sites.url(host, path)
    await page.goto(url)
    await page.wait_for_function("() => window.mockChat !== undefined")
    deadline = time.monotonic() + 15
    while host in SECURE_HOSTS and not await _watching(browser, url):
        assert time.monotonic() < deadline, f"the extension does not watch {url}"
        await asyncio.sleep(0.05)
    return page


async def person_asks(page: Any, text: str = "Please go on with the plan.") -> None:
    """The person types a message into the chat's input box and sends it with Enter: the answer
    the page shows next is the model's reply, heard being written however fast it comes (an
    answer nobody asked for, drawn whole, is taken for one from the page's history)."""
    await page.evaluate(
        "() => { const box = mockChat.editorElement;"
        " (box.querySelector('[contenteditable]') || box).focus(); }"
    )
    sent = await page.evaluate("() => mockChat.sent.length")
    await page.keyboard.type(text)
    await page.keyboard.press("Enter")
    await page.wait_for_function("n => mockChat.sent.length > n", arg=sent)


async def _watching(browser: AsyncExtensionBrowser, url: str) -> bool:
    return bool(
        await browser.worker.evaluate(
            """async url => { const tab = [...globalThis.operatorBridge.chatTabs.values()]
                 .find(tab => (tab.url || '').startsWith(url));
               if (!tab) return false;
               try { const report = await chrome.tabs.sendMessage(tab.id, {type: 'status'});
                     return !!report && report.active; } catch (error) { return false; } }""",
            url,
        )
    )


async def pair_through_popup(pilot: Any, app: Any, browser: AsyncExtensionBrowser) -> None:
    await wait_for(pilot, lambda: app.bridge is not None and app.bridge.pairing_code is not None)
    popup = await browser.popup()
    await popup.fill("#pair-port", str(app.bridge.port))
    await popup.fill("#pair-code", app.bridge.pairing_code)
    await popup.click("#pair-button")
    await popup.wait_for_selector("#connection-state[data-state='connected']")
    assert app.workspace.root.name in await popup.inner_text("#connection-state")
    await wait_for(
        pilot, lambda: len(app.screen_stack) == 1
    )  # the TUI's pairing dialog closed itself
    await popup.close()


def pre_pair(token: str = "e2e-token-" + "x" * 40) -> str:
    """Pair without the popup, as a person who paired before: the token in Operator's settings."""
    settings.save("bridge", {"token": token, "origin": None})
    return token


@asynccontextmanager
async def paired_tui_and_browser(
    workspace: Path | None, state: Path, tmp_path: Path, **storage: Any
) -> AsyncIterator[tuple[Any, Any, AsyncExtensionBrowser]]:
    """The real TUI with its bridge on, and Chromium with the extension, paired as a person who
    paired before: (app, pilot, browser). `storage`: more of the extension's settings
    (autoSend...)."""
    token = pre_pair()
    app = bridged_app(workspace, state)
    async with (
        app.run_test(size=SIZE) as pilot,
        AsyncExtensionBrowser(tmp_path / "profile") as browser,
    ):
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.port)
        # As a person who paired before: the pairing's hello named the openers too.
        paired = {"token": token, "port": app.bridge.port, "openers": page_openers()}
        await browser.set_storage({**paired, **storage})
        yield app, pilot, browser


async def input_value(page: Any) -> str:
    return str(await page.evaluate("() => mockChat.inputValue()"))


async def panel_state(page: Any) -> str:
    return str(
        await page.evaluate(
            "() => document.getElementById('operator-bridge-ui')?.dataset.state || ''"
        )
    )


async def panel_says(pilot: Any, page: Any, state: str) -> None:
    """Wait until the extension's panel on the page is in `state` ("waiting", "ready"...)."""
    await until(pilot, lambda: _panel_is(page, state))


async def _panel_is(page: Any, state: str) -> bool:
    return await panel_state(page) == state


async def tab_id(browser: AsyncExtensionBrowser, url_part: str) -> int | None:
    """The browser's id of the tab whose address holds `url_part` (tabs on 127.0.0.1 show their
    address to the extension: it has host permission there)."""
    found = await browser.worker.evaluate(
        "async part => (await chrome.tabs.query({}))"
        ".filter(tab => (tab.url || '').includes(part)).map(tab => tab.id)",
        url_part,
    )
    return found[0] if found else None


async def restart_service_worker(browser: AsyncExtensionBrowser) -> None:
    """Stop the extension's service worker, as the browser does to an idle one: everything it held
    in memory is gone, and the next message from a page starts it afresh."""
    internals = await browser.context.new_page()
    await internals.goto("chrome://serviceworker-internals/")
    await internals.get_by_role("button", name="Stop").first.click()
    await internals.wait_for_function(
        "() => document.body.innerText.includes('Running Status: STOPPED')"
    )
    await internals.close()


async def ping(page: Any) -> None:
    """Make the page's content script send its heartbeat now (it does on becoming visible)."""
    await page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")


async def last_heartbeat(browser: AsyncExtensionBrowser) -> float:
    """When the background last heard a content script's heartbeat (0 when none since it
    started)."""
    for worker in reversed(browser.context.service_workers):
        try:
            return float(
                await worker.evaluate(
                    "() => Math.max(0, ...[...globalThis.operatorBridge.chatTabs.values()]"
                    ".map(tab => tab.seenAt))"
                )
            )
        except Exception:  # a worker that was stopped
            continue
    return 0.0
