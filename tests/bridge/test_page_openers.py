"""What the extension looks for on a page is what Operator's hello names (docs/bridge-protocol.md,
`openers`), never a list of its own: told of one dialect's opener only, it sends an answer that
holds that one and nothing for an answer that holds only an OPERATOR_CMD block; told again, the
watched page looks again at once. Against the stand-in bridge (tests/support/contract_double.py)."""

from __future__ import annotations

import time
from typing import Any

from tests.support.browser import require_browser
from tests.support.chat_page import final_text, key_for, open_chat, stream
from tests.support.contract_double import BridgeDouble

require_browser()

TOY = [{"dialect": "toy", "text": "[[toy:", "line_start": False}]
COMMAND = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n"


def test_the_extension_looks_for_the_openers_the_hello_names(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    bridge.openers = TOY
    extension_browser.reset(token="test-token", port=bridge.port, openers=TOY)
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, "Reading the plan: [[toy: read notes/plan.txt]]\n")
    assert "[[toy: read notes/plan.txt]]" in final_text(bridge, key_for(page))
    # An OPERATOR_CMD block is nothing to this Operator: that answer is not sent.
    stream(page, "Here is a command.\n\n" + COMMAND)
    page.wait_for_function("() => !mockChat.generating")
    time.sleep(1.5)
    assert {r.body["position"] for r in bridge.posts("/v1/message")} == {0}
    # Operator names OPERATOR_CMD's opener too from its next hello on: the page looks again, and
    # the answer it passed over is sent.
    bridge.openers = TOY + [{"dialect": "operator", "text": "OPERATOR_CMD", "line_start": True}]
    extension_browser.worker.evaluate("globalThis.operatorBridge.hello()")
    assert "id: r1" in final_text(bridge, key_for(page, 1))
