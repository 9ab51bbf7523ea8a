"""Set-up for the bridge's tests: a scratch copy of the demo workspace, a state folder, and no
system clipboard (the TUI's copy must not reach the machine's)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo-workspace"


@pytest.fixture(autouse=True)
def no_system_clipboard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")
    monkeypatch.setattr("operator_app.tui.clipboard._copy_commands", lambda: [])
    monkeypatch.setattr("operator_app.tui.clipboard._paste_commands", lambda: [])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"
