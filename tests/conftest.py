"""Set-up for every test: Operator's settings, state and trash live in the test's own temporary
folders, never in the real user's (a test of the TUI, the CLI or the bridge may write settings).

Also the fixtures of the tests that run the app (tests/tui/, tests/bridge/): a scratch copy of the
demo workspace (`workspace`), a state folder (`state`), and `app_machine`, which those two folders'
conftests make autouse: the session trash and no system clipboard tool (the machine running the
tests may have one: never write to it, never read it; a test that wants a clipboard fakes it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo-workspace"


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


@pytest.fixture
def app_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    # (settings and state folders are private to the test already: private_settings)
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
