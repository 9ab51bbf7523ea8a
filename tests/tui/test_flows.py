"""The edit loop under Textual's Pilot, on real temporary folders: paste to results, consent
(approve, reject, approve the rest), a conflict found at commit time, undo, and copy back (the
copied text equals what `operator-app exec` prints for the same message)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Static

from operator_app import settings
from operator_app.tui.screens.confirm import ConfirmScreen
from operator_app.tui.screens.consent import ConsentScreen
from operator_app.tui.screens.copy_fallback import CopyFallbackScreen
from operator_app.tui.screens.undo_confirm import UndoConfirmScreen
from tests.support.blocks import block
from tests.support.pilot import SIZE, asks, notes, press_copy, wait_for
from tests.support.tui_app import (
    DEMO_MESSAGE,
    READS,
    WRITE,
    app_asking,
    cell,
    exec_output,
    finished,
    make_app,
    results_of,
    table_statuses,
)

pytestmark = pytest.mark.asyncio


async def test_paste_runs_reads_at_once_and_shows_them(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        assert app.welcome.display
        app.post_message(events.Paste(READS))
        # The table is redrawn a moment after the state changes (refreshes are coalesced).
        await wait_for(
            pilot,
            lambda: (
                finished(app)
                and [cell(app, i, "status") for i in range(app.table.row_count)] == ["✓ ok", "✓ ok"]
            ),
        )
        assert [(r.id, r.ok) for r in results_of(app)] == [("r1", True), ("r2", True)]
        assert not app.welcome.display
        assert len(app.screen_stack) == 1  # reads never ask
        app.table.move_cursor(row=0)
        await wait_for(pilot, lambda: "Alpha\nBeta" in app.details.plain)  # the decoded details


async def test_approve_applies_the_write_before_the_next_command_runs(
    workspace: Path, state: Path
) -> None:
    async with app_asking(
        workspace, state, WRITE + block("v1", "fs.readSlice", path="notes/plan.txt")
    ) as (app, pilot):
        assert "+Gamma" in app.screen.plan.diff
        assert app.current().rows[1].status == "waiting for you"
        assert "waits for you" in app.status_line.text
        await pilot.press("y")
        await wait_for(pilot, finished_with(app, 2))
        assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
        assert "3: Gamma" in (
            results_of(app)[1].details or ""
        )  # the verifying read ran after the write


async def test_reject_leaves_the_file_and_reports_err_rejected(
    workspace: Path, state: Path
) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await answer_the_write(pilot, app, "n")
        (result,) = results_of(app)
        assert result.error_code == "ERR_REJECTED"
        assert app.current().rows[result.line].status == "rejected"
        assert (workspace / "notes" / "plan.txt").read_bytes() == before


async def test_approve_the_rest_asks_once_per_message(workspace: Path, state: Path) -> None:
    message = WRITE + block("w2", "fs.write", path="notes/new.txt", content="hello")
    async with app_asking(workspace, state, message) as (app, pilot):
        await pilot.press("a")  # the rest writes another file than the one shown: asked once more
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, finished_with(app, 2))
        assert [r.ok for r in results_of(app)] == [True, True]
        assert (workspace / "notes" / "new.txt").read_text() == "hello"
        # The next message asks again.
        app.post_message(events.Paste(block("w3", "fs.write", path="notes/other.txt", content="x")))
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        assert not (workspace / "notes" / "other.txt").exists()


async def test_a_conflict_at_commit_time_is_shown(workspace: Path, state: Path) -> None:
    async with app_asking(workspace, state, WRITE) as (app, pilot):
        (workspace / "notes" / "plan.txt").write_text("changed behind our back\n")
        await pilot.press("y")
        await wait_for(pilot, finished_with(app, 1))
        (result,) = results_of(app)
        assert result.error_code == "ERR_CONFLICT" and result.status == "conflict"
        assert app.current().rows[result.line].status == "conflict"
        await wait_for(
            pilot, lambda: cell(app, 0, "status") == "✗ conflict"
        )  # the table redraws a moment later
        assert cell(app, 0, "summary").startswith("ERR_CONFLICT: ")
        assert any("w1 was not applied" in text and "ERR_CONFLICT" in text for text in notes(app))
        assert (workspace / "notes" / "plan.txt").read_text() == "changed behind our back\n"


async def test_a_failing_command_shows_its_code_in_the_table(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(block("m1", "fs.read", path="no/such/file.txt")))
        await wait_for(pilot, finished_with(app, 1))
        code = results_of(app)[0].error_code
        assert code.startswith("ERR_")
        # The table redraws a moment after the result (refreshes are coalesced): wait for it.
        await wait_for(pilot, lambda: cell(app, 0, "status") == "✗ failed")
        assert cell(app, 0, "summary").startswith(f"{code}: ")


async def test_undo_restores_the_file_after_confirmation(workspace: Path, state: Path) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        assert app.check_action("undo", ()) is None  # nothing to undo yet: the footer dims the key
        await answer_the_write(pilot, app, "y")
        assert (workspace / "notes" / "plan.txt").read_bytes() != before
        await wait_for(pilot, lambda: app.check_action("undo", ()) is True)
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        assert app.screen.entry.rel == "notes/plan.txt"
        await pilot.press("n")  # keep it: nothing changes
        await pilot.pause(0.1)
        assert (workspace / "notes" / "plan.txt").read_bytes() != before
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: (workspace / "notes" / "plan.txt").read_bytes() == before)
        await wait_for(pilot, lambda: "Restored notes/plan.txt" in app.status_line.text)
        # The journal is read again on a worker after the undo is said: u dims once it is read.
        await wait_for(pilot, lambda: app.check_action("undo", ()) is None)


async def test_an_undone_change_shows_as_undone_in_its_messages_table(
    workspace: Path, state: Path
) -> None:
    """So the person knows what to tell the model: live, after a restart, and when copying."""
    async with app_asking(
        workspace, state, WRITE + block("v1", "fs.stat", path="notes/plan.txt")
    ) as (app, pilot):
        await pilot.press("y")
        await wait_for(pilot, finished_with(app, 2))
        assert table_statuses(app) == ["ok", "ok"]
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: table_statuses(app) == ["undone", "ok"])
        assert cell(app, 0, "status") == "↶ undone"
        assert cell(app, 0, "summary").startswith(
            "undone at "
        ) and "the model still thinks it is there" in cell(app, 0, "summary")
        app.table.move_cursor(row=0)
        await wait_for(pilot, lambda: "Tell it the change was undone" in app.details.plain)
        await press_copy(pilot, app)
        assert any("w1 was undone since" in text for text in notes(app))
    again = make_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: table_statuses(again) == ["undone", "ok"])


async def test_undo_is_refused_when_the_file_changed_since(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await answer_the_write(pilot, app, "y")
        (workspace / "notes" / "plan.txt").write_text("edited by hand\n")
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: "Undo refused" in app.status_line.text)
        assert (workspace / "notes" / "plan.txt").read_text() == "edited by hand\n"


async def test_undo_confirmed_for_one_change_never_undoes_another_made_meanwhile(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    """The dialog names the change it asks about; while it is open, `exec` on the same session (or
    a followed file, or the clipboard watcher) may commit another. "y" must not undo that one."""
    from operator_app.cli.main import main as cli_main

    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await answer_the_write(pilot, app, "y")
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        assert app.screen.entry.rel == "notes/plan.txt"
        (tmp_path / "m.txt").write_text(
            block("x1", "fs.write", path="other.txt", content="made meanwhile")
        )
        assert (
            cli_main(
                [
                    "exec",
                    "--workspace",
                    str(workspace),
                    "--state-dir",
                    str(state),
                    "--approve",
                    "all",
                    str(tmp_path / "m.txt"),
                ]
            )
            == 0
        )
        await pilot.press("y")
        await wait_for(pilot, lambda: "Undo refused" in app.status_line.text)
        assert (workspace / "other.txt").read_text() == "made meanwhile"
        assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


async def test_copy_gives_exactly_what_exec_prints(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        assert app.check_action("copy_results", ()) is None
        app.post_message(events.Paste(DEMO_MESSAGE))
        # An applyEdits and a patch. Their dialog covers the table: it says what ran before
        # (issue 36: the demo's three reads seemed not to have run).
        for before in ("3 reads (3 ✓ ok); their", "3 reads, 1 write (4 ✓ ok); their"):
            await wait_for(pilot, lambda: asks(app))
            said = str(app.screen.query_one("#consent-before", Static).content)
            assert (
                said == f"Answered before it: {before} results are in the table behind this dialog."
            )
            await pilot.press("y")
        await wait_for(pilot, finished_with(app, 7))
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        assert app.clipboard == exec_output(DEMO_MESSAGE, tmp_path)
        assert app.clipboard.count("END_OPERATOR_RESULT") == 7
        await wait_for(
            pilot, lambda: any(text.startswith("Copied 7 result blocks") for text in notes(app))
        )
        assert f"({len(app.clipboard):,} characters)" in notes(app)[-1]


async def test_without_a_clipboard_the_text_is_shown_and_saved(
    workspace: Path, state: Path
) -> None:
    (workspace / "notes" / "long.txt").write_text("word " * 60 + "\n")
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(READS + block("r9", "fs.read", path="notes/long.txt")))
        await wait_for(pilot, finished_with(app, 3))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyFallbackScreen))
        fallback = app.screen
        assert fallback.saved_to is not None and fallback.saved_to.read_text() == app.clipboard
        assert str(fallback.saved_to) in notes(app)[-1]
        shown = fallback.query_one("#fallback-text")
        assert shown.text == app.clipboard
        # A result's base64 is one long line: not wrapped into several here (a terminal's own
        # selection would copy them so), and the note says where to select it whole.
        assert any(len(line) > 100 for line in app.clipboard.split("\n"))
        assert shown.soft_wrap is False
        note = " ".join(str(fallback.query_one("#fallback-note").render()).split())
        assert (
            "print the text where your terminal wraps it, and select it there: "
            f"cat {fallback.saved_to}" in note
        )
        await pilot.press("t")  # "my terminal's copy works": remembered, not shown again
        assert settings.terminal_copy_trusted()
        await pilot.press("c")
        await wait_for(pilot, lambda: len(notes(app)) == 2)
        await pilot.pause(0.1)
        assert len(app.screen_stack) == 1


async def test_in_the_demo_the_saved_copy_is_said_to_go_when_the_demo_ends(
    workspace: Path, state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """run.py demo keeps the session in a scratch folder it removes at the end: the file a copy
    is saved to is not promised as kept."""
    monkeypatch.setenv("OPERATOR_SCRATCH", str(tmp_path))
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(READS))
        await wait_for(pilot, finished_with(app, 2))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyFallbackScreen))
        gone = "(the demo's scratch folder: removed when the demo ends)"
        assert f"Saved in {app.screen.saved_to} {gone}." in notes(app)[-1]
        note = str(app.screen.query_one("#fallback-note").render())
        assert f"It is also saved in {app.screen.saved_to} {gone}." in " ".join(note.split())


async def test_a_system_clipboard_tool_gets_the_copy_too(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied: list[str] = []
    monkeypatch.setattr(
        "operator_app.tui.clipboard.copy_to_system", lambda text: copied.append(text) or "xclip"
    )
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: bool(copied))
        from operator_app.protocol.spec import system_prompt

        assert copied == [system_prompt()] and app.clipboard == system_prompt()
        await wait_for(
            pilot,
            lambda: any(
                "the OPERATOR_CMD system prompt" in text and "xclip" in text for text in notes(app)
            ),
        )
        assert len(app.screen_stack) == 1  # the clipboard worked: no fallback view


async def answer_the_write(pilot: Any, app: Any, key: str) -> None:
    """Paste WRITE, answer its dialog with `key`, and wait for its one result."""
    app.post_message(events.Paste(WRITE))
    await wait_for(pilot, lambda: asks(app))
    await pilot.press(key)
    await wait_for(pilot, finished_with(app, 1))


def finished_with(app: object, count: int):  # type: ignore[no-untyped-def]
    """The shown message ended with `count` results, and the table shows them."""
    return lambda: finished(app) and len(results_of(app)) == count and app.table.row_count == count  # type: ignore[attr-defined]


async def test_a_key_pressed_before_the_dialog_showed_answers_nothing(
    workspace: Path, state: Path
) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        early = events.Key(
            "y", "y"
        )  # read from the terminal now, like a double press of y for an earlier dialog
        app.post_message(events.Paste(WRITE))
        await wait_for(pilot, lambda: asks(app))
        app.post_message(early)  # it reaches the dialog only now
        await pilot.pause(0.2)
        assert isinstance(app.screen, ConsentScreen) and not finished(app)
        await pilot.press("y")  # pressed with the dialog in view: an answer
        await wait_for(pilot, finished_with(app, 1))
        assert results_of(app)[0].ok
