"""What reaches the person's terminal: ids, summaries, file contents and names come from the
model and from files, so control characters in them (ESC, BEL, C1 CSI) must never be drawn raw,
and notification text must never be read as markup (an action link the person could click)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from operator_app.tui.display import printable
from tests.support.blocks import block
from tests.support.pilot import SIZE, notes, wait_for
from tests.support.tui_app import finished, make_app

CONTROLS = ("\x1b", "\x07", "\x9b", "\x00")


def test_printable_escapes_terminal_controls_and_keeps_tabs_and_newlines() -> None:
    assert printable("a\x1b[2Jb\tc\nd\x9be\x07") == "a\\x1b[2Jb\tc\nd\\x9be\\x07"
    assert printable("plain text") == "plain text"


@pytest.mark.asyncio
async def test_no_control_character_from_a_file_or_an_id_reaches_the_screen(
    workspace: Path, state: Path
) -> None:
    # An OSC 52 sequence would set the clipboard; CSI 2J clears the screen.
    (workspace / "evil.txt").write_text("hello \x1b[2J\x1b]52;c;ZXZpbA==\x07 and \x9b31m bye\n")
    message = block("r1\x1b[31m", "fs.read", path="evil.txt") + block(
        "r2", "fs.read", path="evil.txt"
    )
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 2)
        for row in range(2):
            app.table.move_cursor(row=row)
            await pilot.pause(0.2)
            screen = app.export_screenshot()
            assert not [c for c in CONTROLS if c in screen], f"row {row}"
        assert "hello" in app.details.plain  # the file's text is shown, its escapes are not obeyed
        assert "\\x1b" in app.table.cell_text(0, "id")  # the refused id is shown escaped


@pytest.mark.asyncio
async def test_notifications_are_plain_text(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.notify("summary quoting [@click=app.quit]this[/] and \x1b[2J")
        await pilot.pause(0.2)
        assert notes(app)[-1] == "summary quoting [@click=app.quit]this[/] and \\x1b[2J"
        assert app.is_running


@pytest.mark.asyncio
async def test_brackets_from_the_model_are_drawn_as_text_not_read_as_markup(
    workspace: Path, state: Path
) -> None:
    """A cell given as a string is Rich markup to DataTable: a path like "[/b]x.txt" in a summary
    stopped the app (MarkupError), and "[b]...[/b]" or "[@click=...]" changed what was drawn."""
    message = block("m1", "fs.read", path="notes/[/b]x.txt") + block(
        "m2", "fs.read", path="notes/[@click=app.quit]y.txt"
    )
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 2)
        await pilot.pause(0.2)
        assert "notes/[/b]x.txt does not exist" in app.table.cell_text(0, "summary")
        assert "[@click=app.quit]y.txt" in app.table.cell_text(1, "summary")
        assert "[/b]x.txt" in app.export_screenshot().replace("&#160;", " ")


@pytest.mark.asyncio
async def test_bidi_controls_in_a_message_are_escaped_in_the_message_pane(
    workspace: Path, state: Path
) -> None:
    """Issue 35, item 7: U+202E and U+2066 reached the message pane raw, where they reorder what
    the person reads of the line ("bidi<U+202E>gnp.exe" reads as "bidiexe.png")."""
    message = "Run the tests on \u202egnp.exe\u202c and \u2066this\u2069 file.\n" + block(
        "r1", "fs.read", path="README.md"
    )
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: finished(app))
        shown = [line.text for line in app.message_view.lines if line.number is not None]
        assert shown[0] == ("Run the tests on \\u202egnp.exe\\u202c and \\u2066this\\u2069 file.")
        screen = app.export_screenshot()
        assert not [c for c in "\u202e\u202c\u2066\u2069" if c in screen]
