"""fs.searchTree against a hostile .gitignore, through the engine API on real folders: a pattern
that makes `re` backtrack exponentially is matched in linear time, git's rules still apply, and
a walk that uses up its .gitignore budget stops with an honest "# truncated:" header."""

from __future__ import annotations

from pathlib import Path

import pytest

from operator_app.engine.boundary import gitignore
from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.executor import Engine
from operator_app.engine.state.session import Session
from operator_app.protocol.results import CommandResult
from tests.support.blocks import block

BACKTRACKER = "*a*a*a*a*a*a*a*a*a*a*a*b"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / ".gitignore").write_text(f"{BACKTRACKER}\n*.log\n!keep.log\n")
    # With `re`, 34 a's took 10 s and every further one about doubles it: 60 would never finish.
    (root / ("a" * 60)).write_text("needle\n")
    (root / "sub" / ("a" * 40 + "b")).write_text("needle\n")  # matches the pattern: ignored
    (root / "x.log").write_text("needle\n")
    (root / "keep.log").write_text("needle\n")
    return root


def search(ws: Path, state: Path) -> CommandResult:
    (result,) = (
        Engine(Workspace(ws), Session(state))
        .run_text(block("t", "fs.searchTree", path=".", query="needle"))
        .results
    )
    return result


def test_a_backtracking_pattern_is_matched_without_backtracking(ws: Path, tmp_path: Path) -> None:
    result = search(ws, tmp_path / "state")
    assert result.ok and not result.truncated, result.summary
    matched = [
        line.split(":")[0]
        for line in (result.details or "").split("\n")
        if not line.startswith("#")
    ]
    assert matched == ["a" * 60, "keep.log"]
    assert "# skipped: 2 ignored by .gitignore" in (result.details or "")


def test_a_walk_past_its_gitignore_budget_stops_and_says_why(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitignore, "GITIGNORE_BUDGET_S", 0.0)
    result = search(ws, tmp_path / "state")
    assert result.ok and result.truncated and "(truncated)" in result.summary
    assert "# truncated: matching .gitignore patterns took over 0 s" in (result.details or "")


def test_without_a_gitignore_there_is_no_budget_to_use_up(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / ".gitignore").unlink()
    monkeypatch.setattr(gitignore, "GITIGNORE_BUDGET_S", 0.0)
    result = search(ws, tmp_path / "state")
    assert result.ok and not result.truncated and result.summary.startswith("4 matches")
