"""The message view marks a streamed message's blocks by scanning only what each update adds:
the same blocks as one scan of the whole text, for about the characters of the text once."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operator_app.protocol.scanner import scan_message
from operator_app.tui.widgets.message_view import BlockSpans
from tests.support.blocks import block
from tests.support.pilot import SIZE, wait_for
from tests.support.tui_app import make_app

ANSWER = (
    "Let me look first.\r\n"
    + block("a1", "fs.read", path="notes/plan.txt")
    + "Then, in a paragraph of its own:\n\n"
    + block("a2", "fs.stat", path="README.md").replace("\n", "\r\n")
    + "OPERATOR_CMD\nversion: 1\nid: a3\naction: fs.list\npath: .\n"
)


def whole_scan_spans(text: str) -> list[tuple[int, int | None]]:
    return [(found.start_line, found.end_line) for found in scan_message(text).blocks]


def last_line(text: str) -> int:
    return text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=12))
def test_any_cutting_of_a_stream_marks_the_blocks_one_scan_of_the_whole_marks(
    cuts: list[int],
) -> None:
    spans = BlockSpans()
    for cut in sorted(cuts):
        spans.of(ANSWER[:cut])
    found = spans.of(ANSWER)
    # The unterminated a3 is open to the end in both: the whole scan closes it at end(), where
    # it becomes ERR_MISSING_END_MARKER, with no end line.
    assert found == whole_scan_spans(ANSWER)
    assert [start for start, _ in found] == [2, 10, 16]


def test_text_that_is_not_the_last_plus_more_is_scanned_afresh() -> None:
    spans = BlockSpans()
    spans.of(ANSWER)
    replaced = block("b1", "fs.read", path="x.txt")
    assert spans.of(replaced) == whole_scan_spans(replaced) == [(1, 6)]
    assert spans.of("") == []


def test_a_long_text_opens_on_the_spec_window_as_the_engine_does() -> None:
    early = block("early", "fs.read", path="notes/plan.txt")
    text = early + ("z" * 99 + "\n") * 2_100 + block("late", "fs.stat", path="README.md")
    assert len(text) > 200_000
    spans = BlockSpans()
    assert spans.of(text) == whole_scan_spans(text)
    assert [start for start, _ in spans.of(text)] == [2_107]  # "early" lies before the window


@pytest.mark.asyncio
async def test_a_streamed_answer_is_scanned_once_by_the_view_however_many_updates(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("")
    prose = "A paragraph of the model's explanation, long enough to matter.\n" * 220
    answer = "".join(block(f"s{n}", "fs.stat", path="README.md") + prose for n in range(12))
    app = make_app(workspace, state, follow=stream)
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
        await pilot.pause()
        view = app.message_view
        assert len(app.current().text) == len(answer) > 150_000
        marked = [
            line.number
            for line in view.lines
            if line.kind == "block" and line.text == "OPERATOR_CMD"
        ]
        assert marked == [start for start, _ in whole_scan_spans(answer)]
        # Redrawn many times while it grew, yet its scanner walked about the text once (a rescan
        # at each update would have walked it about fifteen times).
        assert view._spans._scanner.walked_chars <= len(answer) * 1.05
