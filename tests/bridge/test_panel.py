"""The panel Operator shows on the chat page keeps out of the chat's way: it sits just above the
input box, clear of the person's own messages, the code blocks' "Copy" buttons and the composer;
news that asks nothing of the person (results ready) hides by itself while the icon's badge keeps
the count; and the person can close it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.chat_page import (
    ANSWER,
    COPY_TEXT,
    click_panel,
    eventually,
    final_text,
    input_value,
    key_for,
    open_chat,
    panel_state,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble
from tests.support.panel import BOX, panel_eval

require_browser()

BOXES = """() => {
  const box = (element) => {
    const r = element.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];
  };
  return {
    page: [0, 0, innerWidth, innerHeight],
    theirs: [...document.querySelectorAll('.user-msg, pre button, .composer')].map(element =>
      [element.className || element.textContent, box(element)]),
  };
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("host", ["chatgpt.com", "claude.ai"])
def test_the_panel_covers_none_of_the_chat_and_goes_when_it_has_nothing_to_ask(
    host: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, host, conversation)
    page.evaluate(
        "() => document.getElementById('thread')"
        ".appendChild(MockChat.userMessage('Read the plan and list the folder, please.'))"
    )
    stream(page, ANSWER)
    key = key_for(page)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    boxes = {**page.evaluate(BOXES), "panel": panel_eval(page, ".panel", BOX)}
    assert len(boxes["theirs"]) >= 2  # the person's message and the composer, at least
    for name, box in boxes["theirs"]:
        assert not overlap(boxes["panel"], box), f"the panel covers {name!r}"
    left, top, right, bottom = boxes["panel"]
    assert left >= 0 and top >= 0 and right <= boxes["page"][2] and bottom <= boxes["page"][3]
    assert (right - left) * (bottom - top) < 340 * 80  # compact

    tab = extension_browser.tab_id(host + ":" + str(mock_sites.port) + conversation)
    if host == "chatgpt.com":
        # Nothing to ask: it goes by itself; the results stay, and the badge still counts them.
        page.wait_for_function(
            "() => !document.getElementById('operator-bridge-ui')", timeout=15000
        )
        assert input_value(page) == COPY_TEXT
        assert (
            extension_browser.worker.evaluate("tabId => chrome.action.getBadgeText({tabId})", tab)
            == "2"
        )
    else:
        click_panel(page, "hide")
        eventually(lambda: panel_state(page) == "")
        assert input_value(page) == COPY_TEXT
