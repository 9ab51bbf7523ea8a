"""What the tests that drive the real app with Textual's Pilot share, the TUI's and the bridge's:
waiting for a condition while the app runs, what `c` copies, the shown message's rows and the
notifications said so far."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SIZE = (160, 45)  # the terminal most of these tests run the app in


async def wait_for(pilot: Any, condition: Callable[[], bool], timeout: float = 15.0) -> None:
    waited = 0.0
    while not condition():
        await pilot.pause(0.02)
        waited += 0.02
        if waited > timeout:
            raise AssertionError("condition not reached in time")


async def press_copy(pilot: Any, app: Any) -> str:
    """Press c and return what was copied, closing the fallback view that shows when no system
    clipboard tool took the text (the tests have none)."""
    from operator_app.tui.screens.copy_fallback import CopyFallbackScreen

    app._clipboard = ""
    await pilot.press("c")
    await wait_for(
        pilot, lambda: bool(app.clipboard) and isinstance(app.screen, CopyFallbackScreen)
    )
    await pilot.press("escape")
    await wait_for(pilot, lambda: len(app.screen_stack) == 1)
    return str(app.clipboard)


def asks(app: Any) -> bool:
    """A consent dialog is up and takes keys (one pressed before it was mounted is not an
    answer)."""
    from operator_app.tui.screens.consent import ConsentScreen

    return isinstance(app.screen, ConsentScreen) and app.screen.ready


def question(app: Any) -> str:
    """The yes/no question on screen ("N answers ended while Operator was not listening..."), or
    "" when none is."""
    from operator_app.tui.screens.confirm import ConfirmScreen

    if not isinstance(app.screen, ConfirmScreen):
        return ""
    return str(app.screen.query_one("#confirm-question").render())


def rows(app: Any) -> list[tuple[str | None, str]]:
    """(command id, status) of the shown message's commands, in message order."""
    state = app.current()
    return [(row.command_id, row.status) for row in state.ordered_rows()] if state else []


def notes(app: Any) -> list[str]:
    """The notifications shown so far, also those whose time on screen is over (kept by the
    app_machine fixture of tests/conftest.py; Textual itself forgets them)."""
    if "notified_in_test" in app.__dict__:
        return [str(message) for message in app.__dict__["notified_in_test"]]
    return [n.message for n in app._notifications]
