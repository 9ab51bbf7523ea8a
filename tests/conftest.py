"""Set-up for every test: Operator's settings, state and trash live in the test's own temporary
folders, never in the real user's (a test of the TUI, the CLI or the bridge may write settings)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(folder))
    # A workspace opened without --state-dir keeps its session under the user state folder: a
    # temporary one here, never the real home's.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.delenv(
        "OPERATOR_STATE_DIR", raising=False
    )  # (a person's own would take the place of that)
    return folder
