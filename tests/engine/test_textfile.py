"""Bytes <-> text keeping each file's newline style, BOM and final newline."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from operator_app.engine.textops.textfile import (
    TextDoc,
    count_lines,
    decode_text,
    new_file_bytes,
    split_lines,
)
from operator_app.protocol.errors import ErrorCode, OperatorError

BOM = b"\xef\xbb\xbf"


def decode_error(data: bytes) -> OperatorError:
    with pytest.raises(OperatorError) as caught:
        TextDoc.decode(data, label="f.txt")
    with pytest.raises(OperatorError) as again:
        decode_text(data, label="f.txt")
    assert (again.value.code, again.value.message) == (caught.value.code, caught.value.message)
    assert "\n" not in caught.value.message
    return caught.value


def test_lf() -> None:
    doc = TextDoc.decode(b"a\nb\n", label="f")
    assert doc == TextDoc("a\nb\n", "\n", False, True)
    assert doc.line_count() == 2
    assert doc.encode("a\nB\n") == b"a\nB\n"


def test_crlf() -> None:
    doc = TextDoc.decode(b"a\r\nb\r\n", label="f")
    assert doc == TextDoc("a\nb\n", "\r\n", False, True)
    assert doc.encode("a\nc\nd\n") == b"a\r\nc\r\nd\r\n"
    # A model that sends CRLF text to a CRLF file gets CRLF, not CR CR LF.
    assert doc.encode("x\r\ny\n") == b"x\r\ny\r\n"


def test_crlf_keeps_a_lone_cr_inside_a_line() -> None:
    doc = TextDoc.decode(b"a\rb\r\nc\r\n", label="f")
    assert (doc.newline, doc.text) == ("\r\n", "a\rb\nc\n")
    assert doc.encode(doc.text) == b"a\rb\r\nc\r\n"


def test_cr_before_crlf_makes_the_file_mixed() -> None:
    data = b"a\r\r\nb\r\n"
    doc = TextDoc.decode(data, label="f")
    assert (doc.newline, doc.text) == ("\n", "a\r\r\nb\r\n")
    assert doc.encode(doc.text) == data


def test_mixed_keeps_unchanged_lines_byte_identical() -> None:
    data = b"one\r\ntwo\nthree\r\n"
    doc = TextDoc.decode(data, label="f")
    assert doc.newline == "\n"
    assert split_lines(doc.text) == ["one\r", "two", "three\r"]
    assert doc.encode(doc.text.replace("two", "TWO")) == b"one\r\nTWO\nthree\r\n"


def test_bom() -> None:
    doc = TextDoc.decode(BOM + b"hi\r\n", label="f")
    assert doc == TextDoc("hi\n", "\r\n", True, True)
    assert doc.encode("ho\n") == BOM + b"ho\r\n"
    assert decode_text(BOM + b"hi\r\n", label="f") == "hi\r\n"
    assert TextDoc.decode(BOM, label="f").encode("") == BOM


def test_final_newline_is_kept_as_it_was() -> None:
    without = TextDoc.decode(b"a\nb", label="f")
    assert not without.final_newline
    assert without.line_count() == 2
    assert without.encode("a\nb\nc\n") == b"a\nb\nc"
    assert without.encode("a\nb\nc\n", keep_final_newline=False) == b"a\nb\nc\n"
    with_newline = TextDoc.decode(b"a\r\n", label="f")
    assert with_newline.encode("x") == b"x\r\n"
    assert with_newline.encode("x", keep_final_newline=False) == b"x"
    assert with_newline.encode("") == b""


def test_empty_file() -> None:
    doc = TextDoc.decode(b"", label="f")
    assert doc == TextDoc("", "\n", False, False)
    assert doc.line_count() == 0
    assert doc.encode("") == b""
    assert doc.encode("new\n") == b"new"


def test_binary() -> None:
    error = decode_error(b"PK\x03\x04\x00\x00")
    assert error.code is ErrorCode.ERR_BINARY_FILE
    assert "offset 4" in error.message and "f.txt" in error.message


def test_nul_after_the_first_8_kib_is_text() -> None:
    data = b"a" * 8192 + b"\x00\n"
    assert TextDoc.decode(data, label="f").text == data.decode()


@pytest.mark.parametrize(
    ("data", "offset", "byte"),
    [
        (b"abc\xffdef", 3, "0xff"),
        (b"ok\n\xe9t\xe9\n", 3, "0xe9"),  # Latin-1
        (b"ab\xe2\x82", 2, "0xe2"),  # cut short at the end
        (BOM + b"ab\xc3", 5, "0xc3"),  # offsets count the BOM
        (b"\xed\xa0\x80", 0, "0xed"),  # an encoded surrogate
    ],
)
def test_not_utf8_names_the_offset(data: bytes, offset: int, byte: str) -> None:
    error = decode_error(data)
    assert error.code is ErrorCode.ERR_NOT_UTF8
    assert f"byte {byte} at offset {offset}" in error.message


def test_utf16_is_named_rather_than_called_binary() -> None:
    error = decode_error("hi\n".encode("utf-16"))
    assert error.code is ErrorCode.ERR_NOT_UTF8
    assert "UTF-16" in error.message


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\nb", ["a", "b"]),
        ("a\nb\n", ["a", "b"]),
        ("\n", [""]),
        ("a\n\n", ["a", ""]),
        ("a\x0cb\x0bc\u2028d\u2029e\x85f\x1cg\n", ["a\x0cb\x0bc\u2028d\u2029e\x85f\x1cg"]),
        ("a\rb\n", ["a\rb"]),
    ],
)
def test_split_and_count_lines_on_newline_only(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines
    assert count_lines(text) == len(lines)


def test_form_feed_and_line_separator_are_not_line_breaks() -> None:
    data = "page one\x0cpage two\u2028still line one\n".encode()
    doc = TextDoc.decode(data, label="f")
    assert doc.line_count() == 1
    assert doc.encode(doc.text) == data


def test_new_file_bytes() -> None:
    assert new_file_bytes("h\u00e9\r\nx") == "h\u00e9\r\nx".encode()


line_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=["Cs"], exclude_characters="\x00\n\r"),
        st.sampled_from(["\r", "\x0c", "\x0b", "\u2028", "\u2029", "\x85", "\ufeff", "\t"]),
    ),
    max_size=12,
)
ending = st.sampled_from(["\n", "\r\n", "\r", ""])


@st.composite
def text_files(draw: st.DrawFn) -> bytes:
    style = draw(st.sampled_from(["lf", "crlf", "any"]))
    lines = draw(st.lists(st.tuples(line_text, ending), max_size=8))
    parts = []
    for text, end in lines:
        if style == "lf":
            end = "\n" if end else ""
        elif style == "crlf":
            end, text = ("\r\n" if end else ""), text.replace("\r", "")
        parts.append(text + end)
    bom = BOM if draw(st.booleans()) else b""
    return bom + "".join(parts).encode("utf-8")


@given(text_files())
@example(b"a\r\r\nb\r\n")
@example(b"\r\n\r")
@example(BOM + BOM + b"x")
def test_round_trip_is_identity(data: bytes) -> None:
    doc = TextDoc.decode(data, label="f")
    assert doc.encode(doc.text) == data
    assert doc.line_count() == len(split_lines(doc.text))
    without_bom = data[3:] if data.startswith(BOM) else data
    assert decode_text(data, label="f") == without_bom.decode("utf-8")
    assert "\r\n" not in doc.text or doc.newline == "\n"


@given(text_files(), st.lists(line_text, max_size=5))
def test_edits_come_back_in_the_file_style(data: bytes, new_lines: list[str]) -> None:
    doc = TextDoc.decode(data, label="f")
    if doc.newline == "\r\n":
        new_lines = [line.replace("\r", "") for line in new_lines]
    text = "\n".join(new_lines)
    edited = doc.encode(text)
    again = TextDoc.decode(edited, label="f")
    assert again.bom == doc.bom
    # "a\n\n" for a file without a final newline becomes "a\n": one break is removed, not all.
    if text and not text.endswith("\n"):
        assert again.final_newline == doc.final_newline
    if doc.newline == "\r\n" and b"\n" in edited:
        assert again.newline == "\r\n"
