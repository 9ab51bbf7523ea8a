"""The workspace picker: typing edits the path where the cursor is (it never replaces the path
unasked), and the last 10 workspaces are listed, most recent first, with their sessions'
message counts; choosing one opens it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, OptionList

from operator_app import settings
from operator_app.tui.screens.picker import PickerScreen
from tests.support.pilot import SIZE, wait_for
from tests.support.tui_app import READS, app_pasted, finished, make_app, plain

pytestmark = pytest.mark.asyncio


async def test_typing_after_moving_the_cursor_edits_the_path(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        field = app.screen.query_one("#picker-input", Input)
        start = field.value
        assert app.focused is field and start == str(workspace.resolve())
        await pilot.press("2")  # at the end: appended, not a path of its own
        assert field.value == start + "2"
        await pilot.press("backspace", "left", "left", "x")
        assert field.value == start[:-2] + "x" + start[-2:]
        await pilot.press("escape")


def recent_lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    options = app.screen.query_one("#picker-recent", OptionList)
    return [
        " ".join(plain(options.get_option_at_index(i).prompt).split())
        for i in range(options.option_count)
    ]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$HOME is the test's folder: the picker names the workspaces in it ~/ws, ~/old00..., as it
    names any folder under the person's home, on one line whatever the machine's temp folder."""
    monkeypatch.setenv("HOME", str(tmp_path.resolve()))
    return tmp_path


async def test_the_picker_lists_the_last_ten_workspaces_with_their_message_counts(
    workspace: Path, state: Path, home: Path
) -> None:
    tmp_path = home
    older = []
    for n in range(11):  # opened before: the oldest drops off the list of ten
        folder = tmp_path / f"old{n:02d}"
        folder.mkdir()
        settings.remember_workspace(folder)
        older.append(folder)
    async with app_pasted(workspace, state, READS, size=(120, 50)) as (app, pilot):
        app.post_message(events.Paste(READS.replace("r1", "r3").replace("r2", "r4")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await wait_for(pilot, lambda: "2 messages" in recent_lines(app)[0])
        lines = recent_lines(app)
        assert len(lines) == 10
        assert lines[0] == "~/ws 2 messages open now"
        assert [line.split()[0] for line in lines[1:]] == [
            f"~/{folder.name}" for folder in reversed(older[2:])
        ]
        await wait_for(
            pilot, lambda: all(line.endswith("0 messages") for line in recent_lines(app)[1:])
        )
        recent = app.screen.query_one("#picker-recent", OptionList)
        recent.focus()
        recent.highlighted = 1
        await pilot.press("enter")  # opens it at once
        await wait_for(
            pilot, lambda: app.workspace is not None and app.workspace.root == older[-1].resolve()
        )
    assert settings.recent_workspaces()[:2] == [older[-1].resolve(), workspace.resolve()]


async def test_a_recent_workspace_that_is_gone_is_shown_as_gone_and_cannot_be_chosen(
    workspace: Path, state: Path, home: Path
) -> None:
    settings.remember_workspace(home / "was-here")
    app = make_app(workspace, state)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        lines = recent_lines(app)
        assert lines[1] == "~/was-here no longer there"
        assert app.screen.query_one("#picker-recent", OptionList).get_option_at_index(1).disabled
