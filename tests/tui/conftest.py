"""Shared set-up for the TUI tests: a scratch copy of the demo workspace, a private state and
config folder, and a helper that waits for a condition while the app runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tui_helpers import DEMO


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(folder))
    monkeypatch.setenv("OPERATOR_TRASH", "session")
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"
