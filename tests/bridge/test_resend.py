"""What the content script's heartbeat must still post again: an answer the extension's background
or Operator no longer knows. After the background's service worker was stopped (it forgets the
results it was waiting for), or after Operator restarted (it forgets the page messages it had),
the answer on the page reaches Operator again and its results still land in the input box.
Against a stand-in that answers as the bridge contract says (tests/support/contract_double.py)."""

from __future__ import annotations

import time
from typing import Any

from tests.support.browser import require_browser
from tests.support.chat_page import (
    COPY_TEXT,
    answered,
    input_value,
    key_for,
    open_chat,
    ping,
    restart_service_worker,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()


def finished_posts(bridge: BridgeDouble, key: tuple[str, int]) -> int:
    return sum(
        1
        for r in bridge.posts("/v1/message")
        if (r.body["conversation"], r.body["position"]) == key and r.body["generating"] is False
    )


def ping_until(page: Any, condition: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the heartbeat did not post the answer again in time"
        ping(page)
        time.sleep(0.3)


def test_after_the_background_restarts_an_answer_still_waiting_for_its_results_gets_them(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    # Told, finished; its results are not in yet (a write waits, say).
    page, key = answered(
        extension_browser, mock_sites, bridge, "chatgpt.com", conversation, shown=True
    )
    restart_service_worker(extension_browser)
    told = finished_posts(bridge, key)
    ping_until(
        page, lambda: finished_posts(bridge, key) > told
    )  # the restarted background asked for it
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    assert input_value(page) == COPY_TEXT


def test_after_operator_restarts_the_answer_reaches_it_again(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page, key = answered(
        extension_browser, mock_sites, bridge, "claude.ai", conversation, shown=True
    )
    bridge.close()  # Operator quits before the results are in...
    restarted = BridgeDouble(
        token="test-token", port=bridge.port
    )  # ...and comes back knowing nothing
    try:
        ping_until(page, lambda: finished_posts(restarted, key) > 0)
        restarted.make_ready(key, COPY_TEXT, 2)
        wait_panel(page, "ready")
        assert input_value(page) == COPY_TEXT
    finally:
        restarted.close()


def test_an_answer_whose_texts_did_not_reach_operator_is_told_as_resent(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Issue 26, item 7: Operator was away while the model wrote part of an answer; back, it got
    the rest as if it had heard it all being written, and ran it without asking. The page
    message's texts are marked resent from the first that did not reach it."""
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    key = key_for(page)
    page.evaluate("() => { mockChat.begin(); mockChat.grow('Reading first:\\n\\n'); }")
    page.evaluate("() => mockChat.grow('OPERATOR_CMD\\nversion: 1\\nid: r1\\n')")
    bridge.wait_for(
        lambda double: any("version: 1\n" in r.body["text"] for r in double.posts("/v1/message"))
    )
    assert all(r.body.get("resent") is False for r in bridge.posts("/v1/message"))
    bridge.close()  # Operator goes away in the middle of the answer
    page.evaluate("() => mockChat.grow('action: fs.read\\npath: notes/plan.txt\\n')")
    extension_browser.worker.evaluate(
        """() => new Promise(resolve => { const look = () =>
             globalThis.operatorBridge.connectionState().state === 'unreachable'
               ? resolve() : setTimeout(look, 50); look(); })"""
    )
    back = BridgeDouble(token="test-token", port=bridge.port)
    try:
        page.evaluate("() => mockChat.grow('END_OPERATOR_CMD\\nThat is all.\\n')")
        page.evaluate("() => mockChat.end()")
        back.wait_for(
            lambda double: any(r.body["generating"] is False for r in double.posts("/v1/message"))
        )
        told = [
            r.body
            for r in back.posts("/v1/message")
            if (r.body["conversation"], r.body["position"]) == key
        ]
        assert told and all(body["resent"] is True for body in told), told
    finally:
        back.close()
