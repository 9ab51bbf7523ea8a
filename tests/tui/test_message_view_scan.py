"""The message view marks a message's blocks where the engine's one scan of it found them
(BlocksFound), so no message is scanned again to be shown: not a streamed answer redrawn at each
update, not a pasted one shown again with [ and ], not a session's messages after a restart. The
meter counts every character handed to a message scanner, the engine's own included."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from operator_app.protocol import scan_whole
from tests.support.blocks import block
from tests.support.pilot import SIZE, wait_for
from tests.support.scan_meter import scan_meter
from tests.support.tui_app import make_app

PROSE = "A paragraph of the model's explanation, long enough to matter.\n" * 220


def marked(app: object) -> list[int]:
    """The lines the view marks as a block's first (its OPERATOR_CMD line)."""
    return [
        line.number
        for line in app.message_view.lines  # type: ignore[attr-defined]
        if line.kind in ("block", "invalid") and line.text == "OPERATOR_CMD"
    ]


def first_lines(text: str) -> list[int]:
    return [found.start_line for found in scan_whole(text).blocks]


@pytest.mark.asyncio
async def test_a_streamed_answer_is_scanned_once_however_many_times_it_is_drawn(
    workspace: Path, state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("")
    answer = "".join(block(f"s{n}", "fs.stat", path="README.md") + PROSE for n in range(12))
    expected = first_lines(answer)  # (before the meter: this scan is the test's own)
    app = make_app(workspace, state, follow=stream)
    with scan_meter(monkeypatch) as meter:
        async with app.run_test(size=SIZE) as pilot:
            step = len(answer) // 30
            for start in range(0, len(answer), step):
                with stream.open("a", encoding="utf-8") as handle:
                    handle.write(answer[start : start + step])
                await wait_for(
                    pilot,
                    lambda start=start: (
                        app.current() is not None
                        and len(app.current().text) >= min(start + step, len(answer))
                    ),
                )
                await pilot.pause()
            await wait_for(pilot, lambda: len(app.current().results) == 12)
            await wait_for(pilot, lambda: len(marked(app)) == 12)
            assert len(app.current().text) == len(answer) > 150_000
            assert marked(app) == expected
            # Drawn some thirty times while it grew, yet the text went through a scanner once:
            # the engine's (a scan of the view's own besides made it twice, a rescan at each
            # update fifteen times).
            assert meter.chars <= len(answer) * 1.01


@pytest.mark.asyncio
async def test_a_pasted_message_is_scanned_once_however_often_it_is_shown(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = "".join(block(f"a{n}", "fs.stat", path="README.md") + PROSE for n in range(4))
    broken = "OPERATOR_CMD\nversion: 1\nid: b9\naction: fs.reed\npath: x\nEND_OPERATOR_CMD\n"
    second = block("b1", "fs.list", path=".") + PROSE + broken
    shows = {1: first_lines(first), 2: first_lines(second)}  # (the test's own scans)
    app = make_app(workspace, state)
    with scan_meter(monkeypatch) as meter:
        async with app.run_test(size=SIZE) as pilot:
            for number, text in ((1, first), (2, second)):
                app.post_message(events.Paste(text))
                await wait_for(
                    pilot,
                    lambda number=number: (
                        app.current() is not None
                        and app.current().number == number
                        and app.current().finished
                    ),
                )
            await wait_for(pilot, lambda: marked(app) == shows[2])
            for _ in range(3):
                await pilot.press("left_square_bracket")
                await wait_for(pilot, lambda: app.current().number == 1)
                await wait_for(pilot, lambda: marked(app) == shows[1])
                await pilot.press("right_square_bracket")
                await wait_for(pilot, lambda: app.current().number == 2)
                await wait_for(pilot, lambda: marked(app) == shows[2])
            # The invalid block is marked as one, its error under it.
            kinds = {line.kind for line in app.message_view.lines}
            assert {"block", "invalid", "note-error"} <= kinds
            assert meter.chars == len(first) + len(second)


@pytest.mark.asyncio
async def test_after_a_restart_each_message_is_scanned_once_for_its_rows_and_its_view(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [
        block("h1", "fs.stat", path="README.md") + PROSE,
        PROSE + block("h2", "fs.list", path=".") + block("h1", "fs.stat", path="README.md"),
    ]
    shows = [first_lines(text) for text in texts]  # (the test's own scans)
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        for number, text in enumerate(texts, 1):
            app.post_message(events.Paste(text))
            await wait_for(
                pilot,
                lambda number=number: (
                    app.current() is not None
                    and app.current().number == number
                    and app.current().finished
                ),
            )
    again = make_app(workspace, state)
    with scan_meter(monkeypatch) as meter:
        async with again.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: len(again.states) == 2 and marked(again) != [])
            assert marked(again) == shows[1]
            # The repeat of h1 has its row (from the same scan that marks the view).
            assert [row.status for row in again.current().ordered_rows()] == ["ok", "duplicate"]
            await pilot.press("left_square_bracket")
            await wait_for(pilot, lambda: marked(again) == shows[0])
            await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: marked(again) == shows[1])
            assert meter.chars == len(texts[0]) + len(texts[1])
