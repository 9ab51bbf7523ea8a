"""Which pages the extension watches. The chat sites the adapters know, always; any other page only
once the person chose its origin (scheme, host and port) in the popup, remembered for every page
of that origin until they stop it there. And two apps on this computer, on two ports, are two
sites: their answers never share a conversation, nor their results a tab. Against a stand-in that
answers as the bridge contract says (tests/support/contract_double.py)."""

from __future__ import annotations

import time
from typing import Any

from tests.support.browser import MockSites, require_browser
from tests.support.chat_page import (
    ANSWER,
    COPY_TEXT,
    final_text,
    input_value,
    key_for,
    open_chat,
    panel_state,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()

QUIET_S = 4.0  # longer than the generic fallback's quiet period (2.5 s) that ends an answer


def new_page(browser: Any, url: str) -> Any:
    page = browser.context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.mockChat !== undefined")
    return page


def tab_of(browser: Any, part: str) -> int:
    tabs = browser.worker.evaluate(
        "async part => (await chrome.tabs.query({}))"
        ".filter(t => (t.url || '').includes(part)).map(t => t.id)",
        part,
    )
    assert len(tabs) == 1, tabs
    return int(tabs[0])


def posted_keys(bridge: BridgeDouble) -> set[tuple[str, int]]:
    return {(r.body["conversation"], r.body["position"]) for r in bridge.posts("/v1/message")}


def test_a_chosen_origin_is_watched_on_all_its_pages_until_stopped_from_the_popup(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    first = new_page(extension_browser, mock_sites.url("127.0.0.1", conversation + "/a"))
    stream(first, ANSWER)
    first.wait_for_function("() => !mockChat.generating")
    time.sleep(QUIET_S)
    assert bridge.posts("/v1/message") == []  # not chosen: not read

    popup = extension_browser.popup(tab_of(extension_browser, conversation + "/a"))
    popup.wait_for_selector("#tab-state[data-state='idle']")
    assert popup.is_visible("#watch-hint")
    popup.click("#watch-tab")
    popup.wait_for_selector("#tab-state[data-state='ok']")
    origin = f"http://127.0.0.1:{mock_sites.port}"
    assert popup.get_attribute("#chosen-origins li", "data-origin") == origin
    assert "Stop watching 127.0.0.1:" in popup.inner_text("#stop-tab")
    final_text(bridge, key_for(first))  # the answer already on the page is read once chosen
    # ... as what it is, an answer written before: finished, never as if it were being written
    # (Operator then asks the person before running it).
    assert [
        r.body["generating"]
        for r in bridge.posts("/v1/message")
        if (r.body["conversation"], r.body["position"]) == key_for(first)
    ] == [False]

    second = new_page(extension_browser, mock_sites.url("127.0.0.1", conversation + "/b"))
    stream(second, ANSWER.replace("r1", "r3"))
    assert "id: r3" in final_text(bridge, key_for(second))  # the same origin: watched as it loads
    elsewhere = new_page(extension_browser, mock_sites.url("localhost", conversation + "/c"))
    stream(elsewhere, ANSWER.replace("r1", "r4"))

    popup.reload()
    popup.wait_for_selector("#chosen:not([hidden])")
    popup.click(f"#chosen-origins li[data-origin='{origin}'] button")
    popup.wait_for_selector("#chosen[hidden]", state="attached")
    assert extension_browser.storage().get("watchedOrigins") == {}
    seen = len(bridge.posts("/v1/message"))
    stream(second, ANSWER.replace("r1", "r5"))
    second.wait_for_function("() => !mockChat.generating")
    time.sleep(QUIET_S)
    assert len(bridge.posts("/v1/message")) == seen  # stopped: its pages are read no more
    assert all(
        key[0].startswith("127.0.0.1:") for key in posted_keys(bridge)
    )  # localhost never was
    # What Operator already had from its pages stays there: not its progress, not its results.
    # (The answer on `second` is waiting in Operator, as a write waits for the person's consent;
    # its results come after the person stopped watching.)
    bridge.make_ready(key_for(second), COPY_TEXT.replace("r1", "r3"), 2)
    time.sleep(2.0)
    assert input_value(second) == ""
    assert panel_state(first) == "" and panel_state(second) == ""


def test_two_local_apps_on_two_ports_are_two_conversations_and_keep_their_results(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    other_app = MockSites()
    try:
        one = open_chat(extension_browser, mock_sites, "127.0.0.1", conversation)
        extension_browser.choose_origin(f"http://127.0.0.1:{other_app.port}")
        two = new_page(extension_browser, other_app.url("127.0.0.1", conversation))
        stream(one, ANSWER)
        stream(two, ANSWER.replace("r1", "r8"))
        key_one, key_two = key_for(one), key_for(two)
        assert key_one != key_two and key_one[1] == key_two[1] == 0
        assert "id: r1" in final_text(bridge, key_one) and "id: r8" in final_text(bridge, key_two)
        assert posted_keys(bridge) == {key_one, key_two}
        # The first app's tab closes before its results are in: they go to no other tab, not even
        # one showing the same path on the other port.
        one.close()
        bridge.make_ready(key_one, COPY_TEXT, 2)
        time.sleep(2.0)
        assert input_value(two) == ""
        bridge.make_ready(key_two, COPY_TEXT.replace("r1", "r8"), 2)
        wait_panel(two, "ready")
        assert input_value(two) == COPY_TEXT.replace("r1", "r8")
    finally:
        other_app.close()
