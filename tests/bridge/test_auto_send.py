"""Auto-send: off by default; when on, it sends once per page message, only after the model has
stopped, only what the input box held of Operator's alone, after the delay, within the limit per
minute."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.chat_page import (
    ANSWER,
    COPY_TEXT,
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


def enable_auto_send(
    browser: Any, bridge: BridgeDouble, delay_ms: int = 1000, per_minute: int = 3
) -> None:
    browser.set_storage(
        {"autoSend": True, "autoSendDelayMs": delay_ms, "sendsPerMinute": per_minute}
    )


def test_auto_send_sends_once_only_after_the_generating_indicator_is_gone(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge)
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    key = key_for(page)
    bridge.make_ready(key, COPY_TEXT, 2)  # Operator has everything; the model is still writing
    page.evaluate("([text]) => { mockChat.begin(); mockChat.grow(text); }", [ANSWER])
    bridge.wait_for(lambda double: key in double.pages and double.pages[key].message)
    time.sleep(2.0)
    assert sent(page) == [] and input_value(page) == ""  # not while the stop button is there
    page.evaluate("() => mockChat.end()")
    wait_panel(page, "sent")
    assert sent(page) == [COPY_TEXT]
    calls = bridge.wait_for(
        lambda double: [c for c in double.pages[key].delivered_calls if c["sent"]]
    )
    assert len(calls) == 1
    stop_gone_at = next(r.at for r in bridge.posts("/v1/message") if r.body["generating"] is False)
    time.sleep(2.0)
    assert sent(page) == [COPY_TEXT]  # once per page message
    assert stop_gone_at > 0


def test_auto_send_does_not_send_what_the_person_changed_during_the_delay(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge, delay_ms=1500)
    page, key = answered(extension_browser, mock_sites, bridge, "chat.deepseek.com", conversation)
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
    page, key = answered(extension_browser, mock_sites, bridge, "claude.ai", conversation)
    results_over_the_persons_text(page, bridge, key, "#editor", "note to self")
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
    first = key_for(page, 0)
    final_text(bridge, first)
    bridge.make_ready(first, COPY_TEXT, 2)
    wait_panel(page, "sent")
    stream(page, ANSWER.replace("r1", "r3").replace("r2", "r4"))
    second = key_for(page, 1)
    final_text(bridge, second)
    bridge.make_ready(second, COPY_TEXT.replace("r1", "r3"), 2)
    wait_panel(page, "autosend-refused")
    assert "1 auto-sends in the last minute" in panel_text(page, ".text")
    assert len(sent(page)) == 1
    assert input_value(page) == COPY_TEXT.replace("r1", "r3")  # still there for the person's Enter


def test_auto_send_is_off_by_default_and_its_settings_persist(
    extension_browser: Any, bridge: BridgeDouble
) -> None:
    popup = extension_browser.popup()
    popup.wait_for_selector("#connection-state[data-state='connected']")
    assert not popup.is_checked("#autosend-on")
    assert (
        popup.input_value("#autosend-delay") == "2" and popup.input_value("#autosend-rate") == "3"
    )
    popup.check("#autosend-on")
    popup.fill("#autosend-delay", "3.5")
    popup.dispatch_event("#autosend-delay", "change")
    stored = extension_browser.storage_once(lambda s: s.get("autoSendDelayMs") == 3500)
    assert stored["autoSend"] is True and stored["autoSendDelayMs"] == 3500


@pytest.mark.parametrize("added", ["", " and my note"])
def test_results_operator_left_unsent_are_replaced_by_the_next_without_asking(
    added: str, extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """The first answer's results stay in the box (the person cancelled the auto-send); the next
    answer's results replace them: they are Operator's own, not text of the person's. What the
    person added to them is theirs: then the page asks."""
    enable_auto_send(extension_browser, bridge, delay_ms=1500)
    page, first = answered(extension_browser, mock_sites, bridge, "claude.ai", conversation)
    bridge.make_ready(first, COPY_TEXT, 2)
    wait_panel(page, "autosend-pending")
    click_panel(page, "cancel")
    wait_panel(page, "autosend-cancelled")
    if added:
        page.click("#editor")
        page.keyboard.press("Control+End")
        page.keyboard.type(added)
    stream(page, ANSWER.replace("r1", "r3").replace("r2", "r4"))
    second = key_for(page, 1)
    final_text(bridge, second)
    later = COPY_TEXT.replace("r1", "r3").replace("r2", "r4")
    bridge.make_ready(second, later, 2)
    if added:
        wait_panel(page, "ask")
        assert input_value(page) == COPY_TEXT + added
        return
    wait_panel(page, "autosend-pending")  # the box held nothing of the person's
    assert input_value(page) == later
    wait_panel(page, "sent")
    assert sent(page) == [later]


def test_the_auto_send_notice_counts_down(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    enable_auto_send(extension_browser, bridge, delay_ms=3000)
    page, key = answered(extension_browser, mock_sites, bridge, "chatgpt.com", conversation)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "autosend-pending")

    def said():
        return panel_text(page, ".text")

    assert "sending in 3 s" in said()
    eventually(lambda: "sending in 2 s" in said(), timeout=2.5)
    eventually(lambda: "sending in 1 s" in said(), timeout=2.5)
    wait_panel(page, "sent")
    assert sent(page) == [COPY_TEXT]
