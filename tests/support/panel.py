"""Reading and clicking the extension's panel on a page. The panel lives in a closed shadow root
(issue 35), which no page script, and no Playwright selector, reaches: the tests reach it as the
browser's DevTools do, through the Chrome DevTools Protocol (DOM.getDocument with `pierce` lists
closed shadow roots too), and click it as the person does, with the mouse at the button's place
(a trusted click), once the panel has stood still there for as long as the panel asks
(content/panel.js STILL_MS). Sync and async Playwright both: each call comes in both forms."""

from __future__ import annotations

import asyncio
import time
from typing import Any

HOST_ID = "operator-bridge-ui"
STILL_S = 0.6  # a little over the panel's 500 ms

CENTRE = (
    "function () { const r = this.getBoundingClientRect();"
    " return [r.x + r.width / 2, r.y + r.height / 2]; }"
)
BOX = (
    "function () { const r = this.getBoundingClientRect();"
    " return [r.left, r.top, r.right, r.bottom]; }"
)
TEXT = "function () { return this.innerText; }"


def _host(node: dict[str, Any]) -> dict[str, Any] | None:
    attributes = node.get("attributes") or []
    named = dict(zip(attributes[::2], attributes[1::2], strict=False))
    if named.get("id") == HOST_ID and node.get("shadowRoots"):
        return node
    for child in node.get("children") or []:
        found = _host(child)
        if found is not None:
            return found
    return None


def _call(function: str, object_id: str) -> dict[str, Any]:
    return {"objectId": object_id, "functionDeclaration": function, "returnByValue": True}


def panel_eval(page: Any, selector: str, function: str) -> Any:
    """`function` (`this` is the element) on the panel's element `selector`; None when there is
    none."""
    session = page.context.new_cdp_session(page)
    try:
        host = _host(session.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"])
        if host is None:
            return None
        shadow = host["shadowRoots"][0]["nodeId"]
        found = session.send("DOM.querySelector", {"nodeId": shadow, "selector": selector})
        if not found.get("nodeId"):
            return None
        element = session.send("DOM.resolveNode", {"nodeId": found["nodeId"]})["object"]
        return session.send("Runtime.callFunctionOn", _call(function, element["objectId"]))[
            "result"
        ].get("value")
    finally:
        session.detach()


async def panel_eval_async(page: Any, selector: str, function: str) -> Any:
    session = await page.context.new_cdp_session(page)
    try:
        document = await session.send("DOM.getDocument", {"depth": -1, "pierce": True})
        host = _host(document["root"])
        if host is None:
            return None
        shadow = host["shadowRoots"][0]["nodeId"]
        found = await session.send("DOM.querySelector", {"nodeId": shadow, "selector": selector})
        if not found.get("nodeId"):
            return None
        element = (await session.send("DOM.resolveNode", {"nodeId": found["nodeId"]}))["object"]
        called = await session.send("Runtime.callFunctionOn", _call(function, element["objectId"]))
        return called["result"].get("value")
    finally:
        await session.detach()


def panel_text(page: Any, part: str = ".panel") -> str:
    """The text of the panel (or of its `.title`, `.text`); "" when it shows nothing."""
    return str(panel_eval(page, part, TEXT) or "")


async def panel_text_async(page: Any, part: str = ".panel") -> str:
    return str(await panel_eval_async(page, part, TEXT) or "")


def click_panel(page: Any, action: str, timeout: float = 10.0) -> None:
    """The person clicks the panel's button `action` once the panel stands still."""
    selector = f"button[data-action='{action}']"
    deadline = time.monotonic() + timeout
    where = panel_eval(page, selector, CENTRE)
    while True:
        assert where is not None, f"the panel shows no {action!r} button"
        time.sleep(STILL_S)
        now = panel_eval(page, selector, CENTRE)
        if now == where:
            break
        assert time.monotonic() < deadline, "the panel did not stand still"
        where = now
    page.mouse.click(*where)


async def click_panel_async(page: Any, action: str, timeout: float = 10.0) -> None:
    selector = f"button[data-action='{action}']"
    deadline = time.monotonic() + timeout
    where = await panel_eval_async(page, selector, CENTRE)
    while True:
        assert where is not None, f"the panel shows no {action!r} button"
        await asyncio.sleep(STILL_S)
        now = await panel_eval_async(page, selector, CENTRE)
        if now == where:
            break
        assert time.monotonic() < deadline, "the panel did not stand still"
        where = now
    await page.mouse.click(*where)
