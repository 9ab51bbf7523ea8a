"""Helpers for the TUI tests (import them as `from tui_helpers import ...`)."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from support import b64, block  # noqa: F401 - re-exported for the TUI tests

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo-workspace"
DEMO_MESSAGE = (ROOT / "fixtures" / "messages" / "demo.txt").read_text()
SIZE = (160, 45)

READS = block("r1", "fs.read", path="notes/plan.txt") + block("r2", "fs.list", path=".")
WRITE = block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n"))


def make_app(workspace: Path, state: Path, **kwargs: Any) -> Any:
    from operator_app.tui.app import OperatorApp

    kwargs.setdefault("poll_interval", 0.05)
    kwargs.setdefault("clipboard_interval", 0.05)
    return OperatorApp(workspace=workspace, state_dir=state, **kwargs)


def asks(app: Any) -> bool:
    """A consent dialog is up and takes keys (one pressed before it was mounted is not an answer)."""
    from operator_app.tui.screens.consent import ConsentScreen

    return isinstance(app.screen, ConsentScreen) and app.screen.ready


def results_of(app: Any) -> list[Any]:
    state = app.current()
    return state.results if state else []


def finished(app: Any) -> bool:
    state = app.current()
    return state is not None and state.finished


def notes(app: Any) -> list[str]:
    """The notifications the app raised (the toasts are off under run_test, the record is not)."""
    return [n.message for n in app._notifications]


def exec_output(message: str, tmp: Path) -> str:
    """What `operator-app exec --approve all` prints for the same message on a fresh copy of the demo."""
    from operator_app.cli.main import main as cli_main

    copy = tmp / "exec-ws"
    shutil.copytree(DEMO, copy)
    (tmp / "msg.txt").write_text(message)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["exec", "--workspace", str(copy), "--state-dir", str(tmp / "exec-state"),
                         "--approve", "all", str(tmp / "msg.txt")]) == 0
    return out.getvalue()


async def wait_for(pilot: Any, condition: Callable[[], bool], timeout: float = 15.0) -> None:
    waited = 0.0
    while not condition():
        await pilot.pause(0.02)
        waited += 0.02
        if waited > timeout:
            raise AssertionError("condition not reached in time")


def plain(renderable: Any, width: int = 120) -> str:
    """A Rich renderable (a Static's content) as plain text."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def press_copy(pilot: Any, app: Any) -> str:
    """Press c and return what was copied, closing the fallback view that shows when no system
    clipboard tool took the text (the tests have none)."""
    from operator_app.tui.screens.copy_fallback import CopyFallbackScreen

    app._clipboard = ""
    await pilot.press("c")
    await wait_for(pilot, lambda: bool(app.clipboard) and isinstance(app.screen, CopyFallbackScreen))
    await pilot.press("escape")
    await wait_for(pilot, lambda: len(app.screen_stack) == 1)
    return str(app.clipboard)


def cell(app: Any, row: int, column: str) -> str:
    """The text of one cell of the command table as it is drawn now, by column name (a wrapped
    summary's lines joined by spaces)."""
    return str(app.table.cell_text(row, column))


def table_statuses(app: Any) -> list[str]:
    """The status column of the command table as it is drawn now, without its icon ("ok",
    "failed"...; refreshes are coalesced, so the table can lag the message state by one refresh)."""
    return [cell(app, i, "status").split(" ", 1)[-1] for i in range(app.table.row_count)]
