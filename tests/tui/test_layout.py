"""What fits where: an 80x24 terminal still shows every key in the footer, each command's status,
and the errors in the message without sideways scrolling; a column does not stay wide after the
message that needed it; the table does not repeat the error code its status shows; a folder's
deletion is described by its files, not by "+0 -0"."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets._footer import FooterKey

from operator_app.tui.keys import MAIN_KEYS
from operator_app.tui.screens.consent import describe
from operator_app.tui.widgets.command_table import COLUMNS
from operator_app.tui.widgets.message_view import NOTE_ERROR
from tui_helpers import READS, asks, b64, block, cell, finished, make_app, plain, wait_for

pytestmark = pytest.mark.asyncio
NARROW = (80, 24)
BROKEN = "Here:\n" + block("bad", "fs.reed", path="notes/plan.txt") + block("ok1", "fs.stat", path="README.md")


async def test_the_footer_shows_every_key_on_an_80_column_terminal(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=NARROW) as pilot:
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        await pilot.pause(0.2)
        shown = {key.action for key in app.screen.query(FooterKey) if key.region.right <= NARROW[0]}
        wanted = {key.action for key in MAIN_KEYS if key.action != "end_follow"} | {"quit"}
        assert wanted <= {action.removeprefix("app.") for action in shown}


async def test_the_status_column_is_visible_on_an_80_column_terminal(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=NARROW) as pilot:
        app.post_message(events.Paste(BROKEN))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 2)
        await pilot.pause(0.1)
        columns = list(app.table.columns.values())
        right_edge = sum(column.get_render_width(app.table) for column in columns[: COLUMNS.index("status") + 1])
        assert right_edge <= app.table.scrollable_content_region.width
        assert cell(app, 0, "status") == "failed ERR_UNKNOWN_ACTION"


async def test_an_error_in_the_message_is_wrapped_to_the_view(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=NARROW) as pilot:
        app.post_message(events.Paste(BROKEN))
        await wait_for(pilot, lambda: finished(app))
        await pilot.pause(0.1)
        view = app.message_view
        error = [line.text for line in view.lines if line.kind == NOTE_ERROR]
        assert len(error) > 1  # too long for one line of a 30-column pane
        assert all(len(text) + 6 <= view.size.width for text in error)
        joined = " ".join(text.strip() for text in error)
        assert joined.startswith("^ ERR_UNKNOWN_ACTION: action fs.reed is not defined")
        assert "did you mean fs.read?" in joined
        assert "Invalid OPERATOR_CMD" not in joined  # the code once, not twice
        assert view.virtual_size.width <= view.size.width  # no sideways scrolling needed to read it


async def test_the_table_summary_does_not_repeat_the_status_code(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(BROKEN))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 2)
        await pilot.pause(0.1)
        assert cell(app, 0, "summary").startswith("action fs.reed is not defined")
        app.table.move_cursor(row=0)
        await pilot.pause(0.1)
        # The details keep the whole summary, code included: it is what the model receives.
        assert "Invalid OPERATOR_CMD (ERR_UNKNOWN_ACTION)" in app.details.plain


async def test_a_column_shrinks_back_for_the_next_message(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(block("x1", "fs.write", path="a.txt", content="one\ntwo")))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 1)
        wide = app.table.columns["status"].get_render_width(app.table)
        assert wide >= len("failed ERR_CONTENT_HAS_NEWLINES")
        app.post_message(events.Paste(block("x2", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app) and app.table.row_count == 1)
        await pilot.pause(0.1)
        assert app.table.columns["status"].get_render_width(app.table) < len("failed ERR_CONTENT")


async def test_a_folder_deletion_is_described_by_its_files(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(block("d1", "fs.delete", path="notes")))
        await wait_for(pilot, lambda: asks(app))
        title = plain(describe(app.screen.plan))
        assert "the folder notes/ with 1 file" in title and "+0" not in title and "-0" not in title
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_a_long_diff_is_shown_whole_and_scrolls(workspace: Path, state: Path) -> None:
    from operator_app.tui.widgets.lines_view import LinesView

    (workspace / "long.txt").write_text("".join(f"x {n}\n" for n in range(4000)))
    edits = '{"version": 1, "edits": [{"op": "replaceAll", "find": "x ", "text": "y "}]}'
    app = make_app(workspace, state)
    async with app.run_test(size=(120, 40)) as pilot:
        app.post_message(events.Paste(block("e1", "fs.applyEdits", path="long.txt", edits_b64=b64(edits))))
        await wait_for(pilot, lambda: asks(app))
        diff = app.screen.query_one("#consent-diff", LinesView)
        assert app.focused is diff  # the keys scroll the diff at once
        assert len(diff.lines) == app.screen.plan.diff.count("\n") > 8000  # all of it, not the first 5,000 lines
        await pilot.press("end")
        await wait_for(pilot, lambda: diff.scroll_offset.y == diff.max_scroll_y > 0)
        assert diff.lines[-1].text == "+y 3999" and diff.lines[-1].style == "add"
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_the_table_is_redrawn_at_its_measured_widths(workspace: Path, state: Path) -> None:
    from operator_app.tui.state import Row

    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause(0.1)
        table = app.table
        table.sync([Row(1, "w1", "fs.write", "notes/plan.txt", "waiting for you", "write notes/plan.txt +1 -0")])
        table.render_line(0)  # drawn before the table measured its new cells (as a busy screen may)
        await pilot.pause(0.2)
        header = "".join(segment.text for segment in table.render_line(0))
        assert header.split() == ["id", "status", "action", "path", "summary"]
        assert header.index("action") > header.index("status") + len("waiting for you")
