"""String's blocks through the browser bridge, end to end: the real TUI and its bridge, the real
extension in Chromium, the Claude mock page (a real ProseMirror editor). A streamed answer with
ChanFlow blocks runs as each block's close tag arrives, a block still open shows as pending, the
write waits for the terminal, and the responses land in the chat's input box exactly as `c`
copies them; a message mixing both dialects is answered in both forms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from operator_app.tui.screens.consent import ConsentScreen
from tests.support.blocks import block
from tests.support.browser import require_browser
from tests.support.end_to_end import input_value, open_chat, paired_tui_and_browser, until
from tests.support.pilot import press_copy as copied
from tests.support.pilot import rows, wait_for

require_browser()

pytestmark = pytest.mark.asyncio
S = "\U0001d49e"


def chan(topic: str, payload: str) -> str:
    return f"<{S}=string:{topic}>{payload}</{S}>"


async def test_a_string_answer_streams_runs_and_comes_back_in_the_input_box(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    first = "Let me read the plan first.\n\n" + chan("notes", "/open notes/plan.txt") + "\n\n"
    write = chan("notes", "\n/append notes/plan.txt\nGamma\n") + "\n\nThat is all."
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "claude.ai", "/chat/string-e2e")
        await page.evaluate(
            "text => { mockChat.begin(); mockChat.grow(text); }", first + write[:30]
        )
        await wait_for(pilot, lambda: len(rows(app)) == 2 and rows(app)[1][1] == "pending")
        assert rows(app)[0][1] == "ok"  # the read ran while the model was still writing
        assert app.current().pending == (5, f"<{S}=string:notes>", "its close tag")
        await page.evaluate("text => { mockChat.grow(text); mockChat.end(); }", write[30:])
        # Until the dialog takes keys, a y pressed is no answer (on a loaded machine it was sent
        # too early, and the write waited for ever).
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen) and app.screen.ready)
        assert app.screen.plan.action == "/append" and "+Gamma" in app.screen.plan.diff
        await pilot.press("y")
        await wait_for(pilot, lambda: app.current().finished and len(app.current().results) == 2)
        assert (workspace / "notes" / "plan.txt").read_text().endswith("Gamma\n")
        await until(pilot, lambda: page.evaluate("() => mockChat.inputValue() !== ''"))
        box = await input_value(page)
        assert box == await copied(pilot, app)
        assert box.count(f"<{S}=string:file:notes time=") == 2
        assert "Opened notes/plan.txt\n---\nAlpha\nBeta" in box
        assert "\u2713 Appended to: notes/plan.txt" in box and f"\n</{S}>" in box


async def test_a_message_of_both_dialects_is_answered_in_both_forms(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    answer = (
        "Reading in both dialects.\n\n```text\n"
        + block("r1", "fs.stat", path="README.md")
        + "```\n\n"
        + chan("main", "/ls ~/notes")
        + "\n"
    )
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "claude.ai", "/chat/string-mixed")
        # Seen being written (an answer that comes already finished waits for the person's word):
        # its start, with the first block's opening line, reaches Operator before the rest is on
        # the page (a fixed pause was too short on a loaded machine).
        cut = answer.index("version: 1")
        await page.evaluate("text => { mockChat.begin(); mockChat.grow(text); }", answer[:cut])
        await wait_for(pilot, lambda: app.current() is not None)
        await page.evaluate("text => { mockChat.grow(text); mockChat.end(); }", answer[cut:])
        await wait_for(pilot, lambda: app.current() is not None and app.current().finished)
        await until(pilot, lambda: page.evaluate("() => mockChat.inputValue() !== ''"))
        box = await input_value(page)
        assert box.startswith("OPERATOR_RESULT\nid: r1\nok: true\n")
        assert f"<{S}=string:file:main time=" in box and "Listing ~/notes/\n---\nplan.txt (" in box
        assert [status for _, status in rows(app)] == ["ok", "ok"]
