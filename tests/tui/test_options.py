"""Options kept across restarts: auto-copy (the palette turns it on and off; a message's result
blocks are copied as soon as its last result is in, and the notification says so) and the
Textual theme chosen in the palette. And what a copy of a message still open says."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from operator_app import settings
from tests.support.blocks import block
from tests.support.pilot import SIZE, asks, notes, wait_for
from tests.support.tui_app import READS, WRITE, exec_output, finished, make_app, results_of

pytestmark = pytest.mark.asyncio


async def run_from_palette(pilot, app, words: str, *, closes: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Open the command palette, type `words`, run the first match."""
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*words)
    await pilot.pause(0.5)  # the palette searches its providers
    await pilot.press("enter")
    if closes:
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))


async def test_auto_copy_is_turned_on_in_the_palette_and_copies_each_finished_message(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    settings.trust_terminal_copy()  # no fallback view over the screen after each copy
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert not settings.auto_copy()
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        await pilot.pause(0.2)
        assert app.clipboard == ""  # off by default: c copies
        await run_from_palette(pilot, app, "auto-copy")
        assert settings.auto_copy() and "Auto-copy is on" in notes(app)[-1]
        message = WRITE + block("r9", "fs.readSlice", path="notes/plan.txt")
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.clipboard))  # as soon as its last result is in
        assert app.clipboard == exec_output(message, tmp_path)
        await wait_for(
            pilot,
            lambda: any(
                text.startswith("Copied automatically 2 result blocks of message 2")
                for text in notes(app)
            ),
        )
        assert "Copied automatically 2 result blocks of message 2" in app.status_line.text
    again = make_app(workspace, state)  # remembered
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Session resumed" in again.status_line.text)
        assert again.clipboard == ""  # restoring the session copies nothing
        again.post_message(events.Paste(block("s1", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: "id: s1" in again.clipboard)
        await run_from_palette(pilot, again, "auto-copy")
        assert not settings.auto_copy() and "Auto-copy is off" in notes(again)[-1]
        again._clipboard = ""
        again.post_message(events.Paste(block("s2", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: again.view_number == 4 and finished(again))
        await pilot.pause(0.3)
        assert again.clipboard == ""


async def test_auto_copy_copies_the_answers_to_a_message_of_repeats(
    workspace: Path, state: Path
) -> None:
    settings.trust_terminal_copy()
    settings.set_auto_copy(True)
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: "id: r1" in app.clipboard)
        app._clipboard = ""
        app.post_message(events.Paste(READS))  # nothing runs again, but the model is answered
        await wait_for(pilot, lambda: "already ran in message 1" in app.clipboard)
        assert app.view_number == 2 and len(results_of(app)) == 2


async def test_copying_a_message_still_open_says_so_once_without_doubled_brackets(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    settings.trust_terminal_copy()
    stream = tmp_path / "stream.txt"
    stream.write_text(block("f1", "fs.stat", path="README.md") + "More to come.\n")
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.current() is not None and len(app.current().results) == 1)
        await pilot.press("c")
        await wait_for(pilot, lambda: any(text.startswith("Copied") for text in notes(app)))
        said = next(text for text in notes(app) if text.startswith("Copied"))
        assert said.startswith(
            f"Copied 1 result block of message 1 so far ({len(app.clipboard):,} characters; "
            "the message is still open) to "
        )
        assert ") (" not in said


async def test_the_theme_chosen_in_the_palette_is_remembered(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert app.theme != "nord"
        await run_from_palette(
            pilot, app, "theme", closes=False
        )  # "Theme" opens the list of themes
        await pilot.pause(0.5)
        await pilot.press(*"nord")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "nord" and len(app.screen_stack) == 1)
    assert settings.theme() == "nord"
    again = make_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert again.theme == "nord"


async def test_a_remembered_theme_that_no_longer_exists_is_ignored(
    workspace: Path, state: Path
) -> None:
    settings.remember_theme("no-such-theme")
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert app.theme == "textual-dark" and len(app.screen_stack) == 1
