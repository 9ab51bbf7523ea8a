"""The extension's popup: which selector found nothing on a site, pairing by code, and what it says
when the browser does not let the extension into a page."""

from __future__ import annotations

import json
from typing import Any

from tests.support.browser import require_browser
from tests.support.chat_page import (
    ANSWER,
    COPY_TEXT,
    final_text,
    key_for,
    open_chat,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()


def test_the_popup_names_the_selector_that_found_nothing(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?break=input")
    tab = extension_browser.tab_id("break=input")
    popup = extension_browser.popup(tab)
    popup.wait_for_selector("#tab-state[data-state='problem']")
    missing = popup.inner_text("#tab-fields li[data-field='input'][data-state='missing']")
    assert (
        "input box: not found" in missing
        and "#prompt-textarea" in missing
        and "found nothing" in missing
    )
    # No answer yet, and the send button shows only once the box holds text: not expected now.
    assert popup.get_attribute("#tab-fields li[data-field='assistant']", "data-state") == "idle"
    assert "no answer on the page yet" in popup.inner_text("#tab-fields li[data-field='assistant']")
    assert page.url.endswith("break=input")

    healthy = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    popup = extension_browser.popup(extension_browser.tab_id("claude.ai"))
    popup.wait_for_selector("#tab-state[data-state='ok']")
    assert "Claude: every selector needed now found its element" in popup.inner_text("#tab-state")
    assert (
        popup.inner_text("#tab-fields li[data-field='input'] code.matched")
        == 'div.ProseMirror[contenteditable="true"]'
    )
    assert popup.get_attribute("#tab-fields li[data-field='generating']", "data-state") == "idle"
    assert healthy.url.endswith(conversation)


def test_the_popup_reports_an_assistant_selector_that_misses_the_answer(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(
        extension_browser, mock_sites, "chatgpt.com", conversation + "?break=assistant"
    )
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    popup = extension_browser.popup(extension_browser.tab_id("break=assistant"))
    popup.wait_for_selector("#tab-state[data-state='problem']")
    item = popup.inner_text("#tab-fields li[data-field='assistant'][data-state='missing']")
    assert (
        '[data-message-author-role="assistant"]' in item
        and "yet the page shows a block for Operator" in item
    )
    assert bridge.posts("/v1/message") == []  # it says so instead of guessing


def test_pairing_through_the_popup(extension_browser: Any) -> None:
    double = BridgeDouble(pairing_code="482913")
    try:
        extension_browser.reset()
        popup = extension_browser.popup()
        popup.wait_for_selector("#pairing:not([hidden])")
        assert popup.input_value("#pair-port") == "47821"
        popup.fill("#pair-port", str(double.port))
        popup.fill("#pair-code", "111111")
        popup.click("#pair-button")
        popup.wait_for_selector("#pair-result.error")
        assert "Wrong code" in popup.inner_text("#pair-result")
        assert "token" not in extension_browser.storage()
        popup.fill("#pair-code", "482913")
        popup.click("#pair-button")
        popup.wait_for_selector("#connection-state[data-state='connected']")
        stored = extension_browser.storage()
        assert stored["token"] == double.token and stored["port"] == double.port
        pair = double.posts("/v1/pair")[-1]
        assert pair.headers.get("Origin", "").startswith("chrome-extension://")
        assert "Authorization" not in pair.headers
        hello = double.wait_for(lambda d: d.posts("/v1/hello"))
        # The key itself never crosses the wire again: a session is opened, and each request
        # signed in it (docs/bridge-protocol.md, "The handshake").
        assert hello[-1].headers["Authorization"].startswith("Operator ")
        assert double.posts("/v1/handshake") and double.token is not None
        for request in double.requests[1:]:
            assert double.token not in json.dumps([request.headers, request.body, request.path])
        assert "workspace demo" in popup.inner_text("#connection-state")
    finally:
        double.close()


def test_the_popup_says_when_it_may_not_watch_a_page(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = extension_browser.context.new_page()  # a site no adapter knows: no content script there
    page.goto(mock_sites.url("chat.example.org", conversation))
    [tab] = extension_browser.worker.evaluate(
        "async () => (await chrome.tabs.query({})).map(tab => tab.id)"
    )
    popup = extension_browser.popup(tab)
    popup.wait_for_selector("#tab-state[data-state='idle']")
    assert "not watching this tab" in popup.inner_text("#tab-state")
    # Opened from a test, the popup has no activeTab grant for that page, as a popup opened
    # elsewhere would not: the extension may not go in, and says so instead of doing nothing.
    popup.click("#watch-tab")
    popup.wait_for_selector("#tab-state[data-state='problem']")
    assert "did not let the extension into this page" in popup.inner_text("#tab-state")


def test_the_auto_send_options_show_only_while_auto_send_is_on(
    extension_browser: Any, bridge: BridgeDouble
) -> None:
    popup = extension_browser.popup()
    popup.wait_for_selector("#connection-state[data-state='connected']")
    assert not popup.is_checked("#autosend-on")
    # Off: the delay and the rate are not shown (a stylesheet's display must not undo `hidden`).
    assert popup.is_hidden("#autosend-options") and popup.is_hidden("#autosend-delay")
    popup.check("#autosend-on")
    assert popup.is_visible("#autosend-options") and popup.is_visible("#autosend-rate")
    popup.uncheck("#autosend-on")
    assert popup.is_hidden("#autosend-options")


def test_the_pairing_code_is_taken_as_operator_shows_it_typed_or_pasted(
    extension_browser: Any,
) -> None:
    """Operator shows the code as "875 562": typed so, with a dash, or pasted, it pairs."""
    double = BridgeDouble(pairing_code="875562")
    try:
        extension_browser.reset()
        popup = extension_browser.popup()
        popup.wait_for_selector("#pairing:not([hidden])")
        popup.fill("#pair-port", str(double.port))
        popup.click("#pair-code")
        popup.keyboard.type("875 562")
        assert popup.input_value("#pair-code") == "875 562"
        popup.fill("#pair-code", "")
        popup.keyboard.insert_text("875-562")  # as a paste inserts it
        assert popup.input_value("#pair-code") == "875-562"
        popup.fill("#pair-code", "")
        extension_browser.context.grant_permissions(["clipboard-read", "clipboard-write"])
        popup.evaluate("() => navigator.clipboard.writeText(' 875 562\\n')")
        popup.click("#pair-code")
        popup.keyboard.press("Control+V")
        assert popup.input_value("#pair-code").strip() == "875 562"
        popup.click("#pair-button")
        popup.wait_for_selector("#connection-state[data-state='connected']")
        assert double.posts("/v1/pair")[-1].body["code"] == "875562"
        assert extension_browser.storage()["token"] == double.token
    finally:
        double.close()


def test_a_pairing_code_that_is_not_six_digits_is_refused_in_the_popup(
    extension_browser: Any,
) -> None:
    double = BridgeDouble(pairing_code="875562")
    try:
        extension_browser.reset()
        popup = extension_browser.popup()
        popup.wait_for_selector("#pairing:not([hidden])")
        popup.fill("#pair-port", str(double.port))
        popup.fill("#pair-code", "875 56")
        popup.click("#pair-button")
        popup.wait_for_selector("#pair-result.error")
        assert "6 digits" in popup.inner_text("#pair-result")
        assert double.posts("/v1/pair") == []  # not sent: it could only have used up a try
    finally:
        double.close()


def test_the_popup_names_the_answer_by_the_number_operator_gives_it(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """The TUI calls the answer "Message 8" (its session has seven before it); the popup too,
    never by its place on the page."""
    bridge.next_message = 8
    page = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    stream(page, "No commands in this one.")
    stream(page, ANSWER)
    key = key_for(page, 1)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    popup = extension_browser.popup(extension_browser.tab_id("claude.ai"))
    popup.wait_for_selector("#tab-state[data-state='ok']")
    said = popup.inner_text("#tab-state")
    assert "Following message 8: its results are ready." in said and "message 2" not in said


def test_the_whole_line_of_operators_pairing_dialog_pasted_pairs(extension_browser: Any) -> None:
    """Issue 26, item 8: "546 719   port 47941", the code's line as the TUI shows it, pasted
    whole into the code box, was refused."""
    double = BridgeDouble(pairing_code="546719")
    try:
        extension_browser.reset()
        popup = extension_browser.popup()
        popup.wait_for_selector("#pairing:not([hidden])")
        assert popup.input_value("#pair-port") == "47821"
        popup.click("#pair-code")
        popup.keyboard.insert_text(f"546 719   port {double.port}")
        popup.click("#pair-button")
        popup.wait_for_selector("#connection-state[data-state='connected']")
        assert double.posts("/v1/pair")[-1].body["code"] == "546719"
        assert extension_browser.storage()["port"] == double.port
    finally:
        double.close()


def test_the_popup_says_a_write_waits_in_the_terminal_not_finished(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Issue 26, item 6: the answer had ended on the page, and the popup said "(finished)" while
    its second write waited for the person in the terminal."""
    page = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    stream(page, ANSWER)
    final_text(bridge, key_for(page))  # finished on the page; no results yet: a write waits
    wait_panel(page, "waiting")
    popup = extension_browser.popup(extension_browser.tab_id("claude.ai"))
    popup.wait_for_selector("#tab-state[data-state='ok']")
    said = popup.inner_text("#tab-state")
    assert "a write waits for your answer in Operator's terminal (fs.write notes.txt)" in said
    assert "(finished)" not in said
