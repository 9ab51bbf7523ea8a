"""The footer at 80 columns while an answer still streams in and one of its writes was put off:
the most keys it ever shows (e ends the message, d brings the write back) all fit, and none is
drawn over another (the command palette's hint gives its room below 100 columns)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey

from operator_app.tui.keys import MAIN_KEYS
from tests.support.blocks import b64, block
from tests.support.pilot import asks, wait_for
from tests.support.tui_app import make_app

pytestmark = pytest.mark.asyncio


def drawn_keys(app: object) -> list[FooterKey]:
    return sorted(
        (key for key in app.screen.query(FooterKey) if key.display), key=lambda key: key.region.x
    )  # type: ignore[attr-defined]


@pytest.mark.parametrize("width", [80, 120])
async def test_every_key_that_applies_fits_while_a_stream_has_a_write_put_off(
    workspace: Path, state: Path, tmp_path: Path, width: int
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("")
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=(width, 24)) as pilot:
        stream.write_text(
            "First:\n"
            + block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("x\n"))
            + "OPERATOR_CMD\nversion: 1\nid: w2\n"
        )
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: len(app.screen_stack) == 1 and app.check_action("decide", ()) is True
        )
        await pilot.pause(0.2)
        keys = drawn_keys(app)
        shown = {key.action.removeprefix("app.") for key in keys if key.region.right <= width}
        wanted = {
            key.action for key in MAIN_KEYS if app.check_action(key.action, ()) is not False
        } | {"quit", "help"}
        assert {"end_follow", "decide"} <= wanted
        assert wanted <= shown, wanted - shown
        for left, right in itertools.pairwise(keys):
            assert left.region.right <= right.region.x, (
                f"{left.description!r} is drawn under {right.description!r}"
            )
        palette_hint = [key for key in keys if key.has_class("-command-palette")]
        assert bool(palette_hint) == (width >= 100)
