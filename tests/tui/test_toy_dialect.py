"""A third dialect in the TUI: the toy of tests/support/toy_dialect, registered in one line, has
its block found in a pasted message through its opener, run, listed in the table beside an
OPERATOR_CMD block, and copied back with `c` in its own form. Nothing of the TUI names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pilot import press_copy, wait_for
from tests.support.toy_dialect import toy_registered
from tests.support.tui_app import app_pasted, cell, results_of, table_statuses

pytestmark = pytest.mark.asyncio
MESSAGE = (
    "First the plan: [[toy: read notes/plan.txt]]\n"
    "OPERATOR_CMD\nversion: 1\nid: s1\naction: fs.stat\npath: notes/plan.txt\nEND_OPERATOR_CMD\n"
    "[[toy: read notes/gone.txt]]\n"
)


async def test_a_toy_block_runs_and_is_copied_back_in_its_own_form(
    workspace: Path, state: Path
) -> None:
    (workspace / "notes").mkdir(exist_ok=True)
    (workspace / "notes" / "plan.txt").write_text("Alpha\nBeta\n")
    with toy_registered():
        async with app_pasted(workspace, state, MESSAGE) as (app, pilot):
            assert [(r.id, r.dialect) for r in results_of(app)] == [
                ("toy-1", "toy"),
                ("s1", "operator"),
                ("toy-8", "toy"),
            ]
            await wait_for(pilot, lambda: table_statuses(app) == ["ok", "ok", "failed"])
            # The code once, as the table shows every failure's, its dialect's summary bared.
            assert cell(app, 2, "summary").startswith(
                "ERR_NOT_FOUND: notes/gone.txt does not exist;"
            )
            copied = await press_copy(pilot, app)
    assert copied.startswith(
        "[[toy-answer toy-1 ok]]\nRead notes/plan.txt (11 bytes, 2 lines)\nAlpha\nBeta\n"
    )
    assert "OPERATOR_RESULT\nid: s1\nok: true" in copied
    assert "[[toy-answer toy-8 error=not-found]]\nERR_NOT_FOUND: notes/gone.txt" in copied
