"""The consent dialog leaves no surprise: it says which write of its message it is and what `a`
would apply after it, `a` asks once more before applying a delete or a file it did not show,
escape puts the decision off (d or enter brings it back) instead of rejecting, `?` lists its keys,
and quitting while a write waits asks first."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from operator_app.tui.keys import CONSENT_KEYS
from operator_app.tui.screens.confirm import ConfirmScreen
from operator_app.tui.screens.help import KeysScreen
from tests.support.blocks import b64, block
from tests.support.pilot import SIZE, asks, notes, wait_for
from tests.support.tui_app import (
    READS,
    WRITE,
    app_asking,
    app_pasted,
    finished,
    make_app,
    plain,
    results_of,
    table_statuses,
)

pytestmark = pytest.mark.asyncio


def dialog_text(app) -> str:  # type: ignore[no-untyped-def]
    screen = app.screen
    return (
        screen.query_one("#consent-box").border_title
        + "\n"
        + "".join(plain(static.content, width=150) for static in screen.query(Static))
    )


async def test_the_dialog_says_which_write_it_is_and_what_a_applies_after_it(
    workspace: Path, state: Path
) -> None:
    async with app_asking(
        workspace, state, block("e1", "fs.write", path="notes/old.txt", content="x")
    ) as (app, pilot):
        await pilot.press("y")  # e1 is used up: repeated below, it will not run again
        await wait_for(pilot, lambda: finished(app))
        message = (
            WRITE
            + block("r1", "fs.stat", path="README.md")
            + block("w2", "fs.write", path="notes/./plan.txt", content="two")
            + block("bad", "fs.write", path="notes/x.txt")  # no content: invalid, never writes
            + block("e1", "fs.write", path="notes/old.txt", content="x")  # a repeat: answered only
            + block("w3", "fs.write", path="notes/new.txt", content="three")
            + block("d1", "fs.delete", path="config.json")
        )
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: asks(app) and app.view_number == 2)
        text = dialog_text(app)
        assert "message 2: write 1 of 4 in this message waits for you" in text
        assert '"a" also applies 3 more writes of this message:' in text
        rest = [" ".join(line.split()) for line in text.splitlines() if line.startswith("  fs.")]
        assert rest == [
            "fs.write notes/plan.txt",
            "fs.write notes/new.txt",
            "fs.delete config.json moves it to the trash",
        ]
        await pilot.press("a")  # a delete and another file among them: asked once more
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = plain(app.screen.question, width=150)
        assert (
            "It moves to the trash: config.json" in question
            and "It changes files not shown here: notes/new.txt" in question
        )
        await pilot.press("n")  # back to the write, nothing applied
        await wait_for(pilot, lambda: asks(app))
        assert (workspace / "config.json").exists() and not (
            workspace / "notes" / "new.txt"
        ).exists()
        await pilot.press("y")  # w1
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.command_id == "w2")
        assert "write 2 of 4" in dialog_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.command_id == "w3")
        await pilot.press("n")
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.command_id == "d1")
        text = dialog_text(app)
        assert "write 4 of 4" in text and "Nothing else in this message waits for your yes." in text
        assert "apply this (the last one)" in text
        await pilot.press("a")  # nothing after it: no second question
        # seven results: e1 too, answered as a repeat without running
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 7)
        assert not (workspace / "config.json").exists()


async def test_a_applies_writes_to_the_file_shown_without_asking_again(
    workspace: Path, state: Path
) -> None:
    async with app_asking(
        workspace, state, WRITE + block("w2", "fs.write", path="notes/plan.txt", content="two")
    ) as (app, pilot):
        assert "write 1 of 2" in dialog_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)
        assert (workspace / "notes" / "plan.txt").read_text() == "two\n"
        assert not any(isinstance(screen, ConfirmScreen) for screen in app.screen_stack)


async def test_a_message_still_arriving_says_a_applies_what_comes_later_and_asks(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("Writing.\n" + WRITE)
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: asks(app))
        assert (
            'The message is still arriving: "a" also applies the writes that arrive after this '
            "one (a command that arrives asks you first)." in dialog_text(app)
        )
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "writes that arrive later are applied too" in plain(app.screen.question, width=150)
        await pilot.press("y")
        await wait_for(pilot, lambda: len(app.current().results) == 1)
        with stream.open("a") as handle:
            handle.write(block("w2", "fs.write", path="later.txt", content="later"))
        await wait_for(
            pilot, lambda: (workspace / "later.txt").exists()
        )  # approved with a: no dialog
        assert len(app.screen_stack) == 1


async def test_escape_puts_the_decision_off_and_d_or_enter_brings_it_back(
    workspace: Path, state: Path
) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    async with app_asking(workspace, state, WRITE + block("v1", "fs.stat", path="README.md")) as (
        app,
        pilot,
    ):
        assert "esc decide later" in dialog_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert not finished(app) and table_statuses(app) == [
            "waiting"
        ]  # not rejected: still waiting
        assert (workspace / "notes" / "plan.txt").read_bytes() == before
        assert "still waits for you: d (or enter on its row) shows it again" in app.status_line.text
        assert app.check_action("decide", ()) is True and app.check_action("undo", ()) is False
        for key, words in (
            ("u", "decide it first (d), then undo"),
            ("w", "then choose another workspace"),
        ):
            count = len(notes(app))
            await pilot.press(key)
            await wait_for(pilot, lambda count=count: len(notes(app)) > count)
            assert words in notes(app)[-1]
        assert len(app.screen_stack) == 1
        await pilot.press("d")
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        app.table.focus()
        app.table.move_cursor(row=0)
        await pilot.press("enter")  # enter on the waiting row
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)
        assert results_of(app)[0].ok and app.check_action("decide", ()) is False


async def test_a_paste_while_a_write_is_put_off_runs_after_it(workspace: Path, state: Path) -> None:
    async with app_asking(workspace, state, WRITE) as (app, pilot):
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        app.post_message(events.Paste(READS))
        await wait_for(
            pilot,
            lambda: any("runs once you decide on w1 of message 1" in text for text in notes(app)),
        )
        assert list(app.states) == [1]
        await pilot.press("d")
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("n")
        await wait_for(
            pilot,
            lambda: list(app.states) == [1, 2] and finished(app) and len(results_of(app)) == 2,
        )


async def test_question_mark_in_the_dialog_lists_its_keys(workspace: Path, state: Path) -> None:
    async with app_asking(workspace, state, WRITE) as (app, pilot):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, KeysScreen))
        text = " ".join(plain(static.content, width=150) for static in app.screen.query(Static))
        rows = " ".join(text.split())
        for key, what in CONSENT_KEYS:
            assert " ".join(f"{key} {what}".split()) in rows
        await pilot.press("escape")
        await wait_for(pilot, lambda: asks(app))  # back to the dialog, which still waits
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_quitting_while_a_write_waits_asks_first(workspace: Path, state: Path) -> None:
    async with app_asking(workspace, state, WRITE) as (app, pilot):
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "waits for your answer. Quit anyway?" in plain(app.screen.question, width=150)
        await pilot.press("n")  # stay: the dialog is back
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("escape")  # put off: quitting still asks
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("ctrl+q")  # twice is a yes
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0


async def test_quitting_with_no_write_waiting_asks_nothing(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running)


async def test_a_write_arriving_over_the_picker_waits_and_keeps_its_workspace(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    """A write that arrives while the picker is open does not put its dialog over it (the next key
    typed there would answer it); it waits, and choosing another workspace would leave it waiting
    in a session no longer shown: that is refused until the write is decided."""
    from textual.widgets import Input

    from operator_app.tui.screens.picker import PickerScreen

    other = tmp_path / "other"
    other.mkdir()
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.message_flow.start_message(
            WRITE, "clipboard"
        )  # as --follow or the clipboard watcher brings it, dialog or not
        await wait_for(pilot, lambda: any("A write waits for you" in text for text in notes(app)))
        assert isinstance(app.screen, PickerScreen)
        app.screen.query_one("#picker-input", Input).value = str(other)
        await pilot.press("ctrl+o")
        await wait_for(
            pilot, lambda: any("then choose another workspace" in text for text in notes(app))
        )
        assert app.workspace.root == workspace.resolve()
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("d")
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and results_of(app)[0].ok)


async def test_a_new_file_reads_as_a_diff_from_dev_null_in_the_dialog_and_the_details(
    workspace: Path, state: Path
) -> None:
    """A created file's diff has --- /dev/null, as git prints it: the dialog and the details pane
    still read it as a diff (its header dimmed, its lines green and coloured as code)."""
    from operator_app.tui.widgets.lines_view import LinesView

    async with app_asking(
        workspace,
        state,
        block("c1", "fs.write", path="src/new.py", content_b64=b64("import os\nX = 1\n")),
    ) as (app, pilot):
        assert "fs.write creates src/new.py   +2 -0" in dialog_text(app)
        lines = app.screen.query_one("#consent-diff", LinesView).lines
        assert [(line.text, line.style) for line in lines] == [
            ("--- /dev/null", "meta"),
            ("+++ b/src/new.py", "meta"),
            ("@@ -0,0 +1,2 @@", "hunk"),
            ("+import os", "add"),
            ("+X = 1", "add"),
        ]
        assert all(line.code is not None for line in lines[3:])  # coloured as Python
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and results_of(app)[0].ok)
        details = app.query_one("#details", LinesView).plain
        assert "--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1,2 @@\n+import os\n+X = 1" in details


async def test_a_move_over_a_file_shows_what_goes_where_and_the_diff_of_the_file_it_replaces(
    workspace: Path, state: Path
) -> None:
    from operator_app.tui.screens.undo_confirm import UndoConfirmScreen
    from operator_app.tui.widgets.lines_view import LinesView

    (workspace / "notes" / "todo.txt").write_text("Alpha\nold line\n")
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(
            events.Paste(
                block(
                    "m1",
                    "fs.move",
                    path="notes/plan.txt",
                    path_to="notes/todo.txt",
                    overwrite="true",
                )
                + block("c1", "fs.copy", path="src", path_to="backup/src")
            )
        )
        await wait_for(pilot, lambda: asks(app))
        text = dialog_text(app)
        assert (
            "fs.move moves notes/plan.txt to notes/todo.txt, replacing the file there +1 -1" in text
        )
        assert "fs.copy src -> backup/src" in " ".join(
            text.split()
        )  # what `a` would apply after it
        lines = [
            (line.text, line.style)
            for line in app.screen.query_one("#consent-diff", LinesView).lines
        ]
        assert lines == [
            ("notes/plan.txt -> notes/todo.txt (2 lines, 11 bytes)", ""),
            ("replaces notes/todo.txt (2 lines, 15 bytes); its content changes:", ""),
            ("--- a/notes/todo.txt", "meta"),
            ("+++ b/notes/todo.txt", "meta"),
            ("@@ -1,2 +1,2 @@", "hunk"),
            (" Alpha", ""),
            ("-old line", "del"),
            ("+Beta", "add"),
        ]
        await pilot.press("y")
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.command_id == "c1")
        assert "fs.copy copies src/ to backup/src/" in dialog_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)
        assert [r.ok for r in results_of(app)] == [True, True]
        assert (workspace / "notes" / "todo.txt").read_text() == "Alpha\nBeta\n" and (
            workspace / "backup" / "src"
        ).is_dir()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        assert "fs.copy on src -> backup/src" in plain(
            app.screen.query_one("#confirm-question", Static).content, width=150
        )
        await pilot.press("y")
        await wait_for(pilot, lambda: not (workspace / "backup").exists())
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: (workspace / "notes" / "plan.txt").exists())
        assert (workspace / "notes" / "todo.txt").read_text() == "Alpha\nold line\n"
