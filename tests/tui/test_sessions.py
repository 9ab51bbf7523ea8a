"""Which session a workspace opens, and what a restart shows of it: --state-dir belongs to the
workspace the app starts in even when the picker chose it; a message the app stopped in (killed,
or quit at a consent dialog) shows the commands that never ran, and quitting is not recorded as
declining; repeats still show as repeats. The picker reaches the workspace's neighbours."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from operator_app.engine.state.session import Session
from operator_app.tui.app import OperatorApp
from operator_app.tui.screens.confirm import ConfirmScreen
from operator_app.tui.screens.picker import FoldersOnly, PickerScreen
from tests.support.blocks import b64, block
from tests.support.dying_engine import die_during_a_write
from tests.support.pilot import SIZE, notes, wait_for
from tests.support.tui_app import (
    READS,
    WRITE,
    app_asking,
    app_pasted,
    cell,
    finished,
    make_app,
    results_of,
    table_statuses,
)

pytestmark = pytest.mark.asyncio


async def test_state_dir_is_used_for_the_workspace_picked_at_first_run(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    app = OperatorApp(workspace=None, state_dir=state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.screen.query_one("#picker-input", Input).value = str(workspace)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session.state_dir == state
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        other = tmp_path / "other"
        other.mkdir()
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.screen.query_one("#picker-input", Input).value = str(other)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.workspace.root == other.resolve())
        assert app.session.state_dir != state  # another workspace, its own session
    again = OperatorApp(
        workspace=None, state_dir=state
    )  # remembered workspace: the last one, "other"
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: again.session is not None)
        assert again.workspace.root == other.resolve() and again.session.state_dir == state
    back = make_app(
        workspace, state
    )  # the first workspace with the same --state-dir: its session is there
    async with back.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: list(back.states) == [1])
        assert [r.id for r in results_of(back)] == ["r1", "r2"]


async def test_a_message_the_app_stopped_in_shows_what_never_ran(
    workspace: Path, state: Path
) -> None:
    text = "Two reads:\n" + READS
    session = Session(
        state
    )  # as the app left it when it was killed with the second block still to run
    number = session.start_message(source="paste", text=text)
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(
            events.Paste(block("r1", "fs.read", path="notes/plan.txt"))
        )  # a result for r1, elsewhere
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.states) == 2)
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: app.view_number == number and app.table.row_count == 2)
        assert table_statuses(app) == ["not run", "not run"]
        assert "paste the message again" in cell(app, 0, "summary")
        assert "interrupted" in str(app.message_title.content)


async def test_a_restart_shows_repeats_as_repeats(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        app.post_message(events.Paste(READS + block("r3", "fs.stat", path="README.md")))
        expected = ["repeat", "repeat", "ok"]
        # The table is redrawn a moment after the state changes: wait for the drawn statuses.
        await wait_for(
            pilot,
            lambda: app.view_number == 2 and finished(app) and table_statuses(app) == expected,
        )
    again = make_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: again.view_number == 2 and table_statuses(again) == expected)
        assert "already ran in message 1" in cell(again, 0, "summary")


async def test_the_picker_reaches_the_neighbours_of_the_workspace(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    (tmp_path / "sibling" / "deep").mkdir(parents=True)
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        tree = app.screen.query_one(FoldersOnly)
        assert (
            Path(tree.path) == workspace.resolve().parent
        )  # the workspace and its siblings are in view
        field = app.screen.query_one("#picker-input", Input)
        field.value = str(tmp_path / "sibling")  # typing a folder shows it in the tree
        await wait_for(pilot, lambda: Path(tree.path) == tmp_path / "sibling")
        field.value = str(tmp_path / "sib")  # half a name: the tree stays
        await pilot.pause(0.1)
        assert Path(tree.path) == tmp_path / "sibling"
        await pilot.press("escape")


async def test_quitting_at_a_consent_dialog_is_not_a_rejection(
    workspace: Path, state: Path
) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    async with app_asking(
        workspace, state, WRITE + block("v1", "fs.readSlice", path="notes/plan.txt")
    ) as (app, pilot):
        await pilot.press("ctrl+q")  # asks first: a write waits
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
    with Session(state).lock(
        timeout=10
    ):  # the engine's worker held it until it noticed the app was gone
        pass
    assert (workspace / "notes" / "plan.txt").read_bytes() == before
    assert Session(state).results_of(1) == []  # nothing recorded: the model is not told "declined"
    again = make_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: again.view_number == 1 and again.table.row_count == 2)
        assert table_statuses(again) == ["not run", "not run"]
        assert "stopped before" in again.status_line.text
        await pilot.press("c")  # nothing to copy, and why: not "it held no OPERATOR_CMD block"
        assert any(
            "Operator stopped before any of its commands ran; paste the message again" in note
            for note in notes(again)
        ), notes(again)
    from operator_app.cli.main import main as cli_main

    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = cli_main(
            ["results", "--workspace", str(workspace), "--state-dir", str(state), "--last"]
        )
    assert (
        code == 6
        and "message 1 has no results: Operator stopped before any of its 2 commands ran"
        in err.getvalue()
    )


async def test_a_session_read_late_leaves_the_message_on_screen_alone(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from operator_app.tui import workspace_session

    first = make_app(workspace, state)
    async with first.run_test(size=SIZE) as pilot:
        first.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(first))
    release = threading.Event()
    real_load = workspace_session.load_history

    def slow_load(session):  # type: ignore[no-untyped-def]
        release.wait(10)  # a long session on a slow disk: the person pastes before it is read
        return real_load(session)

    monkeypatch.setattr(workspace_session, "load_history", slow_load)
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(
            events.Paste(
                block("s1", "fs.stat", path="README.md") + block("s2", "fs.list", path=".")
            )
        )
        await wait_for(pilot, lambda: finished(app) and table_statuses(app) == ["ok", "ok"])
        app.table.move_cursor(row=1)
        await pilot.pause(0.1)
        release.set()
        await wait_for(pilot, lambda: sorted(app.states) == [1, 2])
        await pilot.pause(0.2)
        assert app.view_number == 2 and app.table.cursor_row == 1  # the person's place is kept
        assert "(2 of 2, paste)" in str(app.message_title.content)


async def test_a_state_folder_inside_the_workspace_is_refused(workspace: Path) -> None:
    """The model can read and write the workspace: a session kept there could be read, and its
    journal rewritten so that an undo moves files from elsewhere in."""
    inside = workspace / ".operator-state"
    app = make_app(workspace, inside)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.session is None
        assert any("inside the workspace" in note for note in notes(app)), notes(app)
        assert not inside.exists()


async def test_a_write_the_app_died_in_shows_its_recovered_result(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    """Killed right after committing a write, before recording its result: the restarted app
    records and shows the result the model should have had, and copies it."""
    edit = '{"version": 1, "edits": [{"op": "insertAfter", "anchor": "Beta", "text": "Gamma"}]}'
    message = tmp_path / "m.txt"
    message.write_text(
        block("r1", "fs.stat", path="README.md")
        + block("e1", "fs.applyEdits", path="notes/plan.txt", edits_b64=b64(edit))
    )
    die_during_a_write(workspace, state, message, "after-commit")
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.view_number == 1 and table_statuses(app) == ["ok", "ok"])
        assert [r.id for r in results_of(app)] == ["r1", "e1"]
        assert "Applied 1 edit to notes/plan.txt" in cell(app, 1, "summary")
        assert (
            "Operator stopped during a write of message 1 last time; the result of e1 (ok) is now "
            "recorded with that message: show it with [ and ], then c copies its results"
        ) in notes(app), notes(app)
