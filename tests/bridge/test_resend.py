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
