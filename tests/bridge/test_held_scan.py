"""An answer held for the person (the bridge heard it while Operator was not listening) that the
model goes on writing: the question about it is worded again at each line, with how many blocks
it would run. Each telling scans only what it adds, never the whole answer again, through the
real TUI and bridge spoken to as the extension speaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.blocks import block
from tests.support.bridge_http import bridged_app, paired_extension
from tests.support.pilot import SIZE, question, wait_for
from tests.support.scan_meter import scan_meter

pytestmark = pytest.mark.asyncio

PROSE = "A paragraph of the model's explanation, long enough to matter.\n" * 40


async def test_a_held_answer_that_grows_is_scanned_once_however_often_it_is_counted(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = [PROSE + block(f"r{n}", "fs.stat", path="README.md") for n in range(1, 13)]
    app = bridged_app(workspace, state)
    with scan_meter(monkeypatch) as meter:
        async with app.run_test(size=SIZE) as pilot:
            extension = await paired_extension(pilot, app)
            text = parts[0]
            reply = await extension.message(text, generating=True, resent=True, site="Claude")
            assert reply.json()["state"] == "held"
            await wait_for(pilot, lambda: "(1 block," in question(app))
            for count, part in enumerate(parts[1:], 2):
                text += part
                await extension.message(text, generating=True)
                await wait_for(pilot, lambda count=count: f"({count} blocks," in question(app))
            # The model stops in the middle of a block: it runs (with its error) once run.
            open_block = "OPERATOR_CMD\nversion: 1\nid: r99\n"
            await extension.message(text + open_block, generating=True)
            assert "(12 blocks," in question(app)
            await extension.message(text + open_block, generating=False)
            await wait_for(pilot, lambda: "(13 blocks," in question(app))
            assert "ended while Operator was not listening" in question(app)
            assert app.states == {}  # held: nothing ran
            # Counted at each of its fourteen tellings and worded again each time, yet the
            # answer went through a scanner once (a whole scan at each count: some seven times).
            assert meter.chars <= len(text + open_block) * 1.01
