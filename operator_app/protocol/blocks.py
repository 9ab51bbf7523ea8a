"""What the scanner finds, and the block it is collecting (sans-IO): a `RawBlock` is one
OPERATOR_CMD block's inner lines as found, or the structural error that spoils it (the first
one, which is the one worth fixing first), with the first readable id for the result of a broken
block; the block limits of the spec are enforced as lines are added. `classify()` tells a marker
line from any other, and whether the marker is alone on it (docs/design.md, decision 1)."""

from __future__ import annotations

import re
from typing import ClassVar

from msgspec import Struct, field

from . import grammar
from .errors import ErrorCode, OperatorError

_ID_LINE_RE = re.compile(r"\s*id\s*:(.*)")
_KEY_LINE_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:")


def _content_line(lines: list[tuple[int, str]], line_no: int) -> int | None:
    """The content: line, when line `line_no` (the last one added) is that line or one that
    continues it (a line that is not "key: value" continues the one before); else None."""
    if not lines or lines[-1][0] != line_no:
        return None  # the block's opening line
    for number, text in reversed(lines):
        key = _KEY_LINE_RE.match(text)
        if key is not None:
            return number if key.group(1) == "content" else None
    return None


class RawBlock(Struct, frozen=True):
    """One OPERATOR_CMD block as found: its inner lines, or the structural error that spoils it."""

    dialect: ClassVar[str] = "operator"
    start_line: int
    end_line: int | None
    lines: tuple[tuple[int, str], ...]  # (message line number, text) between the markers
    error: OperatorError | None = None
    id_hint: str | None = None  # the first readable "id:" value, for results of broken blocks
    # Written as markdown, which hard rule 1 asks not to do, yet scanned all the same: a marker
    # line (or, see `indented`, any line) began with whitespace, or it stood inside a ``` or ~~~
    # code fence. Its result says so.
    markers_indented: bool = False
    fenced: bool = False

    @property
    def indented(self) -> bool:
        """A line of the block, its markers included, begins with a space or a tab."""
        return self.markers_indented or any(text.startswith((" ", "\t")) for _, text in self.lines)

    @property
    def runs(self) -> bool:
        """Every block found is answered, an invalid one with its error."""
        return True

    @property
    def content_key(self) -> str:
        """What "identical content" means for duplicate ids: the inner lines, trimmed."""
        return "\n".join(text.strip() for _, text in self.lines)


class ScanWarning(Struct, frozen=True):
    line: int
    message: str


ScanEvent = RawBlock | ScanWarning


class PendingBlock(Struct, frozen=True):
    dialect: ClassVar[str] = "operator"
    awaits: ClassVar[str] = f"its {grammar.CMD_END} line"

    start_line: int
    id_hint: str | None

    @property
    def label(self) -> str | None:
        return self.id_hint


class OpenBlock(Struct):
    start_line: int
    lines: list[tuple[int, str]] = field(default_factory=list)
    chars: int = 0
    error: OperatorError | None = None
    id_hint: str | None = None
    suspect: bool = False  # opened by a marker that was not alone: may have been prose
    markers_indented: bool = False  # its OPERATOR_CMD or END_OPERATOR_CMD line begins with one
    fenced: bool = False  # it opened inside a code fence
    lone_cr_line: int | None = None  # its first line that ended with a lone "\r"
    feed_breaks: bool = False  # a line of it ended with "\n" or "\r\n"
    # The first line of content: (or of a line continuing it) to end with a lone "\r": (the
    # content: line, that line).
    content_cr: tuple[int, int] | None = None

    def note_break(self, line_no: int, brk: str) -> None:
        """The break `line_no` ended with. A message's lines may end with a lone "\r" (a
        terminal's paste) or with "\n"; a block mixing both holds a carriage return inside a line,
        which would split a value into a field of its own: in content: a line break inside it
        (ERR_CONTENT_HAS_NEWLINES, protocol rule 6), elsewhere ERR_CONTROL_CHARACTER_IN_CMD."""
        if brk == "\r":
            self.lone_cr_line = self.lone_cr_line or line_no
            if self.content_cr is None:
                content_line = _content_line(self.lines, line_no)
                if content_line is not None:
                    self.content_cr = (content_line, line_no)
        elif brk:
            self.feed_breaks = True
        if self.lone_cr_line is not None and self.feed_breaks:
            self._mixed_breaks()

    def _mixed_breaks(self) -> None:
        if self.content_cr is not None:
            content_line, cr_line = self.content_cr
            # The protocol's own wording for a line break in content, as the parser gives it.
            self.fail(
                ErrorCode.ERR_CONTENT_HAS_NEWLINES,
                "content contains newline; use content_b64.",
                f"content on line {content_line} holds a line break (a carriage return, \\x0d, "
                f"ending line {cr_line}); send text of several lines base64-encoded in content_b64",
            )
        self.fail(
            ErrorCode.ERR_CONTROL_CHARACTER_IN_CMD,
            f"line {self.lone_cr_line} ends with a lone carriage return (\\x0d) where the "
            "block's other lines end with a line feed: a carriage return inside a value would "
            "split it into a field of its own; remove it, or send text that needs it "
            "base64-encoded in a *_b64 field",
        )

    def fail(self, code: ErrorCode, message: str, context: str | None = None) -> None:
        if self.error is None:  # the first structural problem is the one worth fixing first
            self.error = OperatorError(code, message, context)

    def add(self, line_no: int, text: str) -> None:
        self.chars += len(text) + 1
        if self.id_hint is None:
            match = _ID_LINE_RE.fullmatch(text)
            if match and match.group(1).strip():
                self.id_hint = match.group(1).strip()
        if len(self.lines) < grammar.MAX_BLOCK_LINES and self.chars <= grammar.MAX_BLOCK_CHARS:
            self.lines.append((line_no, text))
        else:
            # Name the limit that was crossed: the fix differs (fewer lines vs a smaller payload).
            crossed = (
                f"more than {grammar.MAX_BLOCK_LINES} lines"
                if len(self.lines) >= grammar.MAX_BLOCK_LINES
                else f"more than {grammar.MAX_BLOCK_CHARS} characters"
            )
            self.fail(
                ErrorCode.ERR_BLOCK_TOO_LARGE,
                f"the block at line {self.start_line} has {crossed} between its markers (limits: "
                f"{grammar.MAX_BLOCK_LINES} lines, {grammar.MAX_BLOCK_CHARS} characters); nothing "
                "was run; split the payload over several commands",
            )


def layout_note(block: RawBlock) -> str:
    """The clause a result's summary ends with when its block was written as markdown (indented,
    or inside a code fence): it ran, and the model learns the rule without a failed command."""
    if block.indented and block.fenced:
        what = "indented and inside a code fence"
    elif block.fenced:
        what = "inside a code fence"
    elif block.indented:
        what = "indented"
    else:
        return ""
    return f"; note: block was {what} (it ran; send blocks as plain unindented text, no fences)"


FENCES = ("```", "~~~")
_INDENTED = tuple(tuple(indent + run for indent in (" ", "  ", "   ")) for run in FENCES)


def fence_lines(
    text: str, start: int, stop: int, breaks: tuple[str, ...] = ("\n", "\r"), tildes: bool = True
) -> tuple[int, int]:
    """How many lines of the whole lines text[start:stop] are fence lines of ``` and of ~~~: lines
    that start, after at most three spaces, with the run (CommonMark's fence lines, longer runs and
    info strings included). Each such line opens or closes a fence of its kind; nesting one kind
    inside the other is not told apart. Counted with the C string searches alone, so a message full
    of code samples costs little more to scan. `breaks` and `tildes` narrow the search when the
    caller knows the text has no "\r" or no "~~~"."""
    found = [0, 0]
    for kind in (0, 1) if tildes else (0,):
        run = FENCES[kind]
        total = text.count(run, start, stop)
        if not total:
            continue
        at_starts = int(text.startswith(run, start, stop))
        for line_break in breaks:
            at_starts += text.count(line_break + run, start, stop)
        if at_starts < total and text.find(" " + run, start, stop) >= 0:  # maybe indented ones
            at_starts += int(text.startswith(_INDENTED[kind], start, stop))
            for head in _INDENTED[kind]:
                for line_break in breaks:
                    at_starts += text.count(line_break + head, start, stop)
        found[kind] = at_starts
    return found[0], found[1]


def classify(line: str) -> tuple[str, bool] | None:
    """(marker token, alone?) for a marker line, None for any other line."""
    stripped = line.strip()
    if stripped in grammar.MARKERS:
        return stripped, True
    match = grammar.MARKER_NOT_ALONE_RE.match(line)
    if match:
        return match.group(1), False
    return None


_INVISIBLE_RE = re.compile(f"[{grammar.INVISIBLE_CHARS}]")


def not_alone_message(token: str, line_no: int, line: str) -> str:
    # An invisible character is the one thing the model cannot see in its own text: name it.
    invisible = _INVISIBLE_RE.search(line)
    unseen = f" (the invisible character U+{ord(invisible.group()):04X})" if invisible else ""
    return (
        f"{token} at line {line_no} shares its line with other text{unseen}; put the marker alone "
        "on its own line with no markdown, code fences or prose around it"
    )
