"""The table of dialects (protocol/dialects.py) and the seam down to the scanner: every registered
dialect is a `Dialect` with a reader of one of the two kinds and an engine half that is a
`DialectEngine`, at runtime and to the type checker; a third dialect registered in one line (the
toy of tests/support/toy_dialect) has its blocks found by the message scanner through its own
reader, beside both dialects Operator ships, whole or in any chunking."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operator_app.engine.chanflow.mapping import _CODES
from operator_app.engine.messages.interface import DialectEngine
from operator_app.protocol import (
    all_dialects,
    block_forms,
    default_name,
    dialect_named,
    engine_code,
    page_openers,
    register,
    registered_names,
    scan_whole,
    unregister,
)
from operator_app.protocol.blocks import RawBlock, ScanWarning
from operator_app.protocol.chanflow.blocks import ChanBlock
from operator_app.protocol.chanflow.dialect import ENGINE_CODES
from operator_app.protocol.dialect import Dialect
from operator_app.protocol.message import MessageScanner
from operator_app.protocol.message.reader import LineReader, Opening, SpanReader
from operator_app.protocol.results import CommandResult
from tests.support.toy_dialect import MODULE, NAME, toy_registered
from tests.support.toy_dialect.reader import PendingToyBlock, ToyBlock

ROOT = Path(__file__).resolve().parents[2]
S = "\U0001d49e"
READ = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"


@pytest.fixture
def toy() -> Iterator[None]:
    with toy_registered():
        yield


def test_every_registered_dialect_satisfies_its_protocols(toy: None) -> None:
    assert registered_names() == ("operator", "string", NAME)
    for dialect in all_dialects():
        assert isinstance(dialect, Dialect), dialect.name
        reader = dialect.reader(Opening())
        assert isinstance(reader, SpanReader if reader.spans else LineReader), dialect.name
        half = importlib.import_module(dialect.engine_half).ENGINE_HALF
        assert isinstance(half, DialectEngine) and half.name == dialect.name
        assert "prompt" in dialect.prompt_lengths and dialect.prompt()


def test_a_registration_is_one_line_and_comes_out_again() -> None:
    names = registered_names()
    with toy_registered():
        assert dialect_named(NAME).title == "Toy"
        assert block_forms() == f"OPERATOR_CMD or <{S}=string:...> or [[toy: ...]]"
        assert page_openers()[-1] == {"dialect": NAME, "text": "[[toy:", "line_start": False}
        with pytest.raises(ValueError):
            register(NAME, MODULE)  # a name is never taken over
    assert registered_names() == names
    with pytest.raises(KeyError):
        dialect_named(NAME)
    with pytest.raises(ValueError):
        unregister(default_name())


@pytest.mark.slow
def test_the_type_checker_holds_a_dialect_to_its_protocols() -> None:
    """DIALECT is typed `Dialect` and ENGINE_HALF `DialectEngine`, in Operator's dialects (mypy
    --strict on the package, tests/test_style.py) and in the toy's: a dialect that lacked a
    member would not type-check."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "tests/support/toy_dialect"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr


MIXED = (
    "Prose, then a toy block [[toy: read notes/a.txt]] in a line.\n"
    + READ.replace("path: a.txt", "path: a.txt\ncontent: [[toy: read inside.txt]]")
    + f"<{S}=string:notes>/write b.md\n[[toy: read in-string.txt]]\n</{S}>\n"
    + "[[toy: read\n"
    + READ
    + f"<{S}=string:x>/open y</{S}>\n"
    + "]] and [[toy read]] and [[toy: never closed"
)


def found(events: object) -> list[tuple[str, int, int | None]]:
    return [
        (type(event).__name__, event.start_line, getattr(event, "end_line", None))  # type: ignore[attr-defined]
        for event in events  # type: ignore[attr-defined]
        if not isinstance(event, ScanWarning)
    ]


def test_the_scanner_routes_a_third_dialect_by_its_opener(toy: None) -> None:
    scan = scan_whole(MIXED)
    assert found(scan.blocks) == [
        ("ToyBlock", 1, 1),
        ("RawBlock", 2, 8),
        ("ChanBlock", 9, 11),
        ("ToyBlock", 12, 20),
        ("ToyBlock", 20, None),
    ]
    first, spanning, unclosed = [block for block in scan.blocks if isinstance(block, ToyBlock)]
    assert first.command == "read notes/a.txt"
    # A toy opener inside an OPERATOR_CMD block is a value; inside a String block, content.
    (command,) = [block for block in scan.blocks if isinstance(block, RawBlock)]
    assert (7, "content: [[toy: read inside.txt]]") in command.lines
    (chan,) = [block for block in scan.blocks if isinstance(block, ChanBlock)]
    assert chan.payload == "/write b.md\n[[toy: read in-string.txt]]"
    # An OPERATOR_CMD block and a String block inside a toy block are its text.
    assert spanning.command == "read\n" + READ + f"<{S}=string:x>/open y</{S}>"
    # "[[toy read]]" is no opener; the last block never closed.
    assert unclosed.command == "never closed"


def test_a_toy_block_is_pending_until_its_end(toy: None) -> None:
    scanner = MessageScanner()
    assert scanner.feed("Reading.\n[[to") == [] and scanner.pending is None
    assert scanner.feed("y: read a") == []
    assert scanner.pending == PendingToyBlock(2)
    (block,) = scanner.feed(".txt]]\n")
    assert isinstance(block, ToyBlock) and block.command == "read a.txt"
    assert scanner.pending is None


PIECES = [
    "prose ",
    "\n",
    "\r\n",
    "\r",
    "[[toy: read a.txt]]",
    "[[toy:",
    "[[to",
    "y:",
    "]]",
    "]",
    "[",
    READ,
    "OPERATOR_CMD\n",
    "END_OPERATOR_CMD\n",
    f"<{S}=string:a>/open x</{S}>",
    f"<{S}=",
    f"</{S}>",
    "=string",
    "id: q\n",
]


def normal(events: object) -> list[object]:
    out: list[object] = []
    for event in events:  # type: ignore[attr-defined]
        if isinstance(event, RawBlock):
            error = (event.error.code, event.error.message) if event.error else None
            out.append((event.start_line, event.end_line, event.lines, error))
        else:
            out.append(event)
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=30),
    st.lists(st.integers(min_value=0, max_value=300), max_size=20),
)
def test_three_dialects_scan_alike_whole_and_in_any_chunking(
    parts: list[str], cuts: list[int]
) -> None:
    text = "".join(parts)
    with toy_registered():
        whole = scan_whole(text)
        scanner = MessageScanner()
        events: list[object] = []
        previous = 0
        for cut in [*sorted({c for c in cuts if c <= len(text)}), len(text)]:
            events += scanner.feed(text[previous:cut])
            previous = cut
            _ = scanner.pending
        events += scanner.end()
    assert normal(e for e in events if not isinstance(e, ScanWarning)) == normal(whole.blocks)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for block in events:
        if isinstance(block, ToyBlock):  # its line holds its opener
            assert "[[toy:" in lines[block.start_line - 1]


def test_a_dialect_spells_the_engines_codes_its_own_way() -> None:
    """A result keeps its code as its dialect spells it; what that stands for in the engine's
    terms is the dialect's to say (held-back commands, the secret-read warning read it)."""

    def result(dialect: str, code: str) -> CommandResult:
        return CommandResult(id="x", ok=False, summary="", error_code=code, dialect=dialect)

    assert engine_code(result("operator", "ERR_NOT_APPROVED")) == "ERR_NOT_APPROVED"
    assert engine_code(result("string", "NOT_APPROVED")) == "ERR_NOT_APPROVED"
    assert engine_code(result("string", "INVALID_PATH")) is None  # stands for several
    assert engine_code(result("operator", "NOT_APPROVED")) is None
    # String's table is the engine's spelling read backwards (engine/chanflow/mapping.py).
    for spelt, code in ENGINE_CODES.items():
        assert _CODES[type(next(iter(_CODES)))(code)].value == spelt
