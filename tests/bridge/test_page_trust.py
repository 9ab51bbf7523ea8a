"""What the trial and the attack of issue 26 found on the page side, tried again in Chromium with
the real extension, against the bridge stand-in: no false alarm for the person's own prompt,
pointing that never takes the person's message and keeps a repair to its page until it proves
itself, an answer drawn from the page's history or found by a new selector never taken as heard
being written, results back after a reload, Operator's earlier results in the box never counted
as the person's text, and a page's script clicking the panel for the person."""

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
    panel_state,
    panel_text,
    stream,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble
from tests.support.panel import CENTRE, panel_eval

require_browser()

# A system prompt as a person pastes it into a new chat: it holds example blocks.
PROMPT = (
    "You work on my files through Operator. Ask for what you need with blocks like this one:\n\n"
    "OPERATOR_CMD\nversion: 1\nid: example-1\naction: fs.read\npath: README.md\n"
    "END_OPERATOR_CMD\n\nThen wait for my results."
)
EDITOR = "#prompt-textarea"


def send_as_the_person(page: Any, text: str) -> None:
    """The person pastes `text` into the chat's input box and presses Enter."""
    page.click(EDITOR)
    paste(page, text)
    sent_before = page.evaluate("() => mockChat.sent.length")
    page.keyboard.press("Enter")
    page.wait_for_function("n => mockChat.sent.length > n", arg=sent_before)


def paste(page: Any, text: str) -> None:
    """The person pastes `text` where the caret is in the chat's input box."""
    page.evaluate(
        """([selector, text]) => { const data = new DataTransfer();
             data.setData('text/plain', text);
             const box = document.querySelector(selector);
             (box.querySelector('[contenteditable]') || box).dispatchEvent(new ClipboardEvent(
               'paste', {clipboardData: data, bubbles: true, cancelable: true})); }""",
        [EDITOR, text],
    )


def status(browser: Any, tab: int) -> dict[str, Any]:
    """What the tab's content script reports (as the popup asks it)."""
    return browser.worker.evaluate("tab => chrome.tabs.sendMessage(tab, {type: 'status'})", tab)


def looked_for_unread_answers_since(browser: Any, tab: int, since_ms: float) -> None:
    """Wait until the page's own check for an answer it cannot read has run after `since_ms`."""
    deadline = time.monotonic() + 15
    while status(browser, tab)["unreadCheckedAt"] <= since_ms:
        assert time.monotonic() < deadline, "the page did not look for unread answers"
        time.sleep(0.1)


def now_ms(page: Any) -> float:
    return float(page.evaluate("() => Date.now()"))


@pytest.mark.parametrize("shape", ["", "&shape=unmarked-user"], ids=["marked", "unmarked"])
def test_the_persons_prompt_raises_no_alarm_while_the_model_has_not_begun(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str, shape: str
) -> None:
    """Item 1: every new chat raised "cannot read this answer" when the model had not begun
    within 2.5 s: the person's own prompt holds OPERATOR_CMD. Whether the site marks the person's
    messages (its user selectors) or not (what they sent is remembered), their prompt is theirs."""
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation + "?x=1" + shape)
    tab = extension_browser.tab_id(conversation)
    send_as_the_person(page, PROMPT)
    page.evaluate("() => mockChat.setGenerating(true)")  # the stop button; no answer yet
    since = now_ms(page)
    looked_for_unread_answers_since(extension_browser, tab, since)
    assert panel_state(page) == ""
    fields = {field["field"]: field for field in status(extension_browser, tab)["fields"]}
    assert fields["assistant"]["state"] == "idle"
    page.evaluate("() => mockChat.setGenerating(false)")  # and when the model gave up, too
    page.evaluate("() => document.body.appendChild(document.createElement('span'))")
    looked_for_unread_answers_since(extension_browser, tab, now_ms(page))
    assert panel_state(page) == "" and bridge.posts("/v1/message") == []
    # The answer that comes is read, and the prompt's example never is.
    stream(page, ANSWER)
    text = final_text(bridge, key_for(page))
    assert "example-1" not in text and "id: r1" in text


def test_pointing_refuses_the_persons_message_and_a_repair_stays_on_its_page_until_proven(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Item 2: "Point at the answer" took the person's own message and kept it for the whole
    site: the prompt's example ran as an answer, and real answers on every tab of the site were
    ignored, unsaid, while the popup showed all green."""
    page = open_chat(
        extension_browser, mock_sites, "chatgpt.com", conversation + "?break=assistant"
    )
    send_as_the_person(page, PROMPT)
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    wait_panel(page, "repair-assistant", timeout=15)
    said = panel_text(page, ".text")
    assert "found nothing" not in said  # item 8: "none of ... found nothing"
    click_panel(page, "point")
    wait_panel(page, "teaching")
    page.click(".user-msg")  # the person's own message
    wait_panel(page, "teach-own")
    assert extension_browser.storage().get("selectorTrials", {}) == {}
    click_panel(page, "point")
    wait_panel(page, "teaching")
    page.click("div[data-author='assistant'] p >> nth=0")
    wait_panel(page, "taught")
    kept = extension_browser.storage()
    assert kept.get("selectorOverrides", {}) == {}
    [trial] = kept["selectorTrials"]["chatgpt"]["assistant"]
    assert trial["page"] == key_for(page)[0]
    key = key_for(page)
    text = final_text(bridge, key)
    assert "example-1" not in text and "id: r1" in text
    # The health line names the repair (the popup and Operator's terminal, through the hello).
    tab = extension_browser.tab_id(conversation)
    eventually(
        lambda: "on trial on this page" in (status(extension_browser, tab)["repaired"] or "")
    )
    popup = extension_browser.popup(tab)
    popup.wait_for_selector("#tab-state[data-state='ok']")
    assert "Your selectors at work: assistant messages found by your selector" in popup.inner_text(
        "#tab-state"
    )
    popup.close()
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    bridge.wait_for(
        lambda double: any(
            "found by your selector" in ((post.body.get("tab") or {}).get("repaired") or "")
            for post in double.posts("/v1/hello")
        )
    )
    # Another tab of the site does not use it yet.
    other = open_chat(
        extension_browser, mock_sites, "chatgpt.com", conversation + "-other?break=assistant"
    )
    stream(other, ANSWER)
    other.wait_for_function("() => !mockChat.generating")
    other_tab = extension_browser.tab_id(conversation + "-other")
    eventually(
        lambda: (
            {f["field"]: f for f in status(extension_browser, other_tab)["fields"]}["assistant"][
                "state"
            ]
            == "missing"
        ),
        timeout=10,
    )
    # Once the answer it found has run, it is ChatGPT's: the other tab reads its answer too.
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    stored = extension_browser.storage_once(lambda kept: kept.get("selectorOverrides"))
    assert stored["selectorOverrides"] == {"chatgpt": {"assistant": [trial["selector"]]}}
    assert "id: r1" in final_text(bridge, key_for(other))


def test_an_answer_the_page_draws_from_its_history_after_loading_is_never_taken_as_heard(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Item 10: a chat app fetches a conversation's history a moment after the page loads; the
    old answer it draws then ran unasked (reads ran, its write's dialog opened out of context)."""
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    tab = extension_browser.tab_id(conversation)
    eventually(lambda: status(extension_browser, tab)["active"])
    # Drawn whole a moment after the page was seen empty, no stop button: from its history.
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])
    key = key_for(page)
    final_text(bridge, key)
    posts = [post.body for post in bridge.posts("/v1/message")]
    assert posts and all(body["generating"] is False for body in posts)
    assert status(extension_browser, tab)["heldWritten"] is True


def test_a_reply_to_the_person_is_heard_even_when_it_comes_whole(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """The other side of item 10: the reply to a message the person just sent is heard being
    written even when the site shows it whole and without its stop button (a fast answer)."""
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    send_as_the_person(page, "Please read the plan and list the folder for me, then stop there.")
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])  # whole at once, no stop button
    final_text(bridge, key_for(page))
    assert bridge.posts("/v1/message")[0].body["generating"] is True


def test_an_old_answer_the_page_draws_in_two_steps_is_never_taken_as_heard(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Issue 35, item 7: a history drawn in two steps 200 ms apart looked like an answer growing,
    so it ran unasked. Growth counts only when it goes on (twice at least)."""
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    tab = extension_browser.tab_id(conversation)
    eventually(lambda: status(extension_browser, tab)["active"])
    cut = ANSWER.index("\nAnd the folder")
    page.evaluate(
        """([first, rest]) => new Promise(done => { mockChat.show(first);
             setTimeout(() => { mockChat.grow(rest); done(); }, 200); })""",
        [ANSWER[:cut], ANSWER[cut:]],
    )
    final_text(bridge, key_for(page))
    posts = [post.body for post in bridge.posts("/v1/message")]
    assert posts and all(body["generating"] is False for body in posts)
    assert status(extension_browser, tab)["heldWritten"] is True


@pytest.mark.parametrize("how", ["click", "enter"])
def test_a_send_the_pages_own_script_makes_does_not_make_the_next_answer_a_reply(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str, how: str
) -> None:
    """Issue 35, item 7: after a synthetic click on the send button (or Enter dispatched by the
    page's script), an old answer drawn whole ran unasked, as if it were the reply to the
    person. Only the person's own acts (isTrusted) count."""
    page = open_chat(extension_browser, mock_sites, "chatgpt.com", conversation)
    page.click(EDITOR)
    page.keyboard.type("Please read the plan and list the folder for me, then stop there.")
    page.evaluate(
        """how => { const box = document.querySelector('#prompt-textarea');
             const target = box.querySelector('[contenteditable]') || box;
             if (how === 'click') document.querySelector('#send').click();
             else target.dispatchEvent(new KeyboardEvent('keydown',
               {key: 'Enter', code: 'Enter', keyCode: 13, bubbles: true, cancelable: true})); }""",
        how,
    )
    page.wait_for_function("() => mockChat.sent.length > 0")
    page.evaluate("([text]) => mockChat.show(text)", [ANSWER])  # whole, no stop button
    final_text(bridge, key_for(page))
    posts = [post.body for post in bridge.posts("/v1/message")]
    assert posts and all(body["generating"] is False for body in posts)


def test_results_in_the_input_box_come_back_after_a_reload_drops_the_draft(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Item 4: results waiting in the input box vanished, unsaid, when a reload dropped the
    page's draft (Operator had them as delivered: they were not filled again)."""
    page, key = answered(extension_browser, mock_sites, bridge, "claude.ai", conversation)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    assert input_value(page) == COPY_TEXT
    page.reload()
    page.wait_for_function("() => window.mockChat !== undefined")
    wait_panel(page, "restored")
    assert input_value(page) == COPY_TEXT
    assert "back in the input box" in panel_text(page, ".panel")
    # Sent, they are gone for good: another reload brings nothing back.
    page.click("#send")
    eventually(lambda: input_value(page) == "")
    eventually(lambda: extension_browser.storage().get("inBox") == {})
    page.reload()
    page.wait_for_function("() => window.mockChat !== undefined")
    tab = extension_browser.tab_id(conversation)
    eventually(lambda: status(extension_browser, tab)["restoreChecked"], timeout=10)
    assert input_value(page) == "" and panel_state(page) != "restored"


def test_operators_unsent_results_touched_by_the_person_are_still_operators(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Item 9: once the person touched Operator's unsent results in the box, they counted as the
    person's text, and went to the chat again with the next results."""
    page, key = answered(extension_browser, mock_sites, bridge, "chatgpt.com", conversation)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ready")
    page.click(EDITOR)
    page.keyboard.press("Control+End")
    page.keyboard.press("Backspace")  # a touch: the last character goes
    newer = COPY_TEXT.replace("id: r1", "id: r3").replace("id: r2", "id: r4")
    stream(page, ANSWER.replace("id: r1", "id: r3").replace("id: r2", "id: r4"))
    second = key_for(page, 1)
    final_text(bridge, second)
    bridge.make_ready(second, newer, 2)
    wait_panel(page, "ready")
    assert input_value(page) == newer  # in their place, without asking
    # Text of the person's own beside them is theirs: asked about, and kept without them.
    page.click(EDITOR)
    page.keyboard.press("Control+End")
    paste(page, "\n\nAlso check the tests please.")
    newest = COPY_TEXT.replace("id: r1", "id: r5").replace("id: r2", "id: r6")
    stream(page, ANSWER.replace("id: r1", "id: r5").replace("id: r2", "id: r6"))
    third = key_for(page, 2)
    final_text(bridge, third)
    bridge.make_ready(third, newest, 2)
    wait_panel(page, "ask")
    click_panel(page, "append")
    wait_panel(page, "ready")
    held = input_value(page)
    assert held.startswith("Also check the tests please.") and held.endswith(newest)
    assert "id: r3" not in held and "id: r1" not in held


def test_a_pages_script_cannot_click_the_panel_for_the_person(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str
) -> None:
    """Item 14 of issue 26: a page's script clicked "Point at it" in the panel's open shadow root,
    turning the person's next click into a kept selector. Issue 35: the root is closed now; the
    page finds none, and its own clicks at the panel's place do nothing."""
    page = open_chat(
        extension_browser, mock_sites, "chatgpt.com", conversation + "?break=assistant"
    )
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    wait_panel(page, "repair-assistant", timeout=15)
    assert page.evaluate("() => document.getElementById('operator-bridge-ui').shadowRoot") is None
    for button in ("point", "hide"):
        x, y = panel_eval(page, f"button[data-action='{button}']", CENTRE)
        after = page.evaluate(
            """([x, y]) => { const host = document.getElementById('operator-bridge-ui');
                 host.click();
                 document.elementFromPoint(x, y).dispatchEvent(new MouseEvent('click',
                   {bubbles: true, composed: true, clientX: x, clientY: y}));
                 return host.dataset.state; }""",
            [x, y],
        )
        assert after == "repair-assistant", button
    page.click("body")  # the person's next click
    assert panel_state(page) == "repair-assistant"
    assert extension_browser.storage().get("selectorTrials", {}) == {}


# What a page does to put the panel's button under the person's click unseen, and how it is undone.
FADING = {
    "the root element faded": (
        "document.documentElement.style.opacity = '0.02'",
        "document.documentElement.style.opacity = ''",
    ),
    "the root element moved": (
        "document.documentElement.style.transform = 'translate(-40px, 30px)'",
        "document.documentElement.style.transform = ''",
    ),
    "the root element filtered": (
        "document.documentElement.style.filter = 'opacity(0.02)'",
        "document.documentElement.style.filter = ''",
    ),
    # Above everything (the browser's top layer), and letting clicks through to what is under it.
    "covered by the page": (
        "const cover = Object.assign(document.createElement('div'), {id: 'cover', popover:"
        " 'manual', style: 'position: fixed; inset: 0; width: auto; height: auto; margin: 0;"
        " border: 0; background: #fff; pointer-events: none'});"
        " document.body.appendChild(cover); cover.showPopover()",
        "document.getElementById('cover').remove()",
    ),
}


@pytest.mark.parametrize("attack", list(FADING))
def test_the_page_cannot_fade_move_or_cover_the_panel_under_the_persons_click(
    extension_browser: Any, mock_sites: Any, bridge: BridgeDouble, conversation: str, attack: str
) -> None:
    """Issue 35, item 7: the page restyled the panel (through its open shadow root) and faded it
    over its own button, so the person's click meant for the page landed on the panel. Its rules
    and its own changes to the panel's host do not hold; and a click on a panel the page faded,
    moved or covered (the root element it sits in) does nothing, until the panel shows again."""
    page = open_chat(
        extension_browser, mock_sites, "chatgpt.com", conversation + "?break=assistant"
    )
    stream(page, ANSWER)
    page.wait_for_function("() => !mockChat.generating")
    wait_panel(page, "repair-assistant", timeout=15)
    # Rules of the page's and its script's changes to the host are undone at once.
    page.evaluate(
        """() => { const style = document.createElement('style');
             style.textContent = '#operator-bridge-ui { opacity: 0.02 !important;'
               + ' transform: translateX(300px) !important; }';
             document.head.appendChild(style);
             const host = document.getElementById('operator-bridge-ui');
             host.style.opacity = '0.02'; host.className = 'faded'; }"""
    )
    eventually(
        lambda: page.evaluate(
            """() => { const host = document.getElementById('operator-bridge-ui');
                 const style = getComputedStyle(host);
                 return style.opacity === '1' && style.transform === 'none'; }"""
        )
    )
    fade, undo = FADING[attack]
    page.evaluate(f"() => {{ {fade}; }}")
    click_panel(page, "hide")
    time.sleep(0.3)
    assert panel_state(page) == "repair-assistant", attack
    page.evaluate(f"() => {{ {undo}; }}")
    click_panel(page, "hide")  # shown as it is again: the person's click counts
    eventually(lambda: panel_state(page) == "")
