#!/usr/bin/env python3
"""Take the README's browser-bridge screenshots in the real browser: the real TUI with its bridge,
the extension in the system's Chromium, the ChatGPT mock page streaming an answer whose results
land in its input box, the extension's popup for that tab, and the page when its next answer ended
while the bridge was off (Operator holds it until the person says run it); then the repair: the
popup's health check on a page whose input box the adapter cannot find, and "Point at it" there.

Run: .venv/bin/python docs/make_bridge_screenshots.py  (writes docs/screenshot-bridge-*.png)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.blocks import block  # noqa: E402
from tests.support.browser import AsyncExtensionBrowser, MockSites  # noqa: E402

TOKEN = "screenshot-token-" + "s" * 32
ANSWER = (
    "Let me read the plan before changing anything.\n\n```text\n"
    + block("r1", "fs.read", path="notes/plan.txt")
    + "```\n\nAnd see what else is in the folder:\n\n"
    + block("r2", "fs.list", path="notes")
    + "\nI'll wait for the results."
)
LATER = (
    "The plan has two steps left. Let me look at the first one's file:\n\n```text\n"
    + block("r3", "fs.read", path="notes/todo.txt")
    + "```"
)


async def panel_state(page: object, wanted: str) -> None:
    deadline = time.monotonic() + 30
    while (
        await page.evaluate("() => document.getElementById('operator-bridge-ui')?.dataset.state")
        != wanted
    ):  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, f"the page's panel did not say {wanted!r}"
        await asyncio.sleep(0.1)


async def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bridge-shots-"))
    os.environ["OPERATOR_CONFIG_DIR"] = str(scratch / "config")
    os.environ["OPERATOR_STATE_DIR"] = str(scratch / "state-home")
    os.environ["OPERATOR_TRASH"] = "session"
    from operator_app import settings
    from operator_app.tui.app import OperatorApp

    settings.save("bridge", {"token": TOKEN, "origin": None})
    workspace = scratch / "my-project"
    shutil.copytree(ROOT / "fixtures" / "demo-workspace", workspace)
    sites = MockSites()
    with socket.socket() as probe:  # one port, kept when the bridge is turned off and on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = OperatorApp(
        workspace=workspace,
        state_dir=scratch / "state",
        bridge=True,
        bridge_port=port,
        poll_interval=0.05,
    )
    try:
        async with (
            app.run_test(size=(160, 45)) as pilot,
            AsyncExtensionBrowser(scratch / "profile") as browser,
        ):
            while app.bridge is None or not app.bridge.port:
                await asyncio.sleep(0.05)
            await browser.set_storage({"token": TOKEN, "port": port})
            page = await browser.context.new_page()
            await page.set_viewport_size({"width": 1000, "height": 900})
            await page.goto(sites.url("chatgpt.com", "/c/plan-review"))
            await page.wait_for_function("() => window.mockChat !== undefined")
            await page.evaluate(
                "() => document.getElementById('thread').appendChild(MockChat.userMessage("
                "'Read notes/plan.txt and tell me what is left to do.'))"
            )
            await page.evaluate("text => mockChat.answer(text, {chunk: 60, every: 40})", ANSWER)
            deadline = time.monotonic() + 30
            while (
                await page.evaluate(
                    "() => document.getElementById('operator-bridge-ui')?.dataset.state"
                )
                != "ready"
            ):
                assert time.monotonic() < deadline, "the results did not reach the input box"
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
            await page.screenshot(path=str(ROOT / "docs" / "screenshot-bridge-chat.png"))
            tab_id = await browser.worker.evaluate(
                "() => { for (const tab of globalThis.operatorBridge.chatTabs.values()) "
                "if (tab.url.includes('plan-review')) return tab.id; }"
            )
            popup = await browser.context.new_page()
            await popup.set_viewport_size({"width": 364, "height": 560})
            await popup.goto(
                f"chrome-extension://{browser.extension_id}/popup/popup.html?tab={tab_id}"
            )
            await popup.wait_for_selector("#connection-state[data-state='connected']")
            await popup.wait_for_selector("#tab-state[data-state='ok']")
            await popup.locator("body").screenshot(
                path=str(ROOT / "docs" / "screenshot-bridge-popup.png")
            )
            await popup.close()
            # The results sent; the bridge off; the model answers; the bridge on again.
            await page.click("#send")
            await pilot.press("b")
            await panel_state(page, "not-connected")
            await page.evaluate("text => mockChat.answer(text, {chunk: 60, every: 40})", LATER)
            await page.wait_for_function("() => !mockChat.generating")
            await asyncio.sleep(3.0)
            await pilot.press("b")
            await panel_state(page, "held")
            await page.evaluate(
                "() => { const all = document.querySelectorAll('#thread > *'); "
                "all[all.length - 1].scrollIntoView({block: 'end'}); window.scrollBy(0, 120); }"
            )
            await asyncio.sleep(0.5)
            await page.screenshot(path=str(ROOT / "docs" / "screenshot-bridge-held.png"))

            # The repair: a page whose input box no selector of the adapter finds (?break=input).
            broken = await browser.context.new_page()
            await broken.set_viewport_size({"width": 1000, "height": 700})
            await broken.goto(sites.url("chatgpt.com", "/c/changed-page?break=input"))
            await broken.wait_for_function("() => window.mockChat !== undefined")
            await broken.evaluate("text => mockChat.show(text)", ANSWER)
            await asyncio.sleep(1.0)
            broken_id = await browser.worker.evaluate(
                "() => { for (const tab of globalThis.operatorBridge.chatTabs.values()) "
                "if (tab.url.includes('changed-page')) return tab.id; }"
            )
            health = await browser.context.new_page()
            await health.set_viewport_size({"width": 364, "height": 700})
            await health.goto(
                f"chrome-extension://{browser.extension_id}/popup/popup.html?tab={broken_id}"
            )
            await health.wait_for_selector(
                "#tab-fields li[data-field='input'][data-state='missing']"
            )
            await health.locator("body").screenshot(
                path=str(ROOT / "docs" / "screenshot-bridge-health.png")
            )
            await health.click("#tab-fields li[data-field='input'] button[data-action='point']")
            await broken.bring_to_front()
            await broken.wait_for_function(
                "() => document.getElementById('operator-bridge-ui')?.dataset.state === 'teaching'"
            )
            box = await broken.locator("#composer-input").bounding_box()
            assert box is not None
            await broken.mouse.move(box["x"] + 20, box["y"] + 10)
            await asyncio.sleep(0.3)
            await broken.screenshot(path=str(ROOT / "docs" / "screenshot-bridge-point.png"))
    finally:
        sites.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
