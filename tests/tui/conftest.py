"""Shared set-up for the TUI tests: a scratch copy of the demo workspace, the session trash,
and no system clipboard tool (each test that wants one fakes it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tui_helpers import DEMO


@pytest.fixture(autouse=True)
def private_config(private_settings: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # (settings and state folders are private to the test: tests/conftest.py)
    monkeypatch.setenv("OPERATOR_TRASH", "session")
    # The machine running the tests may have a clipboard: never write to it, never read it.
    monkeypatch.setattr("operator_app.tui.clipboard._copy_commands", lambda: [])
    monkeypatch.setattr("operator_app.tui.clipboard._paste_commands", lambda: [])
    return private_settings


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"
