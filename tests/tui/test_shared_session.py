"""The TUI and `operator-app exec` in one session: while the TUI's consent dialog waits for the
person, the session is not held, so exec runs its message at once (and says which message of
the TUI waits) instead of waiting 30 s and exiting 5; the TUI's write still applies afterwards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.blocks import block
from tests.support.pilot import wait_for
from tests.support.tui_app import WRITE, app_asking, finished, results_of

pytestmark = pytest.mark.asyncio

APP = str(Path(sys.executable).with_name("operator-app"))


async def test_exec_runs_while_the_tui_asks_about_a_write(workspace: Path, state: Path) -> None:
    async with app_asking(workspace, state, WRITE) as (app, pilot):
        done = subprocess.run(
            [APP, "exec", "--workspace", str(workspace), "--state-dir", str(state)],
            input=block("x1", "fs.write", path="notes/other.txt", content="from exec"),
            capture_output=True,
            text=True,
            timeout=15,
        )  # the lock's wait is 30 s
        assert done.returncode == 0, done.stderr
        assert "id: x1\nok: false" in done.stdout  # no terminal and no --approve: rejected, at once
        assert "message 1 of this session waits in another Operator process" in done.stderr
        assert "fs.write of notes/plan.txt (id w1)" in done.stderr
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 1)
        assert [(r.id, r.ok) for r in results_of(app)] == [("w1", True)]
    assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
