"""Pairing as the person sees it in the TUI (issue 26): a code voided by wrong tries is said so at
once and `n` gives a new one, a second browser is paired beside the first when the person
presses k, a pairing forgotten from the command line shows a new code, and what the terminal
says of results put back and of the page's health reads right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from operator_app.bridge import service
from operator_app.tui.screens.pairing import PairingScreen
from tests.support.blocks import block
from tests.support.bridge_http import Extension, bridged_app, paired_extension
from tests.support.cases import run_app
from tests.support.pilot import SIZE, notes, wait_for

pytestmark = pytest.mark.asyncio


def badge(app: Any) -> str:
    return str(app.bridge_badge.render())


def shown(app: Any, widget: str) -> str:
    from textual.css.query import NoMatches

    try:
        return str(app.screen.query_one(widget).render())
    except NoMatches:  # the dialog is not mounted yet
        return ""


async def test_a_code_voided_by_wrong_tries_is_said_so_at_once_and_n_gives_a_new_one(
    workspace: Path, state: Path
) -> None:
    """Item 16: after 5 wrong tries the TUI still showed the voided code as valid."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        code = app.bridge.pairing_code
        assert code in badge(app)
        extension = Extension(app.bridge.port)
        for _ in range(5):
            reply = await extension.pair("000000" if code != "000000" else "111111")
        assert "last try" in reply.json()["error"]["message"]
        await wait_for(pilot, lambda: "no longer works" in shown(app, "#pairing-code"))
        assert "5 wrong codes came from the browser" in shown(app, "#pairing-note")
        assert code not in badge(app) and badge(app) == "bridge waiting for a browser"
        await wait_for(
            pilot, lambda: any("The pairing code no longer works" in n for n in notes(app))
        )
        await pilot.press("n")
        fresh = app.bridge.pairing_code
        assert fresh is not None and fresh != code
        await wait_for(pilot, lambda: f"{fresh[:3]} {fresh[3:]}" in shown(app, "#pairing-code"))
        assert "no longer works" not in shown(app, "#pairing-code")
        assert (await extension.pair(fresh)).status == 200
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)


async def test_k_pairs_a_second_browser_beside_the_first(workspace: Path, state: Path) -> None:
    """Item 12: a second browser can pair while the first stays paired, when the person says
    so in the TUI."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        first = await paired_extension(pilot, app)
        app.bridge_control.pair_browser()  # the palette's "Pair a browser": in place of it...
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        await wait_for(pilot, lambda: "in place of Chromium (test)" in shown(app, "#pairing-note"))
        code = app.bridge.pairing_code
        await pilot.press("k")  # ...unless the person keeps it paired
        await wait_for(pilot, lambda: "stays paired" in shown(app, "#pairing-note"))
        assert app.bridge.pairing_code == code  # the same code, now keeping the first browser
        second = Extension(app.bridge.port, origin="moz-extension://a-firefox-temporary-add-on")
        assert (await second.pair(code, browser="Firefox 153")).status == 200
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert (await first.post("/v1/hello", {})).status == 200
        assert (await second.post("/v1/hello", {})).status == 200
        assert app.bridge.status().paired == ("Chromium (test)", "Firefox 153")
        # The palette offers it directly too, once a browser is paired.
        commands = [command.title for command in app.get_system_commands(app.screen)]
        assert "Pair another browser" in commands


async def test_k_on_the_main_screen_offers_a_code_that_keeps_the_paired_browser(
    workspace: Path, state: Path
) -> None:
    """Item 12 from the main screen: k (keys.py's table) shows a code that pairs a browser
    beside the paired one; without a paired browser it says why it does nothing."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("k")  # nothing paired yet: refused, with the reason
        await wait_for(pilot, lambda: any("k pairs a browser beside" in n for n in notes(app)))
        assert len(app.screen_stack) == 1
        first = await paired_extension(pilot, app)
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        await wait_for(pilot, lambda: "stays paired" in shown(app, "#pairing-note"))
        code = app.bridge.pairing_code
        assert code is not None and app.bridge.status().keeps_paired
        second = Extension(app.bridge.port, origin="chrome-extension://another-chromium-profile")
        assert (await second.pair(code, browser="Chromium 2")).status == 200
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert (await first.post("/v1/hello", {})).status == 200
        assert app.bridge.status().paired == ("Chromium (test)", "Chromium 2")


async def test_a_pairing_forgotten_from_the_command_line_shows_a_new_code(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 3: the running TUI hears of `operator-app bridge --forget` and offers a new code."""
    monkeypatch.setattr(service, "PAIRINGS_LOOKED_AT_S", 0.1)
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        assert run_app("bridge", "--forget").returncode == 0
        assert (await extension.post("/v1/hello", {})).code == "BRIDGE_UNAUTHORIZED"
        await wait_for(pilot, lambda: app.bridge.pairing_code is not None)
        code = app.bridge.pairing_code
        await wait_for(pilot, lambda: code in badge(app))
        await wait_for(
            pilot, lambda: any("was forgotten" in n and code[:3] in n for n in notes(app))
        )


async def test_one_result_in_the_input_box_is_said_in_the_singular(
    workspace: Path, state: Path
) -> None:
    """Item 8: "1 result are in the chat's input box"."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(block("r1", "fs.read", path="notes/plan.txt"))
        result = await extension.settled()
        assert result["count"] == 1
        await extension.post(
            "/v1/delivered",
            {"conversation": "chat/1", "position": 0, "message": result["message"]},
        )
        said = f"Message {result['message']}: 1 result is in the chat's input box; send it there."
        await wait_for(pilot, lambda: said in notes(app))


async def test_the_health_line_goes_once_the_page_reads_again_and_names_the_repair(
    workspace: Path, state: Path
) -> None:
    """Item 8: the status line said the page's problem and kept saying it after the repair;
    and it says when a selector the person taught is what finds the answers."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        problem = 'assistant messages: [data-message-author-role="assistant"] found nothing'
        tab = {"site": "ChatGPT", "title": "Plan", "url": "https://chatgpt.com/c/1"}
        await extension.post("/v1/hello", {"tab": {**tab, "adapter_ok": False, "problem": problem}})
        await wait_for(pilot, lambda: problem in app.status_line.text)
        repaired = "answers found by your selector div.turn, taught on this page"
        await extension.post(
            "/v1/hello", {"tab": {**tab, "adapter_ok": True, "repaired": repaired}}
        )
        await wait_for(pilot, lambda: "reads ChatGPT again" in app.status_line.text)
        assert problem not in app.status_line.text and repaired in app.status_line.text
