"""When a site changes: the popup's health check field by field, "Point at it" (the person clicks
the element, a stable selector is kept for that site and tried first), the page panel's repair
when a fill fails or an answer ends without a message, and the person's selectors listed,
removed, exported and imported."""

from __future__ import annotations

import json
from typing import Any

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
    panel_text,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()


def overrides(browser: Any) -> dict[str, Any]:
    return browser.storage().get("selectorOverrides", {})


def trials(browser: Any) -> dict[str, Any]:
    """The selectors on trial, {site: {field: [selector]}} (their pages aside)."""
    kept = browser.storage().get("selectorTrials", {})
    return {
        site: {field: [entry["selector"] for entry in entries] for field, entries in fields.items()}
        for site, fields in kept.items()
    }


def test_pointing_at_the_input_box_from_the_popup_keeps_a_selector_tried_first(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?break=input")
    tab = extension_browser.tab_id("break=input")
    popup = extension_browser.popup(tab)
    popup.wait_for_selector("#tab-fields li[data-field='input'][data-state='missing']")
    popup.click("#tab-fields li[data-field='input'] button[data-action='point']")
    popup.wait_for_selector("#point-hint:not([hidden])")
    assert "Click the input box in the page" in popup.inner_text("#point-hint")
    wait_panel(page, "teaching")
    page.bring_to_front()
    page.click("#composer-input")
    wait_panel(page, "taught")
    # On trial on this page until it has proven itself (issue 26).
    assert overrides(extension_browser) == {}
    assert trials(extension_browser) == {"chatgpt": {"input": ["#composer-input"]}}
    popup.reload()
    popup.wait_for_selector("#tab-fields li[data-field='input'][data-state='found']")
    assert popup.inner_text("#tab-fields li[data-field='input'] code.matched") == "#composer-input"
    said = popup.inner_text("#tab-fields li[data-field='input']")
    assert "(yours, on trial on this page)" in said
    assert popup.inner_text("#selector-list li[data-field='input'] code") == "#composer-input"
    assert "on trial on chatgpt.com" in popup.inner_text("#selector-list li[data-field='input']")
    assert "input box found by your selector #composer-input (on trial" in popup.inner_text(
        "#tab-state"
    )
    # From now on results go there; once they did, the selector is ChatGPT's for every page.
    stream(page, ANSWER)
    key = key_for(page)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    assert input_value(page) == COPY_TEXT
    stored = extension_browser.storage_once(lambda kept: kept.get("selectorOverrides"))
    assert stored["selectorOverrides"] == {"chatgpt": {"input": ["#composer-input"]}}
    assert stored.get("selectorTrials") == {}


def test_a_failed_fill_says_what_failed_and_the_repair_puts_the_results_in(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?break=input")
    stream(page, ANSWER)
    key = key_for(page)
    final_text(bridge, key)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "fill-failed")
    said = panel_text(page, ".text")
    assert (
        "input box: no element matches #prompt-textarea" in said
        and "Point at the input box" in said
    )
    click_panel(page, "point")
    wait_panel(page, "teaching")
    page.click("#composer-input")
    wait_panel(page, "ready")  # taught, and the results went in at once
    assert input_value(page) == COPY_TEXT
    assert bridge.wait_for(lambda double: double.pages[key].delivered_calls)


def test_an_answer_the_adapter_cannot_read_is_reported_on_the_page_and_repaired_by_pointing(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(
        extension_browser, mock_sites, "chatgpt.com", conversation + "?break=assistant"
    )
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    wait_panel(page, "repair-assistant", timeout=15)
    said = panel_text(page, ".text")
    assert (
        '[data-message-author-role="assistant"]' in said
        and "The page shows a block for Operator, but no selector" in said
    )
    assert bridge.posts("/v1/message") == []
    click_panel(page, "point")
    wait_panel(page, "teaching")
    page.click("div[data-author='assistant'] p >> nth=0")
    wait_panel(page, "taught")
    taught = trials(extension_browser)["chatgpt"]["assistant"][0]
    assert page.evaluate("s => document.querySelectorAll(s).length", taught) == 1
    assert page.evaluate(
        "s => document.querySelector(s).innerText.includes('OPERATOR_CMD')", taught
    )
    key = key_for(page)
    text = final_text(bridge, key)
    assert "id: r1" in text and "id: r2" in text
    # Found by a selector just taught, it was not heard being written: sent once, finished, so
    # that Operator asks before it runs it (issue 26: it ran at once).
    assert [post.body["generating"] for post in bridge.posts("/v1/message")] == [False]
    # It proves itself once the answer it found ran: then it is ChatGPT's, on every page.
    assert overrides(extension_browser) == {}
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    stored = extension_browser.storage_once(lambda kept: kept.get("selectorOverrides"))
    assert stored["selectorOverrides"] == {"chatgpt": {"assistant": [taught]}}


def test_only_the_persons_own_click_teaches(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?break=input")
    popup = extension_browser.popup(extension_browser.tab_id("break=input"))
    popup.wait_for_selector("#tab-fields li[data-field='input'] button[data-action='point']")
    popup.click("#tab-fields li[data-field='input'] button[data-action='point']")
    wait_panel(page, "teaching")
    page.evaluate(
        "() => document.querySelector('#composer-input').click()"
    )  # the page's own script
    page.wait_for_timeout(300)
    assert (
        page.evaluate("() => document.getElementById('operator-bridge-ui').dataset.state")
        == "teaching"
    )
    page.bring_to_front()
    page.keyboard.press("Escape")
    eventually(lambda: page.evaluate("() => !document.getElementById('operator-bridge-ui')"))
    assert overrides(extension_browser) == {}


def test_the_persons_selectors_are_listed_removed_exported_and_imported(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])
    popup = extension_browser.popup(extension_browser.tab_id(conversation))
    popup.wait_for_selector("#selectors-none:not([hidden])")
    # Import: a selector of the person's own is tried before the built-in one.
    mine = {
        "format": "operator-bridge-selectors",
        "version": 1,
        "sites": {
            "chatgpt": {"assistant": [".markdown"]},
            "http://127.0.0.1:8080": {"input": ["#chat-box"]},
        },
    }
    popup.click("#selectors-import")
    popup.fill("#selectors-json", json.dumps(mine))
    popup.click("#selectors-import")
    popup.wait_for_selector("#selector-list li[data-site='chatgpt']")
    assert "Imported 2 selectors" in popup.inner_text("#selectors-result")
    popup.wait_for_selector("#tab-fields li[data-field='assistant'] .own")
    assert popup.inner_text("#tab-fields li[data-field='assistant'] code.matched") == ".markdown"
    # Export gives back what is kept.
    popup.click("#selectors-export")
    exported = json.loads(popup.input_value("#selectors-json"))
    assert exported == mine
    # Remove one: the built-in selector finds the answers again.
    popup.click("#selector-list li[data-site='chatgpt'] button[data-action='remove']")
    popup.wait_for_selector("#selector-list li[data-site='chatgpt']", state="detached")
    assert overrides(extension_browser) == {"http://127.0.0.1:8080": {"input": ["#chat-box"]}}
    popup.wait_for_selector(
        "#tab-fields li[data-field='assistant'] "
        "code.matched:text-is('[data-message-author-role=\"assistant\"]')"
    )
    # A bad file changes nothing and says which entry is wrong.
    for bad, said in (
        ({**mine, "sites": {"chatgpt": {"inbox": ["#x"]}}}, 'unknown field "inbox"'),
        ({**mine, "sites": {"evil.example": {"input": ["#x"]}}}, 'unknown site "evil.example"'),
        ({**mine, "sites": {"chatgpt": {"input": ["div[[["]}}}, "cannot parse the selector"),
        ({"sites": {}}, "not an export of Operator's selectors"),
    ):
        popup.fill("#selectors-json", json.dumps(bad))
        popup.click("#selectors-import")
        popup.wait_for_selector("#selectors-result.error")
        assert said in popup.inner_text("#selectors-result"), bad
        popup.evaluate("() => document.getElementById('selectors-result').className = ''")
    assert overrides(extension_browser) == {"http://127.0.0.1:8080": {"input": ["#chat-box"]}}


def test_a_selector_taught_from_a_page_is_kept_under_that_pages_site(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    page = open_chat(extension_browser, mock_sites, "claude.ai", conversation)
    del page
    tab = extension_browser.tab_id("claude.ai")
    # As a content script would ask, naming another site: the background keys it by the sender.
    answer = extension_browser.worker.evaluate(
        """async tabId => {
             const url = globalThis.operatorBridge.chatTabs.get(tabId).url;
             return globalThis.OperatorSelectors.teach(url, "input", "#somewhere"); }""",
        tab,
    )
    assert answer["site"] == "claude"
    assert list(trials(extension_browser)) == ["claude"] and overrides(extension_browser) == {}
