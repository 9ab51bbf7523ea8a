"""What fits where: an 80x24 terminal still shows every key in the footer, every result's summary
in the table, and the errors in the message without sideways scrolling; the id column does not
stay wide after the message that needed it; the error code leads the summary once; a folder's
deletion is described by its files, not by "+0 -0"."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets._footer import FooterKey

from operator_app.tui.keys import MAIN_KEYS
from operator_app.tui.screens.consent import describe
from operator_app.tui.widgets.command_table import ID_WIDTHS, SUMMARY_LINES
from operator_app.tui.widgets.message_view import NOTE_ERROR
from tests.support.blocks import b64, block
from tests.support.pilot import asks, wait_for
from tests.support.tui_app import (
    READS,
    WRITE,
    app_asking,
    app_pasted,
    cell,
    finished,
    make_app,
    plain,
)

pytestmark = pytest.mark.asyncio
NARROW = (80, 24)
LONG_SUMMARIES = (
    block("bad", "fs.reed", path="notes/plan.txt")
    + block("m1", "fs.read", path="utill.py")
    + block("o1", "fs.read", path="../secret.txt")
    + block("ok1", "fs.stat", path="README.md")
)
BROKEN = (
    "Here:\n"
    + block("bad", "fs.reed", path="notes/plan.txt")
    + block("ok1", "fs.stat", path="README.md")
)


async def test_the_footer_shows_every_key_on_an_80_column_terminal(
    workspace: Path, state: Path
) -> None:
    async with app_pasted(workspace, state, READS, size=NARROW) as (app, pilot):
        await pilot.pause(0.2)
        shown = {key.action for key in app.screen.query(FooterKey) if key.region.right <= NARROW[0]}
        wanted = {
            key.action for key in MAIN_KEYS if app.check_action(key.action, ()) is not False
        } | {"quit"}
        assert "end_follow" not in wanted and "decide" not in wanted  # not following, nothing waits
        assert wanted <= {action.removeprefix("app.") for action in shown}


async def test_every_summary_is_readable_in_the_table_at_80x24(
    workspace: Path, state: Path
) -> None:
    """The status is a short cell and the summary gets the width and wraps: every result's summary,
    error code and close names included, is in the table whole, inside the table's width."""
    from operator_app.tui.widgets.command_table import summary_of

    (workspace / "util.py").write_text("x = 1\n")
    app = make_app(workspace, state)
    async with app.run_test(size=NARROW) as pilot:
        app.post_message(events.Paste(LONG_SUMMARIES))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 4)
        await pilot.pause(0.1)
        table = app.table
        rows = app.current().ordered_rows()
        assert [cell(app, i, "status") for i in range(4)] == [
            "✗ invalid",
            "✗ failed",
            "✗ failed",
            "✓ ok",
        ]
        assert (
            cell(app, 1, "summary")
            == "ERR_NOT_FOUND: utill.py does not exist; close names: util.py; list the "
            "folder with fs.list"
        )
        assert cell(app, 2, "summary").startswith(
            "ERR_PATH_OUTSIDE_WORKSPACE: ../secret.txt climbs above"
        )
        for i, row in enumerate(rows[1:], 1):
            assert " ".join(summary_of(row).split()) == " ".join(
                cell(app, i, "summary").split()
            )  # whole
        widths = sum(column.get_render_width(table) for column in table.columns.values())
        assert widths <= table.scrollable_content_region.width  # no sideways scrolling to read it
        assert (
            table.rows[table.coordinate_to_cell_key((1, 0)).row_key].height >= 2
        )  # wrapped, not cut
        table.scroll_to(
            y=0, animate=False
        )  # scrolled, not selected: the cursor stays on the last row
        await pilot.pause(0.1)
        drawn = summary_column(screen_text(app))
        assert (
            "ERR_NOT_FOUND: utill.py does not exist; close names: util.py; "
            "list the folder with fs.list"
        ) in drawn


async def test_a_summary_too_long_for_the_table_ends_in_an_ellipsis_and_the_details_have_it(
    workspace: Path, state: Path
) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=NARROW) as pilot:
        app.post_message(events.Paste(LONG_SUMMARIES))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 4)
        await pilot.pause(0.1)
        invalid = app.table.get_row_at(0)[-1]  # the list of every action: longer than SUMMARY_LINES
        assert len(str(invalid).split("\n")) == SUMMARY_LINES and str(invalid).endswith("…")
        app.table.move_cursor(row=0)
        await pilot.pause(0.1)
        assert "fs.delete" in app.details.plain  # the whole summary is in the details


def screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """What the screen shows now, as plain text lines."""
    return "\n".join(
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    )


def summary_column(screen: str) -> str:
    """The summary column of the command table as drawn on `screen`, its lines joined by spaces."""
    lines = screen.split("\n")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["status", "id"])
    start = lines[header].index("summary")
    end = next(i for i in range(header, len(lines)) if lines[i].strip() == "Details")
    return " ".join(line[start:].rstrip(" ▁▂▃▄▅▆▇█").strip() for line in lines[header + 1 : end])


async def test_an_error_in_the_message_is_wrapped_to_the_view(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, BROKEN, size=NARROW) as (app, pilot):
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


async def test_the_error_code_leads_the_summary_once(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(BROKEN))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 2)
        await pilot.pause(0.1)
        summary = cell(app, 0, "summary")
        assert summary.startswith("ERR_UNKNOWN_ACTION: action fs.reed is not defined")
        assert summary.count("ERR_UNKNOWN_ACTION") == 1 and "Invalid OPERATOR_CMD" not in summary
        app.table.move_cursor(row=0)
        await pilot.pause(0.1)
        # The details keep the whole summary, as the model receives it.
        assert "Invalid OPERATOR_CMD (ERR_UNKNOWN_ACTION)" in app.details.plain


async def test_the_id_column_shrinks_back_for_the_next_message(
    workspace: Path, state: Path
) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(
            events.Paste(block("a-rather-long-command-id", "fs.stat", path="README.md"))
        )
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 1)
        assert app.table.columns["id"].width == ID_WIDTHS[1]
        await pilot.pause(0.1)
        assert "a-rather-lo… " in screen_text(app)  # cut where drawn; the details have it whole
        app.post_message(events.Paste(block("x2", "fs.stat", path="README.md")))
        await wait_for(
            pilot, lambda: app.view_number == 2 and finished(app) and app.table.row_count == 1
        )
        await pilot.pause(0.1)
        assert app.table.columns["id"].width == len("x2")


async def test_the_action_column_shows_only_where_the_summary_keeps_its_room(
    workspace: Path, state: Path
) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(180, 50)) as pilot:
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 2)
        assert app.table.column_names == ["status", "id", "action", "summary"]
        assert cell(app, 0, "action") == "fs.read"
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: app.table.column_names == ["status", "id", "summary"])
        assert cell(app, 0, "summary").startswith("Read notes/plan.txt")


async def test_a_folder_deletion_is_described_by_its_files(workspace: Path, state: Path) -> None:
    async with app_asking(
        workspace, state, block("d1", "fs.delete", path="notes"), size=(160, 45)
    ) as (app, pilot):
        title = plain(describe(app.screen.plan))
        assert "the folder notes/ with 1 file" in title and "+0" not in title and "-0" not in title
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_a_long_diff_is_shown_whole_and_scrolls(workspace: Path, state: Path) -> None:
    from operator_app.tui.widgets.lines_view import LinesView

    (workspace / "long.txt").write_text("".join(f"x {n}\n" for n in range(4000)))
    edits = '{"version": 1, "edits": [{"op": "replaceAll", "find": "x ", "text": "y "}]}'
    async with app_asking(
        workspace,
        state,
        block("e1", "fs.applyEdits", path="long.txt", edits_b64=b64(edits)),
        size=(120, 40),
    ) as (app, pilot):
        diff = app.screen.query_one("#consent-diff", LinesView)
        assert app.focused is diff  # the keys scroll the diff at once
        assert (
            len(diff.lines) == app.screen.plan.diff.count("\n") > 8000
        )  # all of it, not the first 5,000 lines
        await pilot.press("end")
        await wait_for(pilot, lambda: diff.scroll_offset.y == diff.max_scroll_y > 0)
        assert diff.lines[-1].text == "+y 3999" and diff.lines[-1].style == "add"
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_the_table_is_drawn_at_its_widths_at_once(workspace: Path, state: Path) -> None:
    from operator_app.tui.state import Row

    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause(0.1)
        table = app.table
        table.sync(
            [
                Row(
                    line=1,
                    command_id="w1",
                    action="fs.write",
                    path="notes/plan.txt",
                    status="waiting for you",
                    summary="write notes/plan.txt +1 -0",
                )
            ]
        )
        header = "".join(
            segment.text for segment in table.render_line(0)
        )  # before any idle pass measured it
        assert header.split() == ["status", "id", "action", "summary"]
        assert header.index("id") > header.index("status") + len("● waiting")
        row = "".join(segment.text for segment in table.render_line(1))
        assert row.split() == [
            "●",
            "waiting",
            "w1",
            "fs.write",
            "write",
            "notes/plan.txt",
            "+1",
            "-0",
        ]


async def test_the_footer_still_fits_80_columns_while_a_write_is_put_off(
    workspace: Path, state: Path
) -> None:
    """d (decide) shows while a write waits; u, which cannot run then, makes room for it."""
    async with app_asking(workspace, state, WRITE, size=NARROW) as (app, pilot):
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: len(app.screen_stack) == 1 and app.check_action("decide", ()) is True
        )
        await pilot.pause(0.2)
        shown = {
            key.action.removeprefix("app.")
            for key in app.screen.query(FooterKey)
            if key.region.right <= NARROW[0]
        }
        wanted = {
            key.action for key in MAIN_KEYS if app.check_action(key.action, ()) is not False
        } | {"quit"}
        assert "decide" in wanted and "undo" not in wanted
        assert wanted <= shown, wanted - shown
        await pilot.press("d")
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_a_status_wider_than_the_terminal_wraps_instead_of_being_cut(
    workspace: Path, state: Path
) -> None:
    """At 120 columns the waiting write's status, with a long path, ends on a second line with
    what to press; nothing is cut off with an ellipsis."""
    deep = "src/components/a-rather-long-folder-name/component-with-a-long-name.txt"
    (workspace / deep).parent.mkdir(parents=True)
    (workspace / deep).write_text("one\n")
    message = block("w1", "fs.write", path=deep, content="two")
    async with app_asking(workspace, state, message, size=(120, 40)) as (app, pilot):
        await pilot.pause(0.2)
        status = app.status_line
        assert len(status.text) > 118 and status.text.endswith("esc: decide later).")
        assert status.size.height == 2
        shown = [
            "".join(segment.text for segment in line).strip()
            for line in status.render_lines(status.region.reset_offset)
        ]
        assert shown[-1].endswith("esc: decide later).") and "…" not in "".join(shown)


async def test_a_notification_leaves_the_status_line_in_view(workspace: Path, state: Path) -> None:
    """Issue 36: a note stood over the end of the status line, which says what to press next."""
    deep = "src/components/a-rather-long-folder-name/component-with-a-long-name.txt"
    (workspace / deep).parent.mkdir(parents=True)
    (workspace / deep).write_text("one\n")
    app = make_app(workspace, state)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.post_message(events.Paste(block("w1", "fs.write", path=deep, content="two")))
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("escape")  # decided later: the status line says how to come back
        await wait_for(pilot, lambda: "still waits for you" in app.status_line.text)
        app.notify("A note of several words, long enough to reach the status line's end. " * 2)
        await wait_for(pilot, lambda: bool(app.screen.query("Toast")))
        await pilot.pause(0.2)
        status = app.status_line.region
        assert status.height == 2  # (the longest it gets here)
        for toast in app.screen.query("Toast"):
            assert toast.region.bottom <= status.y, (toast.region, status)
