"""The keys of the main screen are one table (operator_app/tui/keys.py): each key's action runs on
the one controller that has it, and a key whose action no controller has (or two have) stops the
app from starting rather than doing nothing when pressed."""

from __future__ import annotations

from pathlib import Path

import pytest

from operator_app.tui import app as app_module
from operator_app.tui.keys import KEY_OF_ACTION, MAIN_KEYS, Key
from tests.support.pilot import SIZE, notes, wait_for
from tests.support.tui_app import make_app

OWNERS = {
    "copy_results": "copy_control",
    "copy_prompt": "copy_control",
    "undo": "undo_control",
    "pick_workspace": "workspace_session",
    "previous_message": "panes",
    "next_message": "panes",
    "toggle_bridge": "bridge_control",
    "end_follow": "message_flow",
    "decide": "waiting_write",
    "stop_command": "running_command",
}


@pytest.mark.asyncio
async def test_each_key_runs_its_action_on_the_controller_that_owns_it(
    workspace: Path, state: Path
) -> None:
    app = make_app(workspace, state)
    assert set(OWNERS) | {"help"} == set(KEY_OF_ACTION)
    for key in MAIN_KEYS:
        action = getattr(app, f"action_{key.action}")
        owner = app if key.action == "help" else getattr(app, OWNERS[key.action])
        assert action.__self__ is owner, key.display
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("left_square_bracket")  # refused: the table's reason is said
        await wait_for(pilot, lambda: bool(notes(app)))
        assert notes(app)[-1] == KEY_OF_ACTION["previous_message"].why_not(app.now())


def test_a_key_no_controller_has_stops_the_app_at_once(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = Key(key="x", display="x", action="nowhere", label="X", help="x", short="X")
    monkeypatch.setattr(app_module, "MAIN_KEYS", (*MAIN_KEYS, extra))
    with pytest.raises(TypeError, match="x: action_nowhere on one controller, not 0"):
        make_app(workspace, state)


def test_a_key_two_controllers_have_stops_the_app_at_once(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        app_module.UndoControl, "action_copy_results", lambda self: None, raising=False
    )
    with pytest.raises(TypeError, match="c: action_copy_results on one controller, not 2"):
        make_app(workspace, state)
