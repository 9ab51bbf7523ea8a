"""End to end: the real TUI (Pilot) with its real bridge, the real extension in Chromium
(Playwright's async API, in the TUI's own event loop), and a mock chat page that streams the
model's answer. Pairing goes through the extension's popup; what Operator runs, what the terminal
asks, and what lands in the chat's input box are checked on both sides."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from operator_app.tui.screens.consent import ConsentScreen
from tests.support.blocks import b64, block
from tests.support.bridge_http import bridged_app
from tests.support.browser import AsyncExtensionBrowser, require_browser
from tests.support.end_to_end import (
    input_value,
    open_chat,
    pair_through_popup,
    paired_tui_and_browser,
    panel_says,
    person_asks,
    until,
)
from tests.support.panel import panel_text_async as panel_text
from tests.support.pilot import SIZE, notes, rows, wait_for
from tests.support.pilot import press_copy as copied

require_browser()

pytestmark = pytest.mark.asyncio

READ = block("r1", "fs.read", path="notes/plan.txt")
LIST = block("r2", "fs.list", path=".")
WRITE = block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n"))
CHECK = block("v1", "fs.readSlice", path="notes/plan.txt")


async def test_paired_through_the_popup_reads_show_ok_while_the_answer_is_still_streaming(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    app = bridged_app(workspace, state)
    async with (
        app.run_test(size=SIZE) as pilot,
        AsyncExtensionBrowser(tmp_path / "profile") as browser,
    ):
        await pair_through_popup(pilot, app, browser)
        # No chat tab yet: the header names the browser, and what to do.
        await wait_for(pilot, lambda: str(app.bridge_badge.render()).startswith("bridge Chromium "))
        assert str(app.bridge_badge.render()).endswith(": open a chat tab")
        page = await open_chat(browser, mock_sites, "chatgpt.com", "/c/e2e-stream")
        await page.evaluate(
            "text => { mockChat.begin(); mockChat.grow(text); }",
            "Reading first.\n\n```text\n" + READ + "```\n\n" + LIST[:30],
        )
        await wait_for(
            pilot,
            lambda: (
                [status for _, status in rows(app)] == ["ok", "pending"] and rows(app)[0][0] == "r1"
            ),
        )
        assert (
            await page.evaluate("() => mockChat.generating") is True
        )  # the model is still writing
        assert not app.current().finished
        assert "ChatGPT" in str(app.bridge_badge.render())
        await page.evaluate(
            "text => { mockChat.grow(text); mockChat.end(); }", LIST[30:] + "\nThat is all."
        )
        await wait_for(
            pilot, lambda: rows(app) == [("r1", "ok"), ("r2", "ok")] and app.current().finished
        )
        assert app.current().source == "bridge ChatGPT"
        await until(pilot, lambda: page.evaluate("() => mockChat.inputValue() !== ''"))
        assert await input_value(page) == await copied(pilot, app)


async def test_a_write_asks_in_the_terminal_and_after_y_the_input_box_holds_what_c_copies(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "claude.ai", "/chat/e2e-write")
        await person_asks(page)
        await page.evaluate(
            "text => mockChat.answer(text, {chunk: 50, every: 30})",
            "I'll write the plan.\n\n" + WRITE + "\n" + CHECK,
        )
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen) and app.screen.ready)
        # The page says Operator waits for the terminal, and nothing is in the input box meanwhile.
        await panel_says(pilot, page, "waiting")
        assert "fs.write notes/plan.txt" in await panel_text(page, ".panel")
        assert await input_value(page) == ""
        assert (workspace / "notes" / "plan.txt").read_text() != "Alpha\nBeta\nGamma\n"
        await pilot.press("y")
        await panel_says(pilot, page, "ready")
        assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
        filled = await input_value(page)
        assert filled == await copied(pilot, app)
        assert filled.split("\n").count("OPERATOR_RESULT") == 2
        await wait_for(
            pilot, lambda: any("2 results are in the chat's input box" in n for n in notes(app))
        )
        await asyncio.sleep(2.5)  # auto-send is off by default: the 2 s pass and nothing is sent
        asked = ["Please go on with the plan."]  # what the person sent before the answer
        assert await page.evaluate("() => mockChat.sent") == asked
        await page.click("#send")
        assert await page.evaluate("() => mockChat.sent") == [*asked, filled]


async def test_auto_send_sends_once_only_after_the_generating_indicator_is_gone(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(
        workspace, state, tmp_path, autoSend=True, autoSendDelayMs=1000
    ) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "gemini.google.com", "/app/e2e-auto")
        await page.evaluate(
            "text => { mockChat.begin(); mockChat.grow(text); }", READ + LIST + "\nBoth are read."
        )
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok"), ("r2", "ok")])
        await asyncio.sleep(2.5)  # every result is in, but the model has not stopped
        assert await page.evaluate("() => mockChat.sent") == []
        assert await input_value(page) == ""
        stopped_at = time.monotonic()
        await page.evaluate("() => mockChat.end()")
        sent = await until(
            pilot, lambda: page.evaluate("() => mockChat.sent.length ? mockChat.sent : null")
        )
        assert time.monotonic() - stopped_at >= 1.0  # the delay, counted after the indicator went
        assert sent == [await copied(pilot, app)]
        await wait_for(
            pilot, lambda: any("the browser sent 2 results to the chat" in n for n in notes(app))
        )
        await asyncio.sleep(2.0)
        assert len(await page.evaluate("() => mockChat.sent")) == 1  # once per page message


async def test_a_reload_or_a_second_tab_runs_nothing_twice_and_fills_nothing_again(
    workspace: Path, state: Path, tmp_path: Path, mock_sites: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.bridge import service

    finished_texts: list[str] = []  # what the bridge was told of finished answers
    update = service.Bridge.update

    def recording(self: Any, key: Any, text: str, generating: bool, tab: Any, **kw: Any) -> Any:
        if not generating:
            finished_texts.append(text)
        return update(self, key, text, generating, tab, **kw)

    monkeypatch.setattr(service.Bridge, "update", recording)
    async with paired_tui_and_browser(workspace, state, tmp_path) as (app, pilot, browser):
        told: list[
            str
        ] = []  # every notification (the toasts' own record forgets them after a while)
        notify = app.notify

        def recording_notify(message: Any, *args: Any, **kwargs: Any) -> None:
            told.append(str(message))
            notify(message, *args, **kwargs)

        app.notify = recording_notify
        page = await open_chat(browser, mock_sites, "chat.deepseek.com", "/a/chat/s/e2e-reload")
        await person_asks(page)
        await page.evaluate("text => mockChat.answer(text, {chunk: 40, every: 20})", READ + LIST)
        await until(pilot, lambda: page.evaluate("() => mockChat.inputValue() !== ''"))
        await wait_for(pilot, lambda: any("results are in the chat's input box" in n for n in told))
        first = app.current().number
        results_before = app.runner.session.results_of(first)
        await page.click("#send")
        await page.reload()
        await page.wait_for_function("() => window.mockChat !== undefined")
        second_tab = await open_chat(
            browser, mock_sites, "chat.deepseek.com", "/a/chat/s/e2e-reload"
        )
        sent_before = len(finished_texts)
        for shown in (page, second_tab):  # the reloaded page, and a second tab on the same chat
            await shown.evaluate("text => mockChat.show(text)", READ + LIST)
        await wait_for(
            pilot, lambda: len(finished_texts) >= sent_before + 2
        )  # both told Operator what they show
        await asyncio.sleep(1.0)  # and polled for the results
        assert finished_texts[-1] == finished_texts[-2] == finished_texts[0]
        assert sorted(app.states) == [first]
        assert app.runner.session.results_of(first) == results_before
        assert await input_value(page) == "" and await input_value(second_tab) == ""
        # Nothing was put into the input box again, so Operator heard of no second delivery.
        assert sum("results are in the chat's input box" in n for n in told) == 1


async def test_without_a_workspace_the_page_says_so_and_runs_nothing(
    tmp_path: Path, state: Path, mock_sites: Any
) -> None:
    async with paired_tui_and_browser(None, state, tmp_path) as (app, pilot, browser):
        page = await open_chat(browser, mock_sites, "grok.com", "/c/e2e-nows")
        await person_asks(page)
        await page.evaluate("text => mockChat.answer(text, {chunk: 60, every: 20})", READ)
        await panel_says(pilot, page, "not-connected")
        text = await panel_text(page, ".panel")
        assert "no workspace open" in text
        assert app.states == {}
