"""The extension on the mock chat pages, writing back: the results go into each site's editor so
that the page's own send sends them, the badge counts them, the person's own text is never mixed
with them without asking, and a reload fills nothing twice."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.chat_page import (
    ANSWER,
    COPY_TEXT,
    SITES,
    answered,
    click_panel,
    eventually,
    final_text,
    input_value,
    key_for,
    open_chat,
    panel_text,
    results_over_the_persons_text,
    sent,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()


@pytest.mark.parametrize("site", sorted(SITES))
def test_each_adapter_puts_the_results_into_its_editor_so_that_send_sends_them(
    site: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host = SITES[site]
    page, key = answered(extension_browser, mock_sites, bridge, host, conversation)
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
    eventually(
        lambda: (
            extension_browser.worker.evaluate("tabId => chrome.action.getBadgeText({tabId})", tab)
            == ""
        )
    )


def test_the_badge_shows_how_many_results_wait_in_the_input_box(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page, key = answered(extension_browser, mock_sites, bridge, "chatgpt.com", conversation)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    tab = extension_browser.tab_id("chatgpt.com:" + str(mock_sites.port) + conversation)
    eventually(
        lambda: (
            extension_browser.worker.evaluate("tabId => chrome.action.getBadgeText({tabId})", tab)
            == "2"
        )
    )
    assert "Operator: 2 results ready" in panel_text(page, ".title")


@pytest.mark.parametrize(
    "choice, expected",
    [
        ("append", "my own question\n\n" + COPY_TEXT),
        ("replace", COPY_TEXT),
        ("later", "my own question"),
    ],
)
def test_results_never_mix_into_the_persons_text_without_asking(
    choice: str,
    expected: str,
    extension_browser: Any,
    mock_sites: Any,
    bridge: BridgeDouble,
    conversation: str,
) -> None:
    page, key = answered(extension_browser, mock_sites, bridge, "chatgpt.com", conversation)
    results_over_the_persons_text(page, bridge, key, "#prompt-textarea", "my own question")
    assert input_value(page) == "my own question"  # nothing put in before the answer
    assert bridge.pages[key].delivered_calls == []
    # Operator's terminal is told the page asks (the person may be looking there).
    asked = bridge.wait_for(lambda double: double.posts("/v1/asked"))
    assert [(r.body["conversation"], r.body["position"], r.body["message"]) for r in asked] == [
        (*key, 1)
    ]
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
    page, key = answered(extension_browser, mock_sites, bridge, "chat.deepseek.com", conversation)
    results_over_the_persons_text(page, bridge, key, "#chat-input", "wait, one more thing")
    click_panel(page, "append")
    wait_panel(page, "ready")
    assert input_value(page) == "wait, one more thing\n\n" + COPY_TEXT


@pytest.mark.parametrize("site", ["chatgpt", "gemini", "generic"])
def test_a_long_result_text_lands_whole_in_rich_editors(
    site: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    host = SITES[site]
    page, key = answered(extension_browser, mock_sites, bridge, host, conversation)
    long_text = "\n\n".join(
        COPY_TEXT.replace("r1", f"r1-{n}").replace("r2", f"r2-{n}") for n in range(25)
    )
    assert (
        long_text.count("\n") > 300
    )  # past the length where ProseMirror gets its DOM in one change
    bridge.make_ready(key, long_text, 50)
    wait_panel(page, "ready")
    assert input_value(page) == long_text
    page.click("#send")
    assert sent(page) == [long_text]


def test_a_reload_fills_nothing_twice(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "gemini.google.com", conversation)
    key = key_for(page)
    stream(page, ANSWER)
    text = final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    page.click("#send")
    page.reload()
    page.wait_for_function("() => window.mockChat !== undefined")
    page.evaluate(
        "([text]) => mockChat.show(text)", [ANSWER]
    )  # the page shows the finished answer again
    bridge.wait_for(
        lambda double: (
            len(
                [
                    r
                    for r in double.posts("/v1/message")
                    if r.body["text"] == text and not r.body["generating"]
                ]
            )
            >= 2
        )
    )
    time.sleep(1.5)
    assert input_value(page) == ""
    assert len(bridge.pages[key].delivered_calls) == 1


def badge_and_title(browser: Any, tab: int) -> tuple[str, str]:
    return tuple(
        browser.worker.evaluate(  # type: ignore[return-value]
            "async tabId => [await chrome.action.getBadgeText({tabId}), "
            "await chrome.action.getTitle({tabId})]",
            tab,
        )
    )


def test_the_icon_counts_only_the_results_still_in_the_box_and_its_tooltip_says_so(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """DeepSeek's box is a plain textarea: clearing it changes no DOM node, and the badge kept its
    old count. The tooltip says what the count is, then who the extension speaks to."""
    page, key = answered(extension_browser, mock_sites, bridge, "chat.deepseek.com", conversation)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    tab = extension_browser.tab_id("chat.deepseek.com:" + str(mock_sites.port) + conversation)
    eventually(lambda: badge_and_title(extension_browser, tab)[0] == "2")
    assert badge_and_title(extension_browser, tab)[1] == (
        "Operator bridge: 2 results ready in this tab's input box (press Enter there to send)"
    )
    page.click("#chat-input")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    eventually(lambda: badge_and_title(extension_browser, tab)[0] == "")
    assert (
        badge_and_title(extension_browser, tab)[1]
        == "Operator bridge: connected to Operator (workspace demo)"
    )
