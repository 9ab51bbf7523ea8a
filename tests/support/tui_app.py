"""The TUI started on a message under Pilot, and its state read back, for the TUI tests."""

from __future__ import annotations

import io
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, redirect_stdout
from pathlib import Path
from typing import Any

from tests.support.blocks import b64, block
from tests.support.pilot import SIZE, asks, wait_for

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo-workspace"
DEMO_MESSAGE = (ROOT / "fixtures" / "messages" / "demo.txt").read_text()

READS = block("r1", "fs.read", path="notes/plan.txt") + block("r2", "fs.list", path=".")
WRITE = block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n"))


def make_app(workspace: Path, state: Path, **kwargs: Any) -> Any:
    from operator_app.tui.app import OperatorApp

    kwargs.setdefault("poll_interval", 0.05)
    kwargs.setdefault("clipboard_interval", 0.05)
    return OperatorApp(workspace=workspace, state_dir=state, **kwargs)


@asynccontextmanager
async def app_pasted(
    workspace: Path,
    state: Path,
    message: str,
    *,
    until: Callable[[Any], bool] | None = None,
    size: tuple[int, int] = SIZE,
    **kwargs: Any,
) -> AsyncIterator[tuple[Any, Any]]:
    """The app with `message` pasted, once `until(app)` holds (by default: the message is
    finished): (app, pilot)."""
    from textual import events

    app = make_app(workspace, state, **kwargs)
    async with app.run_test(size=size) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: (until or finished)(app))
        yield app, pilot


def app_asking(
    workspace: Path, state: Path, message: str, size: tuple[int, int] = SIZE, **kwargs: Any
) -> AbstractAsyncContextManager[tuple[Any, Any]]:
    """The app with `message` pasted and the consent dialog of its first write up, taking keys."""
    return app_pasted(workspace, state, message, until=asks, size=size, **kwargs)


def results_of(app: Any) -> list[Any]:
    state = app.current()
    return state.results if state else []


def finished(app: Any) -> bool:
    state = app.current()
    return state is not None and state.finished


def exec_output(message: str, tmp: Path) -> str:
    """What `operator-app exec --approve all` prints for the same message on a fresh copy of the
    demo."""
    from operator_app.cli.main import main as cli_main

    copy = tmp / "exec-ws"
    shutil.copytree(DEMO, copy)
    (tmp / "msg.txt").write_text(message)
    out = io.StringIO()
    with redirect_stdout(out):
        assert (
            cli_main(
                [
                    "exec",
                    "--workspace",
                    str(copy),
                    "--state-dir",
                    str(tmp / "exec-state"),
                    "--approve",
                    "all",
                    str(tmp / "msg.txt"),
                ]
            )
            == 0
        )
    return out.getvalue()


def plain(renderable: Any, width: int = 120) -> str:
    """A Rich renderable (a Static's content) as plain text."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def cell(app: Any, row: int, column: str) -> str:
    """The text of one cell of the command table as it is drawn now, by column name (a wrapped
    summary's lines joined by spaces)."""
    return str(app.table.cell_text(row, column))


def table_statuses(app: Any) -> list[str]:
    """The status column of the command table as it is drawn now, without its icon ("ok",
    "failed"...; refreshes are coalesced, so the table can lag the message state by one refresh)."""
    return [cell(app, i, "status").split(" ", 1)[-1] for i in range(app.table.row_count)]
