"""Helpers for the TUI tests (import them as `from tui_helpers import ...`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support import b64, block  # noqa: F401 - re-exported for the TUI tests

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo-workspace"
DEMO_MESSAGE = (ROOT / "fixtures" / "messages" / "demo.txt").read_text()


async def wait_for(pilot: object, condition: Callable[[], bool], timeout: float = 15.0) -> None:
    waited = 0.0
    while not condition():
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        waited += 0.05
        if waited > timeout:
            raise AssertionError("condition not reached in time")
