"""Shared set-up for the TUI tests: a scratch copy of the demo workspace, the session trash,
and no system clipboard tool (each test that wants one fakes it): tests/app_fixtures.py."""

from app_fixtures import app_machine, state, workspace  # noqa: F401 - fixtures, taken by name
