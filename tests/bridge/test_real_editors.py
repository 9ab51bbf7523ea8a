"""The results go into the real editors of the chat sites (ProseMirror on ChatGPT's mock, Quill on
Gemini's, Lexical on a local chat, a React textarea on DeepSeek's): every line and blank line
lands exactly as `c` would copy it, for 100 results and for a 2,000-line answer, and the
person's own text in the box is never lost."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import require_browser
from tests.support.chat_page import (
    SITES,
    answered,
    click_panel,
    input_value,
    results_over_the_persons_text,
    sent,
    wait_panel,
)
from tests.support.contract_double import BridgeDouble

require_browser()

EDITORS = {  # site -> (the editor's element, what marks it as the real library's)
    "chatgpt": (
        "#prompt-textarea",
        "() => !!document.querySelector('#prompt-textarea').pmViewDesc",
    ),
    "gemini": (
        ".ql-editor",
        "() => document.querySelector('#editor').classList.contains('ql-container')",
    ),
    "generic": ("#editor", "() => !!document.querySelector('#editor').__lexicalEditor"),
    "deepseek": ("#chat-input", "() => true"),
}


def hundred_results() -> str:
    blocks = []
    for n in range(100):
        blocks.append(
            f"OPERATOR_RESULT\nid: s{n:03d}\nok: true\naction: fs.readSlice\npath: notes/plan.txt\n"
            f"details:\n    1: # Plan\n    2:   - indented item {n} \n\n\ttab-led line\n"
            "END_OPERATOR_RESULT"
        )
    return "\n\n".join(blocks)


def two_thousand_lines() -> str:
    lines = ["OPERATOR_RESULT", "id: big", "ok: true", "details:"]
    for n in range(1996):
        lines.append(
            ""
            if n % 7 == 3
            else ("    " * (n % 4)) + f"line {n}: value = {n * 3}" + (" " if n % 11 == 0 else "")
        )
    lines[-1] = "END_OPERATOR_RESULT"
    return "\n".join(lines)


@pytest.mark.parametrize("site", sorted(EDITORS))
@pytest.mark.parametrize(
    "text", [hundred_results(), two_thousand_lines()], ids=["100-results", "2000-lines"]
)
def test_every_line_and_blank_line_lands_in_the_real_editor(
    site: str,
    text: str,
    extension_browser: Any,
    mock_sites: Any,
    bridge: BridgeDouble,
    conversation: str,
) -> None:
    assert text.count("\n") >= 1000
    page, key = answered(extension_browser, mock_sites, bridge, SITES[site], conversation)
    assert page.evaluate(EDITORS[site][1])
    bridge.make_ready(key, text, 100)
    wait_panel(page, "ready", timeout=20)
    assert input_value(page) == text  # the editor's own state: what its send sends
    page.click("#send")
    assert sent(page) == [text]


@pytest.mark.parametrize("site", sorted(EDITORS))
@pytest.mark.parametrize("choice", ["append", "later"])
def test_the_persons_own_text_is_never_lost(
    site: str,
    choice: str,
    extension_browser: Any,
    mock_sites: Any,
    bridge: BridgeDouble,
    conversation: str,
) -> None:
    page, key = answered(extension_browser, mock_sites, bridge, SITES[site], conversation)
    own = "my own question"
    results_over_the_persons_text(page, bridge, key, EDITORS[site][0], own)
    assert input_value(page) == own
    click_panel(page, choice)
    wait_panel(page, "ready" if choice == "append" else "later")
    copy = bridge.pages[key].ready["copy_text"]
    assert input_value(page) == (own + "\n\n" + copy if choice == "append" else own)


@pytest.mark.parametrize("site", sorted(EDITORS))
def test_a_long_text_after_the_persons_own_keeps_both_line_for_line(
    site: str,
    extension_browser: Any,
    mock_sites: Any,
    bridge: BridgeDouble,
    conversation: str,
) -> None:
    # 100 results are a long text: ProseMirror and Quill take it as their DOM at once, with the
    # person's text written back before it (content/editor.js).
    page, key = answered(extension_browser, mock_sites, bridge, SITES[site], conversation)
    own = "my own question,  with two spaces"
    page.click(EDITORS[site][0])
    page.keyboard.type(own)
    text = hundred_results()
    bridge.make_ready(key, text, 100)
    wait_panel(page, "ask")
    click_panel(page, "append")
    wait_panel(page, "ready", timeout=20)
    assert input_value(page) == own + "\n\n" + text
    page.click("#send")
    assert sent(page) == [own + "\n\n" + text]
