"""Turns a scanned block's lines into its fields, enforcing the line rules of the spec (ASCII
only, no control characters but tab, no blank lines, only "key: value" lines, content and base64
values on one line, each key once)."""

from __future__ import annotations

import re

from msgspec import Struct

from . import grammar
from .blocks import RawBlock
from .errors import ErrorCode, OperatorError


class Fields(Struct, frozen=True):
    values: dict[str, str]
    lines: dict[str, int]  # key -> message line, for messages that point at a line


def parse_fields(block: RawBlock) -> Fields:
    if block.error is not None:
        raise block.error
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    after_content = False  # the previous line was content: or one of its stray continuations
    wrapped_b64: str | None = None  # the previous key line was a *_b64 field
    previous: str | None = None  # the key of the previous line
    # Almost every block is plain ASCII without control characters: one look at all its lines
    # (joined by a tab, which is allowed) spares two searches per line.
    joined = "\t".join(text for _, text in block.lines)
    plain = joined.isascii() and grammar.CONTROL_CHAR_RE.search(joined) is None
    for line_no, text in block.lines:
        if not plain:
            _check_characters(line_no, text)
        stripped = text.strip()
        key, colon, value = stripped.partition(":")
        key = key.strip()
        if not colon or grammar.KEY_RE.fullmatch(key) is None:
            raise _no_pair(
                line_no,
                stripped,
                key if colon else None,
                after_content,
                wrapped_b64,
                previous,
                lines,
            )
        if key in values:
            raise OperatorError(
                ErrorCode.ERR_DUPLICATE_FIELD,
                (f"{key} appears twice (lines {lines[key]} and {line_no}); keep one {key} line"),
            )
        values[key] = value.strip()
        lines[key] = line_no
        after_content = key == "content"
        previous = key
        wrapped_b64 = key if key.endswith("_b64") else None
    return Fields(values, lines)


def _check_characters(line_no: int, text: str) -> None:
    """ASCII only, and no control character but tab."""
    bad = grammar.NON_ASCII_RE.search(text)
    if bad:
        raise OperatorError(
            ErrorCode.ERR_NON_ASCII_IN_CMD,
            (
                f"line {line_no} has the non-ASCII character {bad.group()!r} "
                f"(U+{ord(bad.group()):04X}) at column {bad.start() + 1}; use ASCII only "
                "inside OPERATOR_CMD, send other text base64-encoded in a *_b64 field"
            ),
        )
    control = grammar.CONTROL_CHAR_RE.search(text)
    if control:
        char = control.group()
        name = _CONTROL_NAMES.get(char, f"U+{ord(char):04X}")
        raise OperatorError(
            ErrorCode.ERR_CONTROL_CHARACTER_IN_CMD,
            (
                f"line {line_no} has the control character {name} (\\x{ord(char):02x}) at "
                f"column {control.start() + 1}; only printable ASCII and tab may appear inside "
                "OPERATOR_CMD; remove it, or send text that needs it base64-encoded in a *_b64 "
                "field"
            ),
        )


def _no_pair(
    line_no: int,
    stripped: str,
    key: str | None,
    after_content: bool,
    wrapped_b64: str | None,
    previous: str | None,
    lines: dict[str, int],
) -> OperatorError:
    """What a line that is not "key: value" is, in the order the mistakes are worth naming:
    content run on over lines, a blank line, base64 wrapped over lines, anything else."""
    if after_content:
        # The spec's own wording for this mistake, verbatim; the line goes into the details.
        return OperatorError(
            ErrorCode.ERR_CONTENT_HAS_NEWLINES,
            "content contains newline; use content_b64.",
            f"content starts on line {lines['content']} and continues on line {line_no}",
        )
    if not stripped:
        return OperatorError(
            ErrorCode.ERR_EMPTY_LINE_IN_CMD,
            (
                f"line {line_no} inside the block is empty; remove blank lines between "
                "OPERATOR_CMD and END_OPERATOR_CMD"
            ),
        )
    if wrapped_b64 and _BASE64_LINE_RE.fullmatch(stripped):
        return OperatorError(
            ErrorCode.ERR_INVALID_BASE64,
            (
                f"{wrapped_b64} (line {lines[wrapped_b64]}) runs on over line {line_no}: "
                f"base64 must be on one line; send the whole value on the {wrapped_b64} line, "
                "without line breaks or spaces"
            ),
        )
    return _not_a_pair(line_no, stripped, key, previous)


def _not_a_pair(
    line_no: int, stripped: str, key: str | None, previous: str | None
) -> OperatorError:
    shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
    if previous == "command":
        # The second line of a script written under command: (shell.run).
        hint = (
            "command holds one line of bash; send a script of several lines as command_b64 (the "
            "whole script base64-encoded, on one line), or join its lines with && on the command "
            "line"
        )
    else:
        hint = (
            f"{_key_hint(key) if key is not None else ''}only key: value lines may appear inside "
            "OPERATOR_CMD (no prose, bullets or indentation)"
        )
    return OperatorError(
        ErrorCode.ERR_NON_KEY_VALUE_LINE,
        f'line {line_no} is not a "key: value" line: {shown!r}; {hint}',
    )


def _key_hint(key: str) -> str:
    """For a line that has a colon but not an identifier before it ("marker-id", '"path"', "- id"):
    the key as it should have been written, when there is an obvious one."""
    candidate = _NOT_KEY_CHARS_RE.sub("_", key).strip("_")
    if not candidate or grammar.KEY_RE.fullmatch(candidate) is None:
        return ""
    return f"keys use only A-Z a-z 0-9 _ (did you mean {candidate}: ...?); "


_NOT_KEY_CHARS_RE = re.compile(r"[^A-Za-z0-9_]+")
# A line of base64 characters only, right after a *_b64 line: the value wrapped (76-column MIME
# style, or by the chat's own line wrap).
_BASE64_LINE_RE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_CONTROL_NAMES = {
    "\x00": "NUL",
    "\x08": "backspace",
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x1b": "ESC",
    "\x7f": "DEL",
}
