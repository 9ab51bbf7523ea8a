"""Helpers for the TUI tests (import them as `from tui_helpers import ...`)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

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


def block(cid: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {cid}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join(lines + ["END_OPERATOR_CMD"]) + "\n"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()
