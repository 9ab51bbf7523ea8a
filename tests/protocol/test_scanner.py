"""The scanner on its own: marker lines, look-alikes, result blocks, limits, line endings and the
200,000-character window, as the spec and docs/design.md decisions 1-4 and 13 say."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from operator_app.protocol.errors import ErrorCode
from operator_app.protocol.grammar import MAX_BLOCK_CHARS, MAX_BLOCK_LINES, WINDOW_CHARS
from operator_app.protocol.scanner import RawBlock, Scanner, scan_message

READ = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"


def codes(text: str) -> list[ErrorCode | None]:
    return [b.error.code if b.error else None for b in scan_message(text).blocks]


def test_markers_alone_with_surrounding_whitespace() -> None:
    text = (
        "  OPERATOR_CMD \t\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\n"
        "\tEND_OPERATOR_CMD  \n"
    )
    (found,) = scan_message(text).blocks
    assert (
        found.error is None
        and found.id_hint == "r1"
        and found.start_line == 1
        and found.end_line == 6
    )


@pytest.mark.parametrize(
    "start",
    [
        "```OPERATOR_CMD",
        "> OPERATOR_CMD",
        "OPERATOR_CMD version: 1",
        "OPERATOR_CMD:",
        "**OPERATOR_CMD**",
    ],
)
def test_start_marker_not_alone(start: str) -> None:
    (found,) = scan_message(
        start + "\nversion: 1\nid: r1\naction: fs.read\nEND_OPERATOR_CMD\n"
    ).blocks
    assert (
        found.error is not None
        and found.error.code is ErrorCode.ERR_MARKER_NOT_ALONE
        and found.id_hint == "r1"
    )


def test_end_marker_not_alone_spoils_its_block() -> None:
    assert codes(READ.replace("END_OPERATOR_CMD", "- END_OPERATOR_CMD")) == [
        ErrorCode.ERR_MARKER_NOT_ALONE
    ]


def test_marker_words_in_prose_and_lowercase_look_alikes_are_nothing() -> None:
    text = "I will send an OPERATOR_CMD block.\noperator_cmd\nOPERATOR_CMDS are blocks\n" + READ
    assert codes(text) == [None]
    assert (
        codes(READ.replace("OPERATOR_CMD\nversion", "operator_cmd\nversion")) == []
    )  # no start marker at all


def test_nested_block_spoils_the_outer_one() -> None:
    text = "OPERATOR_CMD\nversion: 1\nid: a\nOPERATOR_CMD\nid: b\nEND_OPERATOR_CMD\n"
    (found,) = scan_message(text).blocks
    assert (
        found.error is not None
        and found.error.code is ErrorCode.ERR_NESTED_BLOCK
        and found.id_hint == "a"
    )


def test_result_blocks_in_the_message_are_skipped() -> None:
    echoed = "OPERATOR_RESULT\nid: old\nok: true\nsummary: OPERATOR_CMD\nEND_OPERATOR_RESULT\n"
    assert [b.id_hint for b in scan_message(echoed + READ).blocks] == ["r1"]


def test_a_command_inside_a_result_block_is_reported_not_run() -> None:
    """Nothing inside OPERATOR_RESULT ... END_OPERATOR_RESULT is ever executed, even a whole
    command."""
    text = "OPERATOR_RESULT\nid: old\nok: true\n" + READ + "END_OPERATOR_RESULT\n"
    (found,) = scan_message(text).blocks
    assert (
        found.id_hint == "r1"
        and found.error is not None
        and found.error.code is ErrorCode.ERR_NESTED_BLOCK
    )
    assert "inside the OPERATOR_RESULT block opened at line 1" in found.error.message


def test_an_unclosed_result_block_does_not_swallow_later_commands() -> None:
    scan = scan_message("OPERATOR_RESULT\nid: old\n" + READ + READ.replace("r1", "r2"))
    assert [(b.id_hint, b.error.code if b.error else None) for b in scan.blocks] == [
        ("r1", ErrorCode.ERR_NESTED_BLOCK),
        ("r2", None),
    ]


@pytest.mark.parametrize(
    "start",
    [
        "1. OPERATOR_CMD",
        "12) OPERATOR_CMD",
        "\u200bOPERATOR_CMD",
        "\ufeffOPERATOR_CMD",
        "OPERATOR_CMD\u200d",
        "\u2060OPERATOR_CMD",
    ],
)
def test_numbered_and_invisible_prefixes_are_not_alone_rather_than_prose(start: str) -> None:
    """Taken for prose, such a start marker would drop its command without any result."""
    (found,) = scan_message("Intro.\n" + READ.replace("OPERATOR_CMD\n", start + "\n", 1)).blocks
    assert (
        found.error is not None
        and found.error.code is ErrorCode.ERR_MARKER_NOT_ALONE
        and found.id_hint == "r1"
    )
    if start.strip("0123456789.) ") != "OPERATOR_CMD":
        assert "invisible character U+" in found.error.message


@pytest.mark.parametrize(
    "start, end",
    [
        ("<OPERATOR_CMD>", "</OPERATOR_CMD>"),
        ("[OPERATOR_CMD]", "[END_OPERATOR_CMD]"),
        ("// OPERATOR_CMD", "// END_OPERATOR_CMD"),
    ],
)
def test_tag_and_bracket_markers_are_not_alone_rather_than_prose(start: str, end: str) -> None:
    text = READ.replace("OPERATOR_CMD\n", start + "\n", 1).replace("END_OPERATOR_CMD\n", end + "\n")
    (found,) = scan_message(text).blocks
    assert (
        found.error is not None
        and found.error.code is ErrorCode.ERR_MARKER_NOT_ALONE
        and found.id_hint == "r1"
    )


@pytest.mark.parametrize(
    "prose", ["2 OPERATOR_CMD blocks follow", "1234. OPERATOR_CMD", "Use OPERATOR_CMD blocks"]
)
def test_numbers_and_words_before_the_token_are_still_prose(prose: str) -> None:
    assert codes(prose + "\n" + READ) == [None]


def test_a_byte_order_mark_opening_the_message_is_not_text() -> None:
    assert codes("\ufeff" + READ) == [None]
    scanner = Scanner()
    events = scanner.feed("\ufeff") + scanner.feed(READ) + scanner.end()
    assert [(e.id_hint, e.error) for e in events] == [("r1", None)]  # type: ignore[union-attr]


def test_missing_end_marker_is_pending_while_streaming() -> None:
    scanner = Scanner()
    assert scanner.feed("OPERATOR_CMD\nversion: 1\nid: p1\n") == []
    assert scanner.pending is not None and scanner.pending.id_hint == "p1"
    (found,) = scanner.end()
    assert found.error is not None and found.error.code is ErrorCode.ERR_MISSING_END_MARKER  # type: ignore[union-attr]


def test_block_limits_exactly_at_and_one_over() -> None:
    head = ["version: 1", "id: big", "action: fs.read", "path: a.txt"]
    at_limit = head + [f"k{n}: v" for n in range(MAX_BLOCK_LINES - len(head))]
    assert codes("OPERATOR_CMD\n" + "\n".join(at_limit) + "\nEND_OPERATOR_CMD\n") == [None]
    over = at_limit + ["k_extra: v"]
    assert codes("OPERATOR_CMD\n" + "\n".join(over) + "\nEND_OPERATOR_CMD\n") == [
        ErrorCode.ERR_BLOCK_TOO_LARGE
    ]
    wide = head + ["content: " + "x" * MAX_BLOCK_CHARS]
    assert codes("OPERATOR_CMD\n" + "\n".join(wide) + "\nEND_OPERATOR_CMD\n") == [
        ErrorCode.ERR_BLOCK_TOO_LARGE
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_lf_crlf_and_lone_cr_scan_alike(newline: str) -> None:
    text = ("Prose first.\n" + READ + READ.replace("r1", "r2")).replace("\n", newline)
    blocks = scan_message(text).blocks
    assert [(b.id_hint, b.start_line, b.end_line, b.error) for b in blocks] == [
        ("r1", 2, 7, None),
        ("r2", 8, 13, None),
    ]


def test_crlf_split_across_chunks() -> None:
    scanner = Scanner()
    text = READ.replace("\n", "\r\n")
    events = []
    for piece in text.split("\n"):
        events += scanner.feed(piece)
        events += scanner.feed("\n")
    events += scanner.end()
    assert [e.lines for e in events] == [b.lines for b in scan_message(text).blocks]  # type: ignore[union-attr]


def test_only_the_last_window_is_scanned_and_a_cut_block_is_answered() -> None:
    cut = "OPERATOR_CMD\nversion: 1\nid: cut\naction: fs.read\npath: a.txt\n"
    filler = "x" * (WINDOW_CHARS - 40) + "\n"
    text = READ.replace("r1", "early") + cut + filler + "END_OPERATOR_CMD\n" + READ
    scan = scan_message(text)
    cut_block, read = scan.blocks
    assert read.id_hint == "r1" and cut_block.lines == () and cut_block.error is not None
    assert cut_block.error.code is ErrorCode.ERR_BLOCK_TOO_LARGE
    assert "starts before the last 200000 characters" in cut_block.error.message
    assert any("only the last" in w.message for w in scan.warnings)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_block_knows_it_was_indented_or_inside_a_code_fence(newline: str) -> None:
    """A line starting (after at most three spaces) with ``` or ~~~ opens or closes a fence of
    its kind; a run inside a line is text."""
    body = ["version: 1", "id: a", "action: fs.stat", "path: x"]
    plain = ["OPERATOR_CMD", *body, "END_OPERATOR_CMD"]
    message = [
        "```python",
        'print("a ``` inside a line is no fence")',
        "```",
        *plain,  # after a closed fence
        "~~~",
        *plain,  # inside a tilde fence
        "~~~",
        "1. First:",
        "   ```text",  # a fence of a list item
        *[f"   {line}" for line in plain],  # indented, inside it
        "   ```",
        "Use ```this``` inline: no fence.",
        *plain[:2],
        "    id: indented-key",  # one indented line is enough
        *plain[3:],
        "    ```",  # four spaces: an indented code line, no fence
        *plain,
    ]
    blocks = scan_message(newline.join(message) + newline).blocks
    assert [(b.indented, b.fenced) for b in blocks] == [
        (False, False),
        (False, True),
        (True, True),
        (True, False),
        (False, False),
    ]


def test_hostile_inputs_are_handled() -> None:
    assert (
        len(scan_message("OPERATOR_CMD\n" * 100_000).blocks) == 1
    )  # one nested mess, not 10^5 results
    big = "y" * 5_000_000 + "\n" + READ
    assert [b.id_hint for b in scan_message(big).blocks] == ["r1"]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Pieces of what chat models really send, including the forms the marker rules had to learn:
# numbered lists, invisible characters, a BOM, results holding commands, CR-only breaks.
PIECES = st.sampled_from(
    [
        "\ufeff",
        "Prose.\n",
        "OPERATOR_CMD\n",
        "END_OPERATOR_CMD\n",
        "version: 1\n",
        "id: a\n",
        "action: fs.stat\n",
        "path: x\n",
        "1. OPERATOR_CMD\n",
        "2) END_OPERATOR_CMD\n",
        "\u200bOPERATOR_CMD\n",
        "OPERATOR_CMD\u200b\r\n",
        "OPERATOR_RESULT\n",
        "END_OPERATOR_RESULT\n",
        "\n",
        "\r\n",
        "\r",
        "> OPERATOR_CMD\n",
        "```\n",
        "```OPERATOR_CMD\n",
        "  OPERATOR_CMD  \r\n",
        "operator_cmd\n",
        "```python\n",
        "~~~\n",
        "    OPERATOR_CMD\n",
        "  END_OPERATOR_CMD\n",
        "\tid: b\n",
        "content: x\n",
        "caf\u00e9\n",
        "END_OPERATOR_CMD",
    ]
)


def cut(text: str, sizes: list[int]) -> Iterator[tuple[int, str]]:
    """`text` in chunks of the given sizes, repeated: (offset just past the chunk, chunk)."""
    pos = index = 0
    while pos < len(text):
        size = sizes[index % len(sizes)]
        yield pos + size, text[pos : pos + size]
        pos, index = pos + size, index + 1


@given(
    st.lists(PIECES, max_size=40),
    st.lists(st.integers(min_value=1, max_value=17), min_size=1, max_size=30),
)
@settings(max_examples=300, deadline=None)
def test_any_chunking_gives_the_events_of_the_whole_message(
    parts: list[str], cuts: list[int]
) -> None:
    """Never raises, and fed in any chunks gives the events of the whole text, however often the
    pending block is looked at meanwhile."""
    text = "".join(parts)
    whole = Scanner()
    expected = whole.feed(text) + whole.end()
    streamed = Scanner()
    events = []
    for index, (_, chunk) in enumerate(cut(text, cuts)):
        events += streamed.feed(chunk)
        if index % 3 == 0:
            _ = streamed.pending  # looking at the pending block must not change the outcome
    events += streamed.end()
    assert [_comparable(e) for e in events] == [_comparable(e) for e in expected]
    assert [_comparable(b) for b in scan_message(text).blocks] == [
        _comparable(e) for e in expected if isinstance(e, RawBlock)
    ]


def _comparable(event: object) -> object:
    """Errors are exceptions, equal only to themselves: compare their code and message instead."""
    if isinstance(event, RawBlock):
        error = (event.error.code, event.error.message) if event.error else None
        return (
            event.start_line,
            event.end_line,
            event.lines,
            event.id_hint,
            error,
            event.indented,
            event.fenced,
        )
    return event


# --- streaming cost: a long unfinished line is not walked again for every chunk ---------------


def _stream(text: str, size: int) -> tuple[Scanner, list[object]]:
    scanner = Scanner()
    events: list[object] = []
    for start in range(0, len(text), size):
        events += scanner.feed(text[start : start + size])
        _ = scanner.pending  # what the TUI asks after every chunk
    return scanner, events


@pytest.mark.parametrize(
    ("text", "size"),
    [
        # A payload line still arriving: 400,000 characters in 200-character chunks (3.5 s before).
        (
            "OPERATOR_CMD\nversion: 1\nid: s\naction: fs.write\npath: x.txt\ncontent_b64: "
            + "QUFB" * 100_000,
            200,
        ),
        # END_OPERATOR_ over and over with no line break, one character at a time (300 KB took
        # 348 s).
        ("END_OPERATOR_" * 5_000, 1),
        # Lines ending in a lone CR, each held until the next chunk says it is no CRLF.
        ("OPERATOR_CMD\r" + "k: v\r" * 150 + "END_OPERATOR_CMD\r" + "prose\r" * 5_000, 7),
    ],
)
def test_asking_pending_after_every_chunk_walks_each_character_a_bounded_number_of_times(
    text: str, size: int
) -> None:
    scanner, events = _stream(text, size)
    walked_before_end = scanner.walked_chars
    events += scanner.end()
    assert walked_before_end <= 2 * len(text) + size, walked_before_end
    whole = Scanner()
    assert [_comparable(e) for e in events] == [
        _comparable(e) for e in whole.feed(text) + whole.end()
    ]


def test_pending_still_sees_a_block_opened_in_an_unfinished_stream() -> None:
    scanner = Scanner()
    scanner.feed("Prose.\nOPERATOR_CMD\nversion: 1\nid: p")
    assert (
        scanner.pending is not None and scanner.pending.id_hint is None
    )  # the id line is not complete yet
    scanner.feed("2\r")
    assert (
        scanner.pending is not None and scanner.pending.id_hint is None
    )  # "\r" may be half of "\r\n"
    scanner.feed("action: fs.stat\n")
    assert scanner.pending is not None and scanner.pending.id_hint == "p2"


@given(st.lists(st.integers(min_value=1, max_value=20), min_size=1, max_size=30))
@settings(max_examples=200, deadline=None)
def test_a_block_comes_out_of_the_feed_that_completes_its_end_line(cuts: list[int]) -> None:
    # Chunks smaller than the END token once left the block queued until end(): it must run
    # as soon as its END_OPERATOR_CMD line is complete, however the stream is cut.
    text = "Prose.\n" + READ + "more prose\n" + READ.replace("r1", "r2") + "tail"
    ends = [
        i + len("END_OPERATOR_CMD\n")
        for i in range(len(text))
        if text.startswith("END_OPERATOR_CMD\n", i)
    ]
    scanner = Scanner()
    emitted_at: list[int] = []
    pos = index = 0
    while pos < len(text):
        pos += cuts[index % len(cuts)]
        events = scanner.feed(text[pos - cuts[index % len(cuts)] : pos])
        emitted_at += [min(pos, len(text))] * sum(isinstance(e, RawBlock) for e in events)
        index += 1
    assert len(emitted_at) == 2
    assert all(end <= at < end + max(cuts) for end, at in zip(ends, emitted_at, strict=True)), (
        ends,
        emitted_at,
    )


@pytest.mark.parametrize("after", ["prose", "OPERATOR_CMD", "x"])
def test_an_end_line_closed_by_a_lone_cr_runs_when_the_next_chunk_shows_it_is_no_crlf(
    after: str,
) -> None:
    # Terminals deliver CR line breaks. A "\r" ending a chunk is held (it may be half of "\r\n");
    # a next chunk not starting with "\n" completes the END line even when it holds no break itself.
    scanner = Scanner()
    assert scanner.feed(READ.replace("\n", "\r")) == []
    events = scanner.feed(after)
    assert [(e.id_hint, e.end_line, e.error) for e in events] == [("r1", 6, None)]  # type: ignore[union-attr]


def test_a_bom_after_an_empty_first_chunk_is_still_dropped_and_feed_after_end_raises() -> None:
    scanner = Scanner()
    events = scanner.feed("") + scanner.feed("\ufeff" + READ) + scanner.end()
    assert [(e.id_hint, e.error) for e in events] == [("r1", None)]  # type: ignore[union-attr]
    with pytest.raises(RuntimeError):
        scanner.feed("")


@given(
    st.lists(PIECES, max_size=40),
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=20),
)
@settings(max_examples=300, deadline=None)
def test_pending_after_every_chunk_is_what_a_whole_feed_of_the_text_so_far_says(
    parts: list[str], cuts: list[int]
) -> None:
    # `pending` walks the queue only when that may change its answer: it must never answer
    # differently from a scanner that walked everything, nor change the events.
    text = "".join(parts)
    streamed = Scanner()
    events = []
    for pos, chunk in cut(text, cuts):
        events += streamed.feed(chunk)
        oracle = Scanner()
        oracle.feed(text[:pos])
        assert streamed.pending == oracle.pending, text[:pos]
    events += streamed.end()
    whole = Scanner()
    assert [_comparable(e) for e in events] == [
        _comparable(e) for e in whole.feed(text) + whole.end()
    ]
