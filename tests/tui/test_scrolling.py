"""Scrolling that keeps the person oriented: a diff's +/- column and the message's line numbers
stay in place when the text scrolls sideways, and another message starts at its top left."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from operator_app.tui.widgets.lines_view import LinesView
from tests.support.blocks import block
from tests.support.pilot import SIZE, asks, wait_for
from tests.support.tui_app import READS, app_pasted, finished, make_app

pytestmark = pytest.mark.asyncio


def drawn(view) -> list[str]:  # type: ignore[no-untyped-def]
    """The lines a view draws now, as text."""
    return [
        "".join(segment.text for segment in view.render_line(y)) for y in range(view.size.height)
    ]


def scrolled(view, x: int, y: int) -> bool:  # type: ignore[no-untyped-def]
    """Scroll `view` to (x, y) and say whether it is there: Textual refuses a scroll until the view
    has been laid out with its scrollbars, so a test asks again until it takes."""
    view.scroll_to(x=x, y=y, animate=False)
    return view.scroll_offset == (x, y)


async def test_the_diffs_plus_minus_column_stays_when_it_scrolls_sideways(
    workspace: Path, state: Path
) -> None:
    (workspace / "wide.txt").write_text("".join(f"{n:03d} " for n in range(80)) + "\n")
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(
            events.Paste(
                block(
                    "w1",
                    "fs.write",
                    path="wide.txt",
                    content="".join(f"{n:03d}x" for n in range(80)),
                )
            )
        )
        await wait_for(pilot, lambda: asks(app))
        diff = app.screen.query_one("#consent-diff", LinesView)
        await wait_for(pilot, lambda: scrolled(diff, 40, 0))
        lines = drawn(diff)
        assert any(
            line.startswith("-010 011 012") for line in lines
        )  # the text moved, its "-" did not
        assert any(line.startswith("+010x011x012x") for line in lines)
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_line_numbers_stay_and_another_message_starts_at_its_left(
    workspace: Path, state: Path
) -> None:
    wide = "A line of prose far wider than the message pane, " * 8 + "\n"
    async with app_pasted(workspace, state, wide + READS) as (app, pilot):
        view = app.message_view
        await wait_for(pilot, lambda: scrolled(view, 60, 0))
        first = drawn(view)[0]
        assert first.startswith("    1 ") and not first[6:].startswith(
            "A line of prose"
        )  # number kept, text moved
        app.post_message(events.Paste(block("r3", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        await wait_for(pilot, lambda: view.scroll_x == 0)
        view.scroll_to(x=5, animate=False)
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: app.view_number == 1 and view.scroll_offset == (0, 0))
        assert drawn(view)[0].startswith("    1 A line of prose")


@pytest.mark.parametrize("keys", [("home",), ("pageup", "pageup"), ("up", "up", "up")])
async def test_the_message_pane_goes_back_to_line_1_from_the_command_table(
    workspace: Path, state: Path, keys: tuple[str, ...]
) -> None:
    """The table has the focus; its first row's block starts far down the message. Home, or Up
    and PageUp once the first row is reached, show the message from its first line."""
    prose = "".join(f"prose line {n}\n" for n in range(1, 81))
    async with app_pasted(workspace, state, prose + READS + prose) as (app, pilot):
        view = app.message_view
        await wait_for(pilot, lambda: view.scroll_y > 40 and app.focused is app.table)
        for key in keys:
            await pilot.press(key)
        await wait_for(pilot, lambda: app.table.cursor_row == 0 and view.scroll_y == 0)
        await pilot.pause(0.2)  # nothing scrolls it back to the block afterwards
        assert view.scroll_y == 0 and drawn(view)[0].startswith("    1 prose line 1")
        await pilot.press("down")
        await wait_for(pilot, lambda: view.scroll_y > 40)  # the next row's block, as before
