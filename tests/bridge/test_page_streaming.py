"""The extension on the mock chat pages, reading: what it takes from each site's page (the line
breaks the page shows, the answer and not the thinking), when it sends it and under which key,
the generic fallback, "Send selection to Operator", and the heartbeat. Against a stand-in that
answers as the bridge contract says (tests/support/contract_double.py)."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.chat_page import (
    ANSWER,
    BLOCK_LINES,
    COPY_TEXT,
    NAMES,
    SITES,
    final_text,
    input_value,
    key_for,
    long_answer,
    open_chat,
    panel_text,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()


@pytest.mark.parametrize("site", sorted(SITES))
def test_each_adapter_streams_the_latest_answer_with_the_line_breaks_the_page_shows(
    site: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host = SITES[site]
    page = open_chat(extension_browser, mock_sites, host, conversation)
    stream(page, ANSWER, chunk=20, every=60)
    text = final_text(bridge, key_for(page))
    for lines in BLOCK_LINES:  # a fenced block and a paragraph of <br> lines alike
        assert "\n" + lines + "\n" in text
    assert "Thinking" not in text  # AI Studio's thinking chunk is not the answer
    updates = [r.body for r in bridge.posts("/v1/message")]
    streaming = [body for body in updates if body["generating"]]
    assert len(streaming) >= 2, "the text was sent while it was being written, not only at the end"
    assert all(
        body["conversation"] == f"{host}:{mock_sites.port}{conversation}" and body["position"] == 0
        for body in updates
    )
    assert updates[-1]["generating"] is False and updates[-1]["tab"]["site"] == NAMES[site].format(
        port=mock_sites.port
    )
    # Whole texts that grow: each one starts with the one before (a block split across updates
    # arrives as two updates of a growing text).
    for before, after in itertools.pairwise(streaming):
        assert after["text"].startswith(before["text"])


def test_a_200000_character_answer_streams_as_growing_whole_texts(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    answer = long_answer()
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, answer, chunk=8000, every=300)  # updates of the whole text, 300 ms apart
    text = final_text(bridge, key_for(page), timeout=40)
    assert len(text) > 180_000  # what the page shows of it: the fences themselves are not shown
    assert text.count("\nEND_OPERATOR_CMD") == 20
    updates = [r.body["text"] for r in bridge.posts("/v1/message")]
    assert len(updates) >= 15  # the page changed 25 times; each change was sent (a few may merge)
    for before, after in itertools.pairwise(updates):
        assert after.startswith(before)  # so Operator feeds only what is new


def test_nothing_is_sent_for_an_answer_without_operator_cmd(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, "Just a chat answer, with no commands in it.\n\nSecond paragraph.")
    page.wait_for_function("() => !mockChat.generating")
    time.sleep(1.0)
    assert bridge.posts("/v1/message") == []


def test_the_page_says_when_operator_is_not_listening(
    extension_browser: Any, mock_sites: Any, conversation: str
) -> None:
    extension_browser.reset(token="some-token", port=1)  # nothing listens on port 1
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, ANSWER)
    wait_panel(page, "not-connected")
    assert "Start the bridge in Operator with b" in panel_text(page, ".panel")


def test_the_generic_fallback_reads_the_last_marked_message_and_ends_it_after_a_quiet_period(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "127.0.0.1", conversation)
    page.evaluate(
        "([text]) => mockChat.show(text)",
        ["An earlier answer:\n\nOPERATOR_CMD\nid: old\naction: fs.list\npath: .\nEND_OPERATOR_CMD"],
    )
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    ended_at = time.monotonic()
    text = final_text(bridge, key_for(page, 1))
    assert time.monotonic() - ended_at > 1.5  # no indicator: the quiet period decides
    assert "id: old" not in text and all(lines in text for lines in BLOCK_LINES)


def test_send_selection_keeps_the_line_breaks_of_the_page(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "127.0.0.1", conversation)
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])
    page.evaluate(
        """() => { const p = [...document.querySelectorAll('.bubble p')].find(p =>
                     p.textContent.includes('id: r2'));
                   const range = document.createRange(); range.selectNodeContents(p);
                   getSelection().removeAllRanges(); getSelection().addRange(range); }"""
    )
    tab = extension_browser.tab_id(f"127.0.0.1:{mock_sites.port}{conversation}")
    # What the context menu's click hands the background: Chrome's selectionText has lost the
    # line breaks; the extension reads the selection in the page instead.
    extension_browser.worker.evaluate(
        "([tabId, url]) => globalThis.operatorBridge.sendSelection("
        "{menuItemId: 'operator-send-selection', frameId: 0, pageUrl: url, "
        "selectionText: 'OPERATOR_CMD id: r2 action: fs.list'},"
        " {id: tabId, url, title: 'Local chat'})",
        [tab, page.url],
    )
    posted = bridge.wait_for(
        lambda double: [
            r.body
            for r in double.posts("/v1/message")
            if r.body["conversation"].startswith("selection/")
        ]
    )
    assert posted[0]["text"].strip() == BLOCK_LINES[1]
    assert posted[0]["generating"] is False
    assert posted[0]["conversation"] == f"selection/127.0.0.1:{mock_sites.port}{conversation}"
    key = (posted[0]["conversation"], posted[0]["position"])
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")  # the selection's results go into the page's input box too
    assert input_value(page) == COPY_TEXT


def test_operator_hears_at_once_which_chat_tab_is_in_front(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    chatgpt = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    claude = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    for page, site in ((chatgpt, "ChatGPT"), (claude, "Claude"), (chatgpt, "ChatGPT")):
        asked_at = time.monotonic()
        page.bring_to_front()
        # Well before the 10 s heartbeat; 5 s leaves room for a loaded machine (2 cores, two
        # browsers) where the focus event itself can take a second to arrive.
        hello = bridge.wait_for(
            lambda double, asked_at=asked_at, site=site: [
                r
                for r in double.posts("/v1/hello")
                if r.at > asked_at and (r.body.get("tab") or {}).get("site") == site
            ],
            timeout=5,
        )
        tab = hello[-1].body["tab"]
        assert (
            tab["site"] == site
            and tab["title"] == f"{site} (mock)"
            and tab["adapter_ok"] is True
            and tab["problem"] is None
        )
        assert tab["url"] == page.url


def test_the_conversation_key_holds_while_a_message_is_written_even_when_the_url_changes(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    # ChatGPT starts a new chat at / and moves to /c/<id> while the first answer is being written.
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", "/")
    new_chat = key_for(page)
    page.evaluate("text => { mockChat.begin(); mockChat.grow(text); }", ANSWER[: len(ANSWER) // 2])
    bridge.wait_for(lambda double: double.posts("/v1/message"))
    page.evaluate("path => history.pushState({}, '', path)", conversation)
    page.evaluate("text => { mockChat.grow(text); mockChat.end(); }", ANSWER[len(ANSWER) // 2 :])
    final_text(bridge, new_chat)
    assert {(r.body["conversation"], r.body["position"]) for r in bridge.posts("/v1/message")} == {
        new_chat
    }
    stream(
        page, ANSWER.replace("r1", "r5").replace("r2", "r6")
    )  # the next answer is keyed by the new URL
    assert "id: r5" in final_text(bridge, key_for(page, 1))
