"""The message scanner: String's ChanFlow blocks found beside OPERATOR_CMD blocks in one message,
whole or streamed in any chunking, with the same events and keys either way (protocol/message/).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operator_app.protocol.blocks import RawBlock, ScanWarning
from operator_app.protocol.chanflow.blocks import ChanBlock, PendingChanBlock
from operator_app.protocol.chanflow.reader import MAX_PAYLOAD_CHARS, MAX_STRAY_ANSWERS, split_tag
from operator_app.protocol.grammar import WINDOW_CHARS
from operator_app.protocol.message import MessageScanner, scan_whole

S = "\U0001d49e"
READ = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"


def block(topic: str, payload: str) -> str:
    return f"<{S}=string:{topic}>{payload}</{S}>"


MESSAGE = (
    "Hello.\n"
    + block("file:notes", "/open ~/notes.md#decisions")
    + "\nThen:\n"
    + READ
    + "and a write whose content holds a command block:\n"
    + block("notes", "\n/write notes/a.md\n# Title\n" + READ + "\n")
    + "\n"
    + f"<{S}=slack:dev>for the team</{S}> stray </{S}> prose with {S} alone <{S}= not a tag\n"
    + f'<{S}=string:file:x time="t">re: [abc] /open x\nOpened x</{S}>\n'
    + f"<{S}=string:main>/append x\nnever closed"
)


def chan(events: list[object]) -> list[ChanBlock]:
    return [e for e in events if isinstance(e, ChanBlock)]


def test_both_dialects_in_message_order() -> None:
    scan = scan_whole(MESSAGE)
    kinds = [(type(b).__name__, b.start_line) for b in scan.blocks]
    assert kinds == [
        ("ChanBlock", 2),
        ("RawBlock", 4),
        ("ChanBlock", 11),
        ("ChanBlock", 22),
        ("ChanBlock", 22),
        ("ChanBlock", 23),
        ("ChanBlock", 25),
    ]
    first, write, slack, stray, response, unclosed = chan(list(scan.blocks))
    assert (first.channel, first.topic, first.payload) == (
        "string",
        "file:notes",
        "/open ~/notes.md#decisions",
    )
    # The content holds an OPERATOR_CMD block: it is text of the write, never a command.
    assert write.payload == "/write notes/a.md\n# Title\n" + READ and write.end_line == 21
    assert len([b for b in scan.blocks if isinstance(b, RawBlock)]) == 1
    assert slack.channel == "slack" and not slack.for_operator
    assert response.is_response and response.attributes == 'time="t"'
    assert unclosed.fault == "unclosed" and unclosed.end_line is None
    # The stray close tag is answered: the model learns what it meant to run did not.
    assert stray.fault == "malformed" and stray.runs and stray.payload == ""
    assert stray.problem == "a close tag at line 22 closes no block (no open tag came before it)"
    assert scan.warnings == ()


def test_a_tag_inside_an_operator_cmd_block_is_part_of_a_value() -> None:
    text = READ.replace("path: a.txt", f"path: a.txt\ncontent: {block('main', '/open x')}")
    scan = scan_whole(text)
    assert [type(b) for b in scan.blocks] == [RawBlock]
    assert any(block("main", "/open x") in line for _, line in scan.blocks[0].lines)


def test_nested_and_oversized_blocks_are_faulted() -> None:
    nested = block("main", f"/write a\nsee <{S}=string:b>/open x")
    assert chan(list(scan_whole(nested).blocks))[0].fault == "nested"
    scanner = MessageScanner()
    events = scanner.feed(f"<{S}=string:main>/write big\n")
    for _ in range(MAX_PAYLOAD_CHARS // 100_000 + 1):
        events += scanner.feed("x" * 100_000)
    events += scanner.feed(f"</{S}>") + scanner.end()
    (big,) = chan(events)
    assert big.fault == "too_large" and big.payload == ""


def test_a_tag_is_on_one_line_and_short() -> None:
    text = f"<{S}=string:main\n>/open x</{S}>\n<{S}=" + "x" * 300 + f">/open y</{S}>\n"
    split, stray = chan(list(scan_whole(text).blocks))
    # A tag split over two lines is a near miss, answered (MALFORMED_TAG), never run; a "tag"
    # of 300 characters is prose, so the close tag after it closes nothing (answered too).
    assert (split.fault, split.topic, split.payload) == ("malformed", "main", "/open x")
    assert split.problem == "the tag at line 1 has a line break inside it (a tag is one line)"
    assert (stray.fault, stray.start_line) == ("malformed", 3)


def test_pending_and_keys_while_streaming() -> None:
    scanner = MessageScanner()
    assert scanner.feed(f"Reading.\n<{S}=string:notes>/open a") == []
    pending = scanner.pending
    assert isinstance(pending, PendingChanBlock) and (pending.start_line, pending.topic) == (
        2,
        "notes",
    )
    (done,) = chan(scanner.feed(f".md</{S}>\n"))
    assert done.payload == "/open a.md" and scanner.pending is None
    assert (
        done.key
        == chan(list(scan_whole(f"Reading.\n{block('notes', '/open a.md')}").blocks))[0].key
    )


def test_the_key_knows_the_block_by_what_came_before_it() -> None:
    again = block("main", "/append notes.md\n- item")
    twice = chan(list(scan_whole(f"{again}\n{again}\n").blocks))
    assert twice[0].key != twice[1].key  # the same command twice in a message: two blocks
    other = chan(list(scan_whole(f"Another message.\n{again}\n").blocks))
    assert other[0].key != twice[0].key  # in a new message: a new block
    cr = chan(list(scan_whole(f"{again}\r\n{again}\r\n").blocks))
    assert [b.key for b in cr] == [b.key for b in twice]  # line breaks made alike


def test_the_window_and_a_block_cut_by_it() -> None:
    head = block("main", "/open early") + "\n"
    text = head + "x" * (WINDOW_CHARS - 20) + "\n" + block("main", "/open late")
    scan = scan_whole(text)
    assert [b.payload for b in chan(list(scan.blocks))] == ["/open late"]
    cut = "Long.\n<" + S + "=string:notes>/write x\n" + "y" * WINDOW_CHARS + f"\n</{S}>\n"
    scan = scan_whole(cut)
    # Answered, not skipped: its topic and first line are read from before the window.
    (answered,) = chan(list(scan.blocks))
    assert (answered.fault, answered.topic, answered.start_line, answered.end_line) == (
        "cut",
        "notes",
        2,
        4,
    )


def test_split_tag() -> None:
    assert split_tag("string:file:notes") == ("string", "file:notes", "")
    assert split_tag("string") == ("string", None, "")
    assert split_tag('string:file:x time="1" mode=edit') == (
        "string",
        "file:x",
        'time="1" mode=edit',
    )


def norm(events: object) -> list[object]:
    """Events as comparable values (an error is an exception: compared by its code and text)."""
    out: list[object] = []
    for event in events:  # type: ignore[attr-defined]
        if isinstance(event, RawBlock):
            error = (event.error.code, event.error.message) if event.error else None
            out.append((event.start_line, event.end_line, event.lines, error, event.id_hint))
        else:
            out.append(event)
    return out


def _events(text: str, cuts: list[int]) -> list[object]:
    scanner = MessageScanner()
    events: list[object] = []
    previous = 0
    for cut in [*sorted(set(cuts)), len(text)]:
        events += scanner.feed(text[previous:cut])
        previous = cut
        _ = scanner.pending  # asked after every chunk, as the engine does
    return events + scanner.end()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(MESSAGE)), max_size=40))
def test_any_chunking_gives_the_same_events(cuts: list[int]) -> None:
    whole = scan_whole(MESSAGE)
    events = _events(MESSAGE, cuts)
    assert norm(e for e in events if not isinstance(e, ScanWarning)) == norm(whole.blocks)
    assert [e for e in events if isinstance(e, ScanWarning)] == list(whole.warnings)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "prose ",
                "\n",
                "\r\n",
                "\r",
                block("a", "/open x"),
                block("b", "\n/write y\nline\n"),
                READ,
                f"<{S}=",
                f"</{S}>",
                S,
                "<",
                "string:",
                ">",
                # near misses: a look-alike sigil and its close, an invisible, full width, spaces
                "<C=string:",
                "String:",
                "</C>",
                "=string",
                "\u200b",
                "\uff1c",
                f"</{S} >",
                " ",
            ]
        ),
        max_size=30,
    ),
    st.lists(st.integers(min_value=0, max_value=400), max_size=20),
)
def test_any_mix_scans_alike_whole_and_streamed(parts: list[str], cuts: list[int]) -> None:
    text = "".join(parts)
    whole = scan_whole(text)
    events = _events(text, [c for c in cuts if c <= len(text)])
    assert norm(e for e in events if not isinstance(e, ScanWarning)) == norm(whole.blocks)
    # Line numbers agree with the text: each block starts on a line holding its open tag (a
    # malformed one's, or a stray close tag's, holds the sigil or "=string" at least).
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for found in chan(events):
        line = lines[found.start_line - 1]
        assert (S in line or "=string" in line) if found.fault else f"<{S}=" in line


@pytest.mark.slow
@pytest.mark.parametrize(
    ("unit", "answered"),
    [
        (S, 0),  # the sigil in prose
        (f"</{S}>", MAX_STRAY_ANSWERS + 1),  # stray close tags: 100 answered, then one warning
        ("=string", 0),  # what a tag with a look-alike of the sigil holds
        ("<C=string:", 0),  # look-alike tags that never end (read as near misses each)
    ],
)
def test_a_flood_of_tag_pieces_scans_in_linear_time_and_alike_in_chunks(
    unit: str, answered: int
) -> None:
    """10^5 of one piece of a tag, with no line break: each place is read over one tag's length,
    never to the message's end, so this takes seconds, not hours; fed whole or in 10,000-
    character chunks with `pending` asked after each, it gives the same events."""
    text = unit * 100_000
    scanner = MessageScanner()
    whole = scanner.feed(text) + scanner.end()
    streamed = _events(text, list(range(10_000, len(text), 10_000)))
    assert norm(streamed) == norm(whole) and len(whole) == answered
