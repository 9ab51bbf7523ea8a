"""Set-up for the TUI tests: every one runs on the app machine of tests/conftest.py (the session
trash, no system clipboard tool); `workspace` and `state` come from there too."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _on_the_app_machine(app_machine: None) -> None:
    """Each test here gets `app_machine` without naming it."""
