"""The message as pasted, with its blocks (OPERATOR_CMD and String's) highlighted: valid ones in
one colour, invalid ones in another with their error written where they stand, a pending one marked.

It draws with Textual's line API (only the lines on screen are rendered), so a 200,000-character
paste shows at once and scrolling stays quick. Message lines are never wrapped (line numbers stay
true; long lines scroll sideways), but the notes Operator adds are wrapped to the view's width, so
an error is read where it stands without scrolling. `message_lines` is the pure part: message text
and its blocks' spans in, view lines out. The spans are the engine's: where its one scan of the
message found the blocks (BlocksFound, kept on the message's state), so the view never scans a
message itself, however often it is redrawn or shown again."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import NamedTuple

from msgspec import Struct
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from ...engine import BlockSpan
from ...protocol import count_breaks, with_lf_breaks
from ..display import screen_line
from .lines_view import DrawnLines

SHOWN_CHARS = 400_000  # the tail of bigger messages (the engine scans only the last 200,000 anyway)
LINE_CHARS = 1_000  # longer lines (base64) are cut in the view only
NUMBER, BLOCK, INVALID, PENDING = "number", "block", "invalid", "pending"
NOTE_ERROR, NOTE_PENDING, NOTE_DIM, NOTE_WARNING = (
    "note-error",
    "note-pending",
    "note-dim",
    "note-warning",
)
STYLES = {
    "": Style(),
    NUMBER: Style(dim=True),
    BLOCK: Style(bgcolor="#1f2a3a"),
    INVALID: Style(bgcolor="#3a1f1f"),
    PENDING: Style(bgcolor="#3a3a1f"),
    NOTE_ERROR: Style(bold=True, color="red"),
    NOTE_PENDING: Style(bold=True, color="yellow"),
    NOTE_DIM: Style(dim=True),
    NOTE_WARNING: Style(color="yellow"),
}
NO_MESSAGE = "No message yet: paste the model's answer anywhere on this screen."
PENDING_NOTE = "... pending: this block has no END_OPERATOR_CMD yet"


class Marked(NamedTuple):
    """A block's lines as the view marks them: up to `end_line`, in the style `kind`, and the
    error written under them."""

    end_line: int
    kind: str  # a key of STYLES
    error: str | None


class ViewLine(Struct, frozen=True):
    number: int | None  # the message line shown, None for a note
    text: str
    kind: str  # a key of STYLES


class ShownText(NamedTuple):
    """The part of a message the view shows: its last SHOWN_CHARS characters, by line."""

    cut: int  # characters left out before it
    first_line: int  # the message line its first line is
    lines: list[str]

    @property
    def last_line(self) -> int:
        return self.first_line + len(self.lines) - 1


def _notes(text: str, kind: str, width: int | None) -> list[ViewLine]:
    if width is None or len(text) <= width:
        return [ViewLine(None, text, kind)]
    return [
        ViewLine(None, part, kind)
        for part in textwrap.wrap(text, max(width, 20), subsequent_indent="  ")
    ]


def message_lines(
    text: str,
    errors: dict[int, str],
    pending_line: int | None = None,
    note_width: int | None = None,
    warnings: tuple[str, ...] = (),
    spans: Sequence[BlockSpan] = (),
) -> list[ViewLine]:
    """`errors`: start line of an invalid block -> its error code and summary. `warnings` (the
    scan's, about the whole message) come first. Notes are wrapped to `note_width` characters
    (None: not wrapped). `spans`: the blocks' lines, as the engine's scan found them."""
    if not text:
        return _notes(NO_MESSAGE, NOTE_DIM, note_width)
    out = [
        note for warning in warnings for note in _notes(f"! {warning}", NOTE_WARNING, note_width)
    ]
    shown = _shown_part(text)
    if shown.cut:
        out.append(
            ViewLine(None, f"[... {shown.cut:,} earlier characters not shown ...]", NOTE_DIM)
        )
    out += _marked_lines(shown, _marks(spans, errors, pending_line, shown.last_line), note_width)
    if pending_line is not None:
        out += _notes(PENDING_NOTE, NOTE_PENDING, note_width)
    return out


def _shown_part(text: str) -> ShownText:
    cut = max(0, len(text) - SHOWN_CHARS)
    if 0 < cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
        cut += 1  # not between the two halves of one CRLF
    # A pasted message breaks its lines with lone CRs (terminals turn LF into CR): count those too.
    return ShownText(cut, 1 + count_breaks(text, 0, cut), with_lf_breaks(text[cut:]).split("\n"))


def _marks(
    spans: Sequence[BlockSpan], errors: dict[int, str], pending_line: int | None, last_line: int
) -> dict[int, Marked]:
    """How each block is marked, by the line it starts at: a valid one, an invalid one with its
    error (also one the scanner did not delimit, from its error alone), the pending one."""
    marked: dict[int, Marked] = {}
    for start, end in spans:
        error = errors.get(start)
        marked[start] = Marked(end or last_line, INVALID if error else BLOCK, error)
    for error_line, error in errors.items():
        marked.setdefault(error_line, Marked(error_line, INVALID, error))
    if pending_line is not None:
        marked[pending_line] = Marked(last_line, PENDING, None)
    return marked


def _marked_lines(
    shown: ShownText, marked: dict[int, Marked], note_width: int | None
) -> list[ViewLine]:
    """The shown lines in the style of the block each stands in, an error under its block."""
    out: list[ViewLine] = []
    active: Marked | None = None
    for number, line in enumerate(shown.lines, shown.first_line):
        active = marked.get(number, active)
        out.append(ViewLine(number, screen_line(line, LINE_CHARS), active.kind if active else ""))
        if active and number == active.end_line:
            if active.error:
                out += _notes(f"^ {active.error}", NOTE_ERROR, note_width)
            active = None
    return out


GUTTER = 6  # the line numbers' column, which stays in place when the text scrolls sideways


class MessageView(DrawnLines, can_focus=True):
    DEFAULT_CSS = "MessageView { overflow: auto auto; }"
    _shown: (
        tuple[int, int, tuple[tuple[int, str], ...], int | None, int, tuple[str, ...], int] | None
    ) = None

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lines: list[ViewLine] = message_lines("", {})
        self._rows: dict[int, int] = {}
        self._source: tuple[str, dict[int, str], int | None, tuple[str, ...]] = ("", {}, None, ())
        self._spans: Sequence[BlockSpan] = ()
        self._message: object = None  # which message is shown: another one starts at its top left
        self._wanted_line: int | None = None  # the message line the view was asked to show

    def _note_width(self) -> int:
        return max(
            self.size.width - 9, 20
        )  # the line-number gutter, the vertical scrollbar and a space

    def on_resize(self) -> None:
        # Notes are wrapped to the width.
        self.show(*self._source, spans=self._spans, message=self._message)

    def show(
        self,
        text: str,
        errors: dict[int, str],
        pending_line: int | None = None,
        warnings: tuple[str, ...] = (),
        *,
        spans: Sequence[BlockSpan] = (),
        message: object = None,
    ) -> None:
        """Show `text`, its blocks marked where `spans` (the engine's scan) says they stand;
        `message` names the message it is (a number): switching to another one starts at its
        first line and column, while the same message growing keeps its place. A message's
        spans only grow, so their count says whether they changed."""
        if message != self._message:
            self._message, self._wanted_line, self._shown = message, None, None
            self.scroll_to(0, 0, animate=False, force=True)
        width = self._note_width()
        errors_key = tuple(sorted(errors.items()))
        key = (id(text), len(text), errors_key, pending_line, width, warnings, len(spans))
        if key == self._shown:
            return  # results of valid blocks do not change the message: no need to redraw it
        self._shown, self._source, self._spans = key, (text, errors, pending_line, warnings), spans
        self.lines = message_lines(text, errors, pending_line, width, warnings, spans)
        self._rows = {
            line.number: y for y, line in enumerate(self.lines) if line.number is not None
        }
        width = max((cell_len(line.text) for line in self.lines), default=0) + GUTTER
        self.virtual_size = Size(width, len(self.lines))
        self.refresh()
        if self._wanted_line is not None:
            # An error note added above the line moved it down: follow it once the new size is
            # laid out.
            self.call_after_refresh(self._scroll_to_wanted)

    def scroll_to_top(self) -> None:
        """The message's first line, and no block line to follow any more."""
        self._wanted_line = None
        self.scroll_to(0, 0, animate=False)

    def scroll_to_line(self, line: int) -> None:
        self._wanted_line = line
        self._scroll_to_wanted()

    def _scroll_to_wanted(self, tries: int = 3) -> None:
        row = self._rows.get(self._wanted_line) if self._wanted_line is not None else None
        if row is None:
            return
        if (
            not self.allow_vertical_scroll
            and self.virtual_size.height > self.container_size.height
            and tries
        ):
            # Lines just added: Textual scrolls a view only once its scrollbar is laid out.
            self.call_after_refresh(self._scroll_to_wanted, tries - 1)
            return
        self.scroll_to(y=max(0, row - 2), animate=False)

    def draw(self, line: ViewLine) -> tuple[Strip | None, Strip, Style]:
        base, style = self.rich_style, STYLES[line.kind]
        number = f"{line.number:>5} " if line.number is not None else " " * GUTTER
        fill = base + style if line.kind in (BLOCK, INVALID, PENDING) else base
        return (
            Strip([Segment(number, base + STYLES[NUMBER])]),
            Strip([Segment(line.text, base + style)]),
            fill,
        )
