"""The extension on the mock chat pages, against a stand-in for Operator's bridge that answers as
the contract says (tests/bridge/contract_double.py): what it reads from each site, what it sends
and when, how it puts results into each site's editor, when it asks, when auto-send sends."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import require_browser

require_browser()

from contract_double import BridgeDouble  # noqa: E402
from page_helpers import (  # noqa: E402
    ANSWER, BLOCK_LINES, COPY_TEXT, NAMES, SITES, click_panel, final_text, input_value, open_chat, panel_state,
    long_answer, sent, stream, wait_panel,
)


@pytest.fixture
def bridge(extension_browser: Any) -> Iterator[BridgeDouble]:
    double = BridgeDouble(token="test-token")
    extension_browser.reset(token="test-token", port=double.port)
    yield double
    double.close()


def eventually(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.05)


def key_for(host: str, path: str, position: int = 0) -> tuple[str, int]:
    return (host + path, position)


@pytest.mark.parametrize("site", sorted(SITES))
def test_each_adapter_streams_the_latest_answer_with_the_line_breaks_the_page_shows(
    site: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host = SITES[site]
    page = open_chat(extension_browser, mock_sites, host, conversation)
    stream(page, ANSWER, chunk=20, every=60)
    text = final_text(bridge, key_for(host, conversation))
    for lines in BLOCK_LINES:  # a fenced block and a paragraph of <br> lines alike
        assert "\n" + lines + "\n" in text
    assert "Thinking" not in text  # AI Studio's thinking chunk is not the answer
    updates = [r.body for r in bridge.posts("/v1/message")]
    streaming = [body for body in updates if body["generating"]]
    assert len(streaming) >= 2, "the text was sent while it was being written, not only at the end"
    assert all(body["conversation"] == host + conversation and body["position"] == 0 for body in updates)
    assert updates[-1]["generating"] is False and updates[-1]["tab"]["site"] == NAMES[site]
    # Whole texts that grow: each one starts with the one before (a block split across updates
    # arrives as two updates of a growing text).
    for before, after in zip(streaming, streaming[1:]):
        assert after["text"].startswith(before["text"])


@pytest.mark.parametrize("site", sorted(SITES))
def test_each_adapter_puts_the_results_into_its_editor_so_that_send_sends_them(
    site: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host = SITES[site]
    page = open_chat(extension_browser, mock_sites, host, conversation)
    stream(page, ANSWER)
    key = key_for(host, conversation)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    delivered = bridge.wait_for(lambda double: double.pages[key].delivered_calls)
    assert delivered[0]["sent"] is False and delivered[0]["message"] == 1
    wait_panel(page, "ready")
    assert input_value(page) == COPY_TEXT  # the editor's own state, not just its DOM
    time.sleep(2.5)  # auto-send is off: the default delay passes and nothing is sent
    assert sent(page) == []
    page.click("#send")
    assert sent(page) == [COPY_TEXT]
    tab = extension_browser.tab_id(host + ":" + str(mock_sites.port) + conversation)
    # The results left the input box with the send, and the badge goes with them.
    eventually(lambda: extension_browser.worker.evaluate("tabId => chrome.action.getBadgeText({tabId})", tab) == "")


def test_the_badge_shows_how_many_results_wait_in_the_input_box(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, ANSWER)
    key = key_for("chatgpt.com", conversation)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    tab = extension_browser.tab_id("chatgpt.com:" + str(mock_sites.port) + conversation)
    eventually(lambda: extension_browser.worker.evaluate("tabId => chrome.action.getBadgeText({tabId})", tab) == "2")
    assert "Operator: 2 results ready" in page.inner_text("#operator-bridge-ui .title")


@pytest.mark.parametrize("choice, expected", [
    ("append", "my own question\n\n" + COPY_TEXT),
    ("replace", COPY_TEXT),
    ("later", "my own question"),
])
def test_results_never_mix_into_the_persons_text_without_asking(
    choice: str, expected: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, ANSWER)
    key = key_for("chatgpt.com", conversation)
    final_text(bridge, key)
    page.click("#prompt-textarea")
    page.keyboard.type("my own question")
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ask")
    assert input_value(page) == "my own question"  # nothing put in before the answer
    assert bridge.pages[key].delivered_calls == []
    click_panel(page, choice)
    if choice == "later":
        wait_panel(page, "later")
        assert bridge.pages[key].delivered_calls == []
    else:
        wait_panel(page, "ready")
        bridge.wait_for(lambda double: double.pages[key].delivered_calls)
    assert input_value(page) == expected


def test_a_textarea_holding_the_persons_text_is_asked_about_too(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chat.deepseek.com", conversation)
    stream(page, ANSWER)
    key = key_for("chat.deepseek.com", conversation)
    final_text(bridge, key)
    page.click("#chat-input")
    page.keyboard.type("wait, one more thing")
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ask")
    click_panel(page, "append")
    wait_panel(page, "ready")
    assert input_value(page) == "wait, one more thing\n\n" + COPY_TEXT


def enable_auto_send(browser: Any, bridge: BridgeDouble, delay_ms: int = 1000, per_minute: int = 3) -> None:
    browser.set_storage({"autoSend": True, "autoSendDelayMs": delay_ms, "sendsPerMinute": per_minute})


def test_auto_send_sends_once_only_after_the_generating_indicator_is_gone(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge)
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    key = key_for("chatgpt.com", conversation)
    bridge.make_ready(key, COPY_TEXT, 2)  # Operator has everything; the model is still writing
    page.evaluate("([text]) => { mockChat.begin(); mockChat.grow(text); }", [ANSWER])
    bridge.wait_for(lambda double: key in double.pages and double.pages[key].message)
    time.sleep(2.0)
    assert sent(page) == [] and input_value(page) == ""  # not while the stop button is there
    page.evaluate("() => mockChat.end()")
    wait_panel(page, "sent")
    assert sent(page) == [COPY_TEXT]
    calls = bridge.wait_for(lambda double: [c for c in double.pages[key].delivered_calls if c["sent"]])
    assert len(calls) == 1
    stop_gone_at = next(r.at for r in bridge.posts("/v1/message") if r.body["generating"] is False)
    time.sleep(2.0)
    assert sent(page) == [COPY_TEXT]  # once per page message
    assert stop_gone_at > 0


def test_auto_send_does_not_send_what_the_person_changed_during_the_delay(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge, delay_ms=1500)
    page = open_chat(extension_browser, mock_sites, "chat.deepseek.com", conversation)
    key = key_for("chat.deepseek.com", conversation)
    stream(page, ANSWER)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "autosend-pending")
    page.click("#chat-input")
    page.keyboard.press("End")
    page.keyboard.type(" and also")
    wait_panel(page, "autosend-refused")
    assert sent(page) == []


def test_auto_send_is_never_used_when_the_person_had_text_in_the_box(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge, delay_ms=500)
    page = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    key = key_for("claude.ai", conversation)
    stream(page, ANSWER)
    final_text(bridge, key)
    page.click("#editor")
    page.keyboard.type("note to self")
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ask")
    click_panel(page, "append")
    wait_panel(page, "ready")
    time.sleep(1.5)
    assert sent(page) == []


def test_auto_send_keeps_to_its_limit_per_minute(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge, delay_ms=500, per_minute=1)
    page = open_chat(extension_browser, mock_sites, "grok.com", conversation)
    stream(page, ANSWER)
    first = key_for("grok.com", conversation, 0)
    final_text(bridge, first)
    bridge.make_ready(first, COPY_TEXT, 2)
    wait_panel(page, "sent")
    stream(page, ANSWER.replace("r1", "r3").replace("r2", "r4"))
    second = key_for("grok.com", conversation, 1)
    final_text(bridge, second)
    bridge.make_ready(second, COPY_TEXT.replace("r1", "r3"), 2)
    wait_panel(page, "autosend-refused")
    assert "1 auto-sends in the last minute" in page.inner_text("#operator-bridge-ui .text")
    assert len(sent(page)) == 1
    assert input_value(page) == COPY_TEXT.replace("r1", "r3")  # still there for the person's Enter


def test_a_reload_fills_nothing_twice(extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str) -> None:
    page = open_chat(extension_browser, mock_sites, "gemini.google.com", conversation)
    key = key_for("gemini.google.com", conversation)
    stream(page, ANSWER)
    text = final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    page.click("#send")
    page.reload()
    page.wait_for_function("() => window.mockChat !== undefined")
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])  # the page shows the finished answer again
    bridge.wait_for(lambda double: len([r for r in double.posts("/v1/message") if r.body["text"] == text and not r.body["generating"]]) >= 2)
    time.sleep(1.5)
    assert input_value(page) == ""
    assert len(bridge.pages[key].delivered_calls) == 1


def test_nothing_is_sent_for_an_answer_without_operator_cmd(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, "Just a chat answer, with no commands in it.\n\nSecond paragraph.")
    page.wait_for_function("() => !mockChat.generating")
    time.sleep(1.0)
    assert bridge.posts("/v1/message") == []


def test_the_page_says_when_operator_is_not_listening(extension_browser: Any, mock_sites: Any, conversation: str) -> None:
    extension_browser.reset(token="some-token", port=1)  # nothing listens on port 1
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, ANSWER)
    wait_panel(page, "not-connected")
    assert "Start the bridge in Operator with b" in page.inner_text("#operator-bridge-ui .panel")


def test_the_generic_fallback_reads_the_last_marked_message_and_ends_it_after_a_quiet_period(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "127.0.0.1", conversation)
    page.evaluate("([text]) => mockChat.show(text)", ["An earlier answer:\n\nOPERATOR_CMD\nid: old\naction: fs.list\npath: .\nEND_OPERATOR_CMD"])
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    ended_at = time.monotonic()
    text = final_text(bridge, key_for("127.0.0.1", conversation, 1))
    assert time.monotonic() - ended_at > 1.5  # no indicator: the quiet period decides
    assert "id: old" not in text and all(lines in text for lines in BLOCK_LINES)


def test_send_selection_keeps_the_line_breaks_of_the_page(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "127.0.0.1", conversation)
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])
    page.evaluate("""() => { const p = [...document.querySelectorAll('.bubble p')].find(p => p.textContent.includes('id: r2'));
                              const range = document.createRange(); range.selectNodeContents(p);
                              getSelection().removeAllRanges(); getSelection().addRange(range); }""")
    tab = extension_browser.tab_id(f"127.0.0.1:{mock_sites.port}{conversation}")
    # What the context menu's click hands the background: Chrome's selectionText has lost the
    # line breaks; the extension reads the selection in the page instead.
    extension_browser.worker.evaluate(
        "([tabId, url]) => globalThis.operatorBridge.sendSelection("
        "{menuItemId: 'operator-send-selection', frameId: 0, pageUrl: url, selectionText: 'OPERATOR_CMD id: r2 action: fs.list'},"
        " {id: tabId, url, title: 'Local chat'})",
        [tab, page.url],
    )
    posted = bridge.wait_for(lambda double: [r.body for r in double.posts("/v1/message") if r.body["conversation"].startswith("selection/")])
    assert posted[0]["text"].strip() == BLOCK_LINES[1]
    assert posted[0]["generating"] is False
    assert posted[0]["conversation"] == "selection/127.0.0.1" + conversation
    key = (posted[0]["conversation"], posted[0]["position"])
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")  # the selection's results go into the page's input box too
    assert input_value(page) == COPY_TEXT


def test_the_popup_names_the_selector_that_found_nothing(extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?break=input")
    tab = extension_browser.tab_id("break=input")
    popup = extension_browser.popup(tab)
    popup.wait_for_selector("#tab-state[data-state='problem']")
    problems = popup.inner_text("#tab-problems")
    assert "input box:" in problems and "#prompt-textarea" in problems and "found nothing" in problems
    assert page.url.endswith("break=input")

    healthy = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    popup = extension_browser.popup(extension_browser.tab_id("claude.ai"))
    popup.wait_for_selector("#tab-state[data-state='ok']")
    assert "Claude: every selector found its element" in popup.inner_text("#tab-state")
    assert healthy.url.endswith(conversation)


def test_the_popup_reports_an_assistant_selector_that_misses_the_answer(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?break=assistant")
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    popup = extension_browser.popup(extension_browser.tab_id("break=assistant"))
    popup.wait_for_selector("#tab-state[data-state='problem']")
    item = popup.inner_text("#tab-problems li[data-field='assistant']")
    assert '[data-message-author-role="assistant"]' in item and "yet the page shows OPERATOR_CMD" in item
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
        assert hello[-1].headers["Authorization"] == f"Bearer {double.token}"
        assert "workspace demo" in popup.inner_text("#connection-state")
    finally:
        double.close()


def test_auto_send_is_off_by_default_and_its_settings_persist(extension_browser: Any, bridge: BridgeDouble) -> None:
    popup = extension_browser.popup()
    popup.wait_for_selector("#connection-state[data-state='connected']")
    assert not popup.is_checked("#autosend-on")
    assert popup.input_value("#autosend-delay") == "2" and popup.input_value("#autosend-rate") == "3"
    popup.check("#autosend-on")
    popup.fill("#autosend-delay", "3.5")
    popup.dispatch_event("#autosend-delay", "change")
    stored = extension_browser.storage()
    assert stored["autoSend"] is True and stored["autoSendDelayMs"] == 3500


def test_a_200000_character_answer_streams_as_growing_whole_texts(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    answer = long_answer()
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    stream(page, answer, chunk=8000, every=300)  # updates of the whole text, 300 ms apart
    text = final_text(bridge, key_for("chatgpt.com", conversation), timeout=40)
    assert len(text) > 180_000  # what the page shows of it: the fences themselves are not shown
    assert text.count("\nEND_OPERATOR_CMD") == 20
    updates = [r.body["text"] for r in bridge.posts("/v1/message")]
    assert len(updates) >= 15  # the page changed 25 times; each change was sent (a few may merge)
    for before, after in zip(updates, updates[1:]):
        assert after.startswith(before)  # so Operator feeds only what is new


@pytest.mark.parametrize("site", ["chatgpt", "gemini", "generic"])
def test_a_long_result_text_lands_whole_in_rich_editors(
    site: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host = SITES[site]
    page = open_chat(extension_browser, mock_sites, host, conversation)
    stream(page, ANSWER)
    key = key_for(host, conversation)
    final_text(bridge, key)
    long_text = "\n\n".join(COPY_TEXT.replace("r1", f"r1-{n}").replace("r2", f"r2-{n}") for n in range(25))
    assert long_text.count("\n") > 300  # past the length where ProseMirror gets its DOM in one change
    bridge.make_ready(key, long_text, 50)
    wait_panel(page, "ready")
    assert input_value(page) == long_text
    page.click("#send")
    assert sent(page) == [long_text]


def test_operator_hears_at_once_which_chat_tab_is_in_front(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    chatgpt = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    claude = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    for page, site in ((chatgpt, "ChatGPT"), (claude, "Claude"), (chatgpt, "ChatGPT")):
        asked_at = time.monotonic()
        page.bring_to_front()
        hello = bridge.wait_for(lambda double: [r for r in double.posts("/v1/hello") if r.at > asked_at], timeout=3)
        tab = hello[-1].body["tab"]  # well before the 10 s heartbeat
        assert tab["site"] == site and tab["title"] == f"{site} (mock)" and tab["adapter_ok"] is True and tab["problem"] is None
        assert tab["url"] == page.url


def test_the_popup_says_when_it_may_not_watch_a_page(extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str) -> None:
    page = extension_browser.context.new_page()  # a site no adapter knows: no content script there
    page.goto(mock_sites.url("chat.example.org", conversation))
    [tab] = extension_browser.worker.evaluate("async () => (await chrome.tabs.query({})).map(tab => tab.id)")
    popup = extension_browser.popup(tab)
    popup.wait_for_selector("#tab-state[data-state='idle']")
    assert "not watching this tab" in popup.inner_text("#tab-state")
    # Opened from a test, the popup has no activeTab grant for that page, as a popup opened
    # elsewhere would not: the extension may not go in, and says so instead of doing nothing.
    popup.click("#watch-tab")
    popup.wait_for_selector("#tab-state[data-state='problem']")
    assert "did not let the extension into this page" in popup.inner_text("#tab-state")
