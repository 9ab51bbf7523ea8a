"""Where messages come from and where they stay: follow mode with a file written in chunks (and
truncated, and replaced), clipboard watching with a fake clipboard, the workspace picker and a
later switch, a restart that keeps the session, and browsing earlier messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from operator_app.protocol.spec import system_prompt
from operator_app.tui.app import OperatorApp
from operator_app.tui.screens.picker import PickerScreen
from tests.support.blocks import block
from tests.support.pilot import SIZE, press_copy, wait_for
from tests.support.tui_app import READS, app_pasted, cell, finished, make_app, results_of

pytestmark = pytest.mark.asyncio


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


async def test_follow_mode_runs_blocks_as_they_arrive(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("")
    app = make_app(workspace, state, follow=stream)
    first = block("f1", "fs.read", path="notes/plan.txt")
    async with app.run_test(size=SIZE) as pilot:
        assert app.check_action("end_follow", ()) is None  # shown, dimmed: nothing to end yet
        append(stream, "Reading the plan.\n" + first[:25])
        await wait_for(
            pilot, lambda: app.current() is not None and "Reading the plan" in app.current().text
        )
        live = app.current()
        assert live.results == [] and not live.finished  # no END marker yet: nothing ran
        append(stream, first[25:] + "OPERATOR_CMD\nversion: 1\nid: f2\n")
        await wait_for(
            pilot, lambda: [r.id for r in live.results] == ["f1"] and live.pending is not None
        )
        assert live.pending[1] == "f2"
        await wait_for(
            pilot,
            lambda: any(cell(app, i, "status") == "… pending" for i in range(app.table.row_count)),
        )
        assert app.check_action("end_follow", ()) is True
        await pilot.press("e")  # end the message: the open block becomes ERR_MISSING_END_MARKER
        await wait_for(pilot, lambda: live.finished)
        assert [(r.id, r.error_code) for r in live.results] == [
            ("f1", None),
            ("f2", "ERR_MISSING_END_MARKER"),
        ]
        # More text after the end is the next message.
        append(stream, block("f3", "fs.stat", path="README.md"))
        await wait_for(
            pilot, lambda: app.view_number == 2 and [r.id for r in results_of(app)] == ["f3"]
        )


async def test_follow_mode_on_a_file_written_past_the_window_scans_only_its_end(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    """What the file holds when Operator starts following it is a message so far: like a paste,
    only its last 200,000 characters are scanned, so an early block never runs."""
    stream = tmp_path / "stream.txt"
    # 1.5 MB, more than one read of the file; "early" lies inside the last 200,000 characters of
    # the first megabyte, but not of the file.
    line = "z" * 99 + "\n"
    stream.write_text(
        line * 9_000
        + block("early", "fs.read", path="notes/plan.txt")
        + line * 6_000
        + block("late", "fs.stat", path="README.md")
    )
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: app.current() is not None and [r.id for r in app.current().results] == ["late"],
        )
        await pilot.press("e")
        live = app.current()
        await wait_for(pilot, lambda: live.finished)
        assert [r.id for r in live.results] == ["late"]
        assert any("only the last 200000 were scanned" in w for w in live.warnings), live.warnings


async def test_follow_mode_ends_a_message_when_the_file_is_truncated_or_replaced(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text(
        block("t1", "fs.stat", path="README.md") + "OPERATOR_CMD\nversion: 1\nid: t2\n"
    )
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: app.current() is not None and app.current().pending is not None
        )
        first = app.current()
        stream.write_text(block("t3", "fs.stat", path="README.md"))  # truncated and rewritten
        await wait_for(
            pilot, lambda: first.finished and app.view_number == 2 and finished_or_has(app, "t3")
        )
        assert [(r.id, r.error_code) for r in first.results] == [
            ("t1", None),
            ("t2", "ERR_MISSING_END_MARKER"),
        ]
        second = app.current()
        replacement = tmp_path / "stream.new"
        replacement.write_text(block("t4", "fs.stat", path="README.md"))
        os.replace(replacement, stream)  # another file at the same path, the way editors save
        await wait_for(
            pilot, lambda: second.finished and app.view_number == 3 and finished_or_has(app, "t4")
        )
        assert [r.id for r in second.results] == ["t3"]


def finished_or_has(app: OperatorApp, command_id: str) -> bool:
    return any(r.id == command_id for r in results_of(app))


class FakeClipboard:
    def __init__(self) -> None:
        self.text: str | None = "something old\nOPERATOR_CMD\n"

    def read(self) -> str | None:
        return self.text


async def test_clipboard_watch_takes_new_commands_but_not_our_own_copies(
    workspace: Path, state: Path
) -> None:
    fake = FakeClipboard()
    app = make_app(workspace, state, watch_clipboard=True, clipboard_source=fake)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert not app.states  # what the clipboard held before is not a new message
        fake.text = "Here you go:\n" + READS
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)
        assert app.current().source == "clipboard"
        await pilot.press(
            "p"
        )  # the system prompt holds OPERATOR_CMD examples: our own copy, ignored
        await wait_for(pilot, lambda: app.clipboard == system_prompt())
        fake.text = system_prompt()
        await pilot.pause(0.3)
        assert list(app.states) == [1]
        fake.text = "prose without commands"
        await pilot.pause(0.2)
        fake.text = "prose\n" + READS.replace("r1", "r9").replace("r2", "r8")
        await wait_for(
            pilot, lambda: len(app.states) == 2 and finished(app) and len(results_of(app)) == 2
        )
        assert [r.id for r in results_of(app)] == ["r9", "r8"]


async def test_workspace_picker_on_first_use_and_remembered(workspace: Path) -> None:
    app = OperatorApp(workspace=None, state_dir=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.workspace is None
        field = app.screen.query_one("#picker-input", Input)
        field.value = str(workspace / "nope")
        field.focus()
        await pilot.press("enter")
        assert isinstance(app.screen, PickerScreen) and "is not a folder" in str(
            app.screen.query_one("#picker-error").content
        )
        field.value = str(workspace)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.workspace is not None)
        assert app.workspace.root == workspace.resolve()
        assert app.sub_title  # the header shows where we are
    again = OperatorApp(workspace=None, state_dir=None)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert again.workspace is not None and again.workspace.root == workspace.resolve()
        assert len(again.screen_stack) == 1


async def test_changing_the_workspace_starts_its_own_session(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "docs").mkdir(parents=True)
    (other / "docs" / "a.txt").write_text("A\n")
    async with app_pasted(workspace, state, READS) as (app, pilot):
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.screen.query_one("#picker-input", Input).value = str(other)
        await pilot.press("ctrl+o")
        await wait_for(
            pilot, lambda: app.workspace is not None and app.workspace.root == other.resolve()
        )
        await wait_for(
            pilot, lambda: "Paste the model's answer" in app.status_line.text
        )  # its session was read
        assert app.states == {} and app.current() is None and app.welcome.display
        assert app.session.state_dir != state
        assert app.table.row_count == 0
        app.post_message(events.Paste(block("o1", "fs.read", path="docs/a.txt")))
        await wait_for(pilot, lambda: finished(app))
        assert (
            app.view_number == 1 and results_of(app)[0].ok
        )  # numbering starts again: a new session


async def test_a_restart_keeps_the_session(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        app.post_message(events.Paste(block("r3", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        copied = await press_copy(pilot, app)
    again = make_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: "Session resumed" in again.status_line.text
        )  # read on a worker
        assert list(again.states) == [1, 2] and again.view_number == 2
        assert not again.welcome.display
        assert [r.id for r in results_of(again)] == ["r3"]
        assert await press_copy(pilot, again) == copied
        await pilot.press("left_square_bracket")
        assert [r.id for r in results_of(again)] == ["r1", "r2"] and again.table.row_count == 2


async def test_history_browses_earlier_messages(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        assert app.check_action("previous_message", ()) is None
        app.post_message(events.Paste(block("r3", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        assert app.check_action("next_message", ()) is None
        await pilot.press("left_square_bracket")
        assert app.view_number == 1 and [r.id for r in results_of(app)] == ["r1", "r2"]
        assert "Message 1 (1 of 2, paste)" in str(app.message_title.content)
        copied = await press_copy(pilot, app)
        assert "id: r1" in copied and "id: r3" not in copied  # c copies the shown message
        await pilot.press("right_square_bracket")
        assert app.view_number == 2


async def test_follower_rewritten_in_place_past_the_tail_is_one_restart_not_one_per_poll(
    tmp_path: Path,
) -> None:
    """A file rewritten in place (same inode, no shorter) with new first bytes restarts once; the
    head kept for the next comparison is the file's first bytes, not those after the ones
    compared."""
    from operator_app.tui.follow import TAIL_BYTES, FileFollower

    stream = tmp_path / "stream.txt"
    stream.write_bytes(b"a" * 1000)
    follower = FileFollower(stream)
    assert follower.poll().text == "a" * 1000
    with stream.open("r+b") as handle:  # same inode, larger, other first bytes
        handle.write(b"b" * 300 + b"c" * TAIL_BYTES)
    first = follower.poll()
    assert first.restarted and first.text.endswith("c" * 1000)
    again = follower.poll()
    assert (again.restarted, again.text) == (False, "")
