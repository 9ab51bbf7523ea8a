"""A sandbox with a gap is said to be one (issue 34): where libseccomp is missing, commands still
run sandboxed (far better than not at all), but the command's dialog says, beside "sandboxed",
what is not refused; so does the terminal's question of `exec`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events

from operator_app.engine.shell.sandbox import find_sandbox
from tests.support.blocks import b64, block
from tests.support.pilot import wait_for
from tests.support.tui_app import make_app
from tests.tui.test_commands import asks_to_run, needs_sandbox, shown

pytestmark = pytest.mark.asyncio

GAP = "no seccomp filter: libseccomp is not installed (apt install libseccomp2)"


def run_plan(root: Path, gaps: tuple[str, ...]) -> Any:
    from operator_app.engine import WritePlan
    from operator_app.engine.boundary.target import Target
    from operator_app.engine.changes.plan import CommandRun

    return WritePlan(
        action="shell.run",
        command_id="g1",
        target=Target(".", root, ()),
        kind="run",
        base_hash=None,
        new_bytes=None,
        diff="pytest -q",
        added=0,
        removed=0,
        summary="run pytest -q",
        run=CommandRun(
            script="pytest -q",
            cwd=".",
            timeout_s=120,
            sandboxed=True,
            network=False,
            sandbox_gaps=gaps,
        ),
    )


async def test_the_dialog_says_what_the_sandbox_lacks(tmp_path: Path) -> None:
    from operator_app.engine import WriteOutlook
    from operator_app.tui.screens.command_consent import CommandConsentScreen

    (tmp_path / "ws").mkdir()
    app = make_app(tmp_path / "ws", tmp_path / "st")
    async with app.run_test(size=(160, 40)) as pilot:
        for gaps in ((), (GAP,)):
            app.push_screen(
                CommandConsentScreen(
                    run_plan(tmp_path / "ws", gaps), 1, WriteOutlook(1, 1, (), False)
                )
            )
            await wait_for(pilot, lambda: asks_to_run(app))
            text = shown(app)
            assert "sandboxed" in text
            assert ("but " + GAP in text) is bool(gaps), text
            app.pop_screen()
            await pilot.pause()


@pytest.mark.xfail(
    strict=True,
    reason=(
        "run.py builds the command's CommandRun and must hand it the sandbox's gaps "
        "(sandbox_gaps=sandbox.gaps); wired after issue 32's restructuring of run.py"
    ),
)
async def test_without_the_filter_a_commands_dialog_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_sandbox()
    monkeypatch.setenv("OPERATOR_SANDBOX", "nofilter")
    assert find_sandbox().gaps
    (tmp_path / "ws").mkdir()
    app = make_app(tmp_path / "ws", tmp_path / "st")
    async with app.run_test(size=(160, 40)) as pilot:
        app.post_message(events.Paste(block("c1", "shell.run", command_b64=b64("true"))))
        await wait_for(pilot, lambda: asks_to_run(app))
        assert "but no seccomp filter" in shown(app)
