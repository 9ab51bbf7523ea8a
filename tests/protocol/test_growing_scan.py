"""A growing text's scan (protocol/growing_scan.py): asked at any points of a text's growth, it
finds what one scan of the whole text finds, and it scans each character once however often it
is asked; a text that is not the last plus more is scanned anew, in the spec's window."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operator_app.protocol import GrowingScan, scan_whole
from tests.support.blocks import block
from tests.support.scan_meter import scan_meter

ANSWER = (
    "Let me look first.\r\n"
    + block("a1", "fs.read", path="notes/plan.txt")
    + "Then, in a paragraph of its own:\n\n"
    + block("a2", "fs.stat", path="README.md").replace("\n", "\r\n")
    + "<𝒞=string:file:notes.md>/open notes.md</𝒞>\n"
    + "<𝒞=other:thing>not for Operator</𝒞>\n"
    + "OPERATOR_CMD\nversion: 1\nid: a3\naction: fs.list\npath: ."
)


def spans(blocks: tuple[object, ...]) -> list[tuple[int, int | None, bool]]:
    return [(b.start_line, b.end_line, b.runs) for b in blocks]  # type: ignore[attr-defined]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=12))
def test_any_growth_of_a_text_finds_what_one_scan_of_the_whole_finds(cuts: list[int]) -> None:
    scan = GrowingScan()
    for cut in sorted(cuts):
        scan.blocks(ANSWER[:cut])
    assert len(scan.blocks(ANSWER)) == 4
    assert scan.pending is not None and scan.pending.start_line == 18  # a3, still open
    found = scan.blocks(ANSWER, ended=True)
    assert spans(found) == spans(scan_whole(ANSWER).blocks)
    assert [(start, runs) for start, _, runs in spans(found)] == [
        (2, True),
        (10, True),
        (16, True),
        (17, False),  # another channel's: found, not run
        (18, True),  # ended: its END marker is missing, and it is answered with that error
    ]
    assert scan.pending is None


def test_a_block_whose_end_line_has_no_break_after_it_is_complete_once_the_text_ends() -> None:
    text = block("r1", "fs.read", path="a.txt").rstrip("\n")
    scan = GrowingScan()
    assert scan.blocks(text) == () and scan.pending is not None
    (found,) = scan.blocks(text, ended=True)
    assert found.error is None and (found.start_line, found.end_line) == (1, 6)  # type: ignore[union-attr]


def test_text_that_is_not_the_last_plus_more_is_scanned_afresh() -> None:
    scan = GrowingScan()
    scan.blocks(ANSWER, ended=True)
    replaced = block("b1", "fs.read", path="x.txt")
    assert spans(scan.blocks(replaced)) == [(1, 6, True)]
    assert scan.blocks("") == ()
    # Ended, a text that grows after all is a text of its own too.
    scan.blocks(replaced, ended=True)
    assert len(scan.blocks(replaced + block("b2", "fs.list", path="."))) == 2


def test_a_long_text_opens_on_the_spec_window_as_a_whole_message_does() -> None:
    early = block("early", "fs.read", path="notes/plan.txt")
    text = early + ("z" * 99 + "\n") * 2_100 + block("late", "fs.stat", path="README.md")
    assert len(text) > 200_000
    found = GrowingScan().blocks(text, ended=True)
    assert spans(found) == spans(scan_whole(text).blocks) == [(2_107, 2_112, True)]


def test_each_character_is_scanned_once_however_often_the_text_is_asked_about(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prose = "A paragraph of the model's explanation, long enough to matter.\n" * 40
    text = "".join(block(f"s{n}", "fs.stat", path="README.md") + prose for n in range(20))
    scan = GrowingScan()
    with scan_meter(monkeypatch) as meter:
        for end in range(0, len(text) + 1, len(text) // 50):
            for _ in range(3):  # asked again with nothing new: nothing more is scanned
                scan.blocks(text[:end])
        found = scan.blocks(text, ended=True)
    assert len(found) == 20
    # Fifty looks at the growing text, each asked three times: the text once, not 150 times.
    assert meter.chars == len(text)
