"""Fixtures for the tests that run the app (the TUI, and the TUI with its bridge): a scratch copy
of the demo workspace, a state folder, the session trash, and no system clipboard tool (the
machine running the tests may have one: never write to it, never read it; a test that wants a
clipboard fakes it). A conftest takes them by importing them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo-workspace"


@pytest.fixture(autouse=True)
def app_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    # (settings and state folders are private to the test already: tests/conftest.py)
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
