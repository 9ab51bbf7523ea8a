"""Each adapter against the DOM shape its site shows (fixtures/chat-pages/, from what the peers'
extensions read of the real pages in 2026): while the model writes and once results are in, the
health check names the selector that found each field, so a test fails when an adapter
regresses; and the shapes that must not fool it (Gemini's thinking panel, AI Studio's late last
tokens, ChatGPT's voice button, a stop button kept hidden) do not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.chat_page import (
    ANSWER,
    COPY_TEXT,
    final_text,
    key_for,
    open_chat,
    ping,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()

HALF = ANSWER[: ANSWER.index("And the folder")]

# site (and shape) -> the selector expected to find each field: while writing, and once filled.
EXPECTED = {
    "chatgpt.com": {
        "assistant": '[data-message-author-role="assistant"]',
        "input": "#prompt-textarea",
        "generating": 'button[data-testid="stop-button"]',
        "send": 'button[aria-label="Send message"]',
    },
    "claude.ai": {
        "assistant": "div[data-is-streaming]",
        "input": 'div.ProseMirror[contenteditable="true"]',
        "generating": '[data-is-streaming="true"]',
        "send": 'button[type="button"][aria-label="Send message"]',
    },
    "claude.ai?shape=icon-stop": {"generating": 'button:has(svg path[d^="M128,20A108,108"])'},
    "gemini.google.com": {
        "assistant": "model-response",
        "input": 'rich-textarea .ql-editor[contenteditable="true"]',
        "generating": 'mat-icon[fonticon="stop"]',
        "send": "button.send-button",
    },
    "aistudio.google.com": {
        "assistant": "ms-chat-turn .chat-turn-container.model",
        "input": 'textarea[formcontrolname="promptText"]',
        "generating": 'ms-run-button button[aria-label="Stop generating"]',
        "send": 'ms-run-button button[type="submit"]',
    },
    "chat.mistral.ai": {
        "assistant": 'div[data-message-author-role="assistant"]',
        "generating": 'button[aria-label="Stop generation"]',
        "send": 'button[aria-label="Send question"]',
    },
    "chat.deepseek.com": {
        "assistant": "div.ds-message:has(.ds-markdown)",
        "input": "textarea#chat-input",
        "generating": ".ds-icon-button:has(svg rect)",
        "send": 'input[type="file"] + div[aria-disabled]:not(:has(svg rect))',
    },
    "grok.com": {
        "assistant": "div.items-start .message-bubble",
        "generating": 'button[aria-label="Stop model response"]',
        "send": 'button[type="submit"][aria-label="Submit"]',
    },
    "grok.com?shape=icon-stop": {"generating": 'button:has(svg path[d^="M4 9.2"])'},
}


def fields(browser: Any, tab: int) -> dict[str, Any]:
    report = browser.worker.evaluate(
        "tabId => chrome.tabs.sendMessage(tabId, {type: 'status'})", tab
    )
    return {field["field"]: field for field in report["fields"]}


@pytest.mark.parametrize("where", sorted(EXPECTED))
def test_the_health_check_names_the_selector_that_found_each_field(
    where: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host, _, query = where.partition("?")
    page = open_chat(
        extension_browser, mock_sites, host, conversation + ("?" + query if query else "")
    )
    tab = extension_browser.tab_id(host)
    expected = EXPECTED[where]
    page.evaluate("([text]) => { mockChat.begin(); mockChat.grow(text); }", [HALF])
    writing = fields(extension_browser, tab)
    for field in ("assistant", "input", "generating"):
        if field in expected:
            assert (writing[field]["state"], writing[field]["selector"]) == (
                "found",
                expected[field],
            ), field
    page.evaluate("([text]) => { mockChat.grow(text); mockChat.end(); }", [ANSWER[len(HALF) :]])
    key = key_for(page)
    assert final_text(bridge, key, timeout=15).endswith("That is all for now.")
    if "send" in expected:
        bridge.make_ready(key, COPY_TEXT, 2)
        wait_panel(page, "ready")
        filled = fields(extension_browser, tab)
        assert (filled["send"]["state"], filled["send"]["selector"]) == ("found", expected["send"])
        assert filled["generating"]["state"] == "idle"


def test_chatgpt_shows_a_voice_button_while_the_box_is_empty_and_that_is_no_fault(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    assert page.is_visible("button[data-testid='composer-speech-button']")
    send = fields(extension_browser, extension_browser.tab_id("chatgpt.com"))["send"]
    assert send["state"] == "idle" and "once the box holds text" in send["note"]


def test_gemini_s_thinking_panel_is_not_the_answer(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(
        extension_browser, mock_sites, "gemini.google.com", conversation + "?shape=thinking"
    )
    stream(page, ANSWER)
    key = key_for(page)
    text = final_text(bridge, key)
    assert "thought1" not in text and "id: r1" in text and "id: r2" in text
    assert {
        tuple(request.body[name] for name in ("conversation", "position"))
        for request in bridge.posts("/v1/message")
    } == {key}
    assert all("thought1" not in request.body["text"] for request in bridge.posts("/v1/message"))


def test_ai_studio_s_last_tokens_after_its_run_button_came_back_are_waited_for(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "aistudio.google.com", conversation)
    stream(page, ANSWER, chunk=60, every=40)
    key = key_for(page)
    final_text(bridge, key, timeout=15)
    finished = [
        request.body["text"]
        for request in bridge.posts("/v1/message")
        if not request.body["generating"]
    ]
    # One end only, with the whole answer: the text shown late was not cut off.
    assert finished[0].endswith("That is all for now.")
    assert len(finished) == 1


def test_the_last_resort_stop_button_ends_an_answer_when_no_selector_matches(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(
        extension_browser, mock_sites, "grok.com", conversation + "?shape=labelled-stop"
    )
    page.evaluate("([text]) => { mockChat.begin(); mockChat.grow(text); }", [HALF])
    generating = fields(extension_browser, extension_browser.tab_id("grok.com"))["generating"]
    assert generating["state"] == "found" and "last resort" in generating["selector"]


def test_a_page_message_refused_for_want_of_a_workspace_waits_for_one(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    bridge.workspace = None
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, ANSWER)
    key = key_for(page)
    final_text(bridge, key)
    refused = len(bridge.posts("/v1/message"))
    for _ in range(3):  # the page's heartbeats and the background's: no re-post without a workspace
        ping(page)
        extension_browser.worker.evaluate("globalThis.operatorBridge.hello()")
        page.wait_for_timeout(300)
    assert len(bridge.posts("/v1/message")) == refused
    bridge.workspace = "demo"
    extension_browser.worker.evaluate("globalThis.operatorBridge.hello()")  # Operator names one
    bridge.wait_for(lambda double: len(double.posts("/v1/message")) == refused + 1)
    assert bridge.posts("/v1/message")[-1].body["generating"] is False
    assert bridge.pages[key].message is not None
