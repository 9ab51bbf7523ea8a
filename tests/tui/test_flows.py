"""The TUI's flows under Textual's Pilot, on real temporary folders: paste to results, consent
(approve, reject, approve the rest), conflict, undo, copy, follow mode, clipboard watch, the
workspace picker, and a restart that keeps the session."""

from __future__ import annotations

import io
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from operator_app.cli.main import main as cli_main
from operator_app.tui.app import OperatorApp
from operator_app.tui.screens.consent import ConsentScreen
from operator_app.tui.screens.picker import PickerScreen
from tui_helpers import DEMO, DEMO_MESSAGE, b64, block, wait_for

pytestmark = pytest.mark.asyncio

READS = block("r1", "fs.read", path="notes/plan.txt") + block("r2", "fs.list", path=".")
WRITE = block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n"))


def make_app(workspace: Path, state: Path, **kwargs: object) -> OperatorApp:
    return OperatorApp(workspace=workspace, state_dir=state, poll_interval=0.05, **kwargs)  # type: ignore[arg-type]


def results_of(app: OperatorApp) -> list:
    state = app.states[app.view_number] if app.view_number is not None else None
    return state.results if state else []


def finished(app: OperatorApp) -> bool:
    return app.view_number is not None and app.states[app.view_number].finished


def exec_output(message: str, workspace: Path, tmp: Path) -> str:
    """What `operator-app exec --approve all` prints for the same message on a fresh copy."""
    copy = tmp / "exec-ws"
    shutil.copytree(DEMO, copy)
    (tmp / "msg.txt").write_text(message)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["exec", "--workspace", str(copy), "--state-dir", str(tmp / "exec-state"),
                         "--approve", "all", str(tmp / "msg.txt")]) == 0
    return out.getvalue()


async def test_paste_runs_reads_at_once_and_shows_them(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        assert app.query_one("#welcome").display
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        assert [r.id for r in results_of(app)] == ["r1", "r2"]
        assert all(r.ok for r in results_of(app))
        assert not app.query_one("#welcome").display
        table = app.query_one("#commands")
        await wait_for(pilot, lambda: table.row_count == 2)  # the table refresh is coalesced
        assert len(app.screen_stack) == 1  # reads never ask


async def test_approve_applies_the_write(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(WRITE + block("v1", "fs.readSlice", path="notes/plan.txt")))
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
        assert "+Gamma" in app.screen.plan.diff  # type: ignore[attr-defined]
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
        verify = results_of(app)[1]
        assert "3: Gamma" in (verify.details or "")  # the verifying read ran after the write


async def test_reject_leaves_the_file_and_reports_err_rejected(workspace: Path, state: Path) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(WRITE))
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))
        (result,) = results_of(app)
        assert result.error_code == "ERR_REJECTED"
        assert (workspace / "notes" / "plan.txt").read_bytes() == before


async def test_approve_the_rest_asks_once_per_message(workspace: Path, state: Path) -> None:
    message = WRITE + block("w2", "fs.write", path="notes/new.txt", content="hello")
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
        await pilot.press("a")
        await wait_for(pilot, lambda: finished(app))
        assert [r.ok for r in results_of(app)] == [True, True]
        assert (workspace / "notes" / "new.txt").read_text() == "hello"
        # The next message asks again.
        app.post_message(events.Paste(block("w3", "fs.write", path="notes/other.txt", content="x")))
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
        await pilot.press("n")


async def test_a_file_changed_while_the_dialog_is_open_is_a_conflict(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(WRITE))
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
        (workspace / "notes" / "plan.txt").write_text("changed behind our back\n")
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        (result,) = results_of(app)
        assert result.error_code == "ERR_CONFLICT" and result.status == "conflict"
        assert app.states[app.view_number].rows[result.line].status == "failed ERR_CONFLICT"
        assert (workspace / "notes" / "plan.txt").read_text() == "changed behind our back\n"


async def test_undo_restores_the_file_after_confirmation(workspace: Path, state: Path) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(WRITE))
        await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        assert (workspace / "notes" / "plan.txt").read_bytes() != before
        await pilot.press("u")
        await wait_for(pilot, lambda: len(app.screen_stack) > 1)
        await pilot.press("y")
        await wait_for(pilot, lambda: (workspace / "notes" / "plan.txt").read_bytes() == before)


async def test_copy_gives_exactly_what_exec_prints(workspace: Path, state: Path, tmp_path: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(DEMO_MESSAGE))
        for _ in range(2):
            await wait_for(pilot, lambda: isinstance(app.screen, ConsentScreen))
            await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        assert app.clipboard == exec_output(DEMO_MESSAGE, workspace, tmp_path)
        assert app.clipboard.count("END_OPERATOR_RESULT") == 7


async def test_follow_mode_runs_blocks_as_they_arrive(workspace: Path, state: Path, tmp_path: Path) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("")
    app = make_app(workspace, state, follow=stream)
    first = block("f1", "fs.read", path="notes/plan.txt")
    async with app.run_test(size=(160, 45)) as pilot:
        with stream.open("a") as handle:
            handle.write("Reading the plan.\n" + first[:25])
            handle.flush()
            await pilot.pause(0.3)
            handle.write(first[25:] + "OPERATOR_CMD\nversion: 1\nid: f2\n")
            handle.flush()
        await wait_for(pilot, lambda: app.view_number is not None and any(r.id == "f1" for r in results_of(app)))
        state_now = app.states[app.view_number]
        await wait_for(pilot, lambda: state_now.pending is not None)
        assert state_now.pending[1] == "f2"
        await pilot.press("e")  # end the message: the open block becomes ERR_MISSING_END_MARKER
        await wait_for(pilot, lambda: state_now.finished)
        assert [(r.id, r.error_code) for r in state_now.results] == [("f1", None), ("f2", "ERR_MISSING_END_MARKER")]


class FakeClipboard:
    def __init__(self) -> None:
        self.text: str | None = "something old"

    def read(self) -> str | None:
        return self.text


async def test_clipboard_watch_takes_new_commands_but_not_our_own_copies(workspace: Path, state: Path) -> None:
    fake = FakeClipboard()
    app = make_app(workspace, state, watch_clipboard=True, clipboard_source=fake)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause(0.2)
        assert not app.states  # what was there before is not a new message
        fake.text = READS
        await wait_for(pilot, lambda: finished(app))
        assert [r.id for r in results_of(app)] == ["r1", "r2"]
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        fake.text = app.clipboard  # Operator's own copy holds no OPERATOR_CMD, but must be ignored anyway
        fake.text = "prose\n" + READS.replace("r1", "r9").replace("r2", "r8")
        await wait_for(pilot, lambda: len(app.states) == 2 and finished(app))
        assert [r.id for r in results_of(app)] == ["r9", "r8"]


async def test_workspace_picker_on_first_use_and_remembered(tmp_path: Path, workspace: Path) -> None:
    app = OperatorApp(workspace=None, state_dir=None)
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        field = app.screen.query_one("#picker-input", Input)
        field.value = str(workspace)
        field.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.workspace is not None)
        assert app.workspace.root == workspace.resolve()
        assert str(workspace.resolve()) in app.sub_title
    again = OperatorApp(workspace=None, state_dir=None)
    async with again.run_test(size=(160, 45)) as pilot:
        await pilot.pause(0.2)
        assert again.workspace is not None and again.workspace.root == workspace.resolve()


async def test_a_restart_keeps_the_session(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        copied = app.clipboard
    again = make_app(workspace, state)
    async with again.run_test(size=(160, 45)) as pilot:
        await pilot.pause(0.1)
        assert list(again.states) == [1]
        assert [r.id for r in results_of(again)] == ["r1", "r2"]
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(again.clipboard))
        assert again.clipboard == copied


async def test_history_browses_earlier_messages(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        app.post_message(events.Paste(block("r3", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        await pilot.press("left_square_bracket")
        assert app.view_number == 1 and [r.id for r in results_of(app)] == ["r1", "r2"]
        await pilot.press("right_square_bracket")
        assert app.view_number == 2


async def test_a_large_paste_of_100_blocks_gets_every_read_result(workspace: Path, state: Path) -> None:
    filler = "Some prose between the commands, the way chat models write it.\n" * 30
    message = "".join(filler + block(f"r{n}", "fs.readSlice", path="notes/plan.txt") for n in range(100))
    message = message[-200_000:] if len(message) > 200_000 else message
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 45)) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: finished(app))
        assert len(results_of(app)) == 100 and all(r.ok for r in results_of(app))


async def test_help_lists_keys_and_every_action(workspace: Path, state: Path) -> None:
    from operator_app.protocol.commands import ACTIONS
    from operator_app.tui.screens.help import HelpScreen

    app = make_app(workspace, state)
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = app.export_screenshot()
        for action in ACTIONS:
            assert action in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
