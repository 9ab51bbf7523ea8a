"""The message as pasted, with its blocks (OPERATOR_CMD and String's) highlighted: valid ones in
one colour, invalid ones in another with their error written where they stand, a pending one marked.

It draws with Textual's line API (only the lines on screen are rendered), so a 200,000-character
paste shows at once and scrolling stays quick. Message lines are never wrapped (line numbers stay
true; long lines scroll sideways), but the notes Operator adds are wrapped to the view's width, so
an error is read where it stands without scrolling. `message_lines` is the pure part: message text
and its blocks' spans in, view lines out; `BlockSpans` finds those spans, feeding a growing
message's scanner only what is new, so a streamed answer redrawn at each update is scanned once
in all, not once per update."""

from __future__ import annotations

import textwrap
from typing import NamedTuple

from msgspec import Struct
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from ...protocol import (
    MessageScanner,
    ScanWarning,
    count_breaks,
    windowed_scanner,
    with_lf_breaks,
)
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


def _notes(text: str, kind: str, width: int | None) -> list[ViewLine]:
    if width is None or len(text) <= width:
        return [ViewLine(None, text, kind)]
    return [
        ViewLine(None, part, kind)
        for part in textwrap.wrap(text, max(width, 20), subsequent_indent="  ")
    ]


Span = tuple[int, int | None]  # a block's start line and end line (None: open to the message's end)


class BlockSpans:
    """Where a message's blocks stand, found as the engine finds them: in the spec's window of the
    text first seen, then in each part appended to it. Text that is not the last one plus more (a
    replaced message, another message) starts a new scan."""

    def __init__(self) -> None:
        self._text = ""
        self._scanner = MessageScanner()
        self._closed: list[Span] = []

    def of(self, text: str) -> list[Span]:
        if not (len(text) >= len(self._text) and text.startswith(self._text)) or not self._text:
            self._scanner, start, _ = windowed_scanner(text)
            self._closed, self._text = [], text[:start]
        new = text[len(self._text) :]
        self._text = text
        self._closed += [
            (event.start_line, event.end_line)
            for event in self._scanner.feed(new)
            if not isinstance(event, ScanWarning) and event.runs
        ]
        # An unfinished last line may still hold a block's END: it counts as that block's end
        # line all the same, which is the message's last line, the same as open to the end.
        pending = self._scanner.pending
        return (
            self._closed + [(pending.start_line, None)]
            if pending is not None
            else list(self._closed)
        )


def message_lines(
    text: str,
    errors: dict[int, str],
    pending_line: int | None = None,
    note_width: int | None = None,
    warnings: tuple[str, ...] = (),
    spans: list[Span] | None = None,
) -> list[ViewLine]:
    """`errors`: start line of an invalid block -> its error code and summary. `warnings` (the
    scan's, about the whole message) come first. Notes are wrapped to `note_width` characters
    (None: not wrapped). `spans`: the blocks' lines, when the caller keeps a `BlockSpans`."""
    if not text:
        return _notes(
            "No message yet: paste the model's answer anywhere on this screen.",
            NOTE_DIM,
            note_width,
        )
    out: list[ViewLine] = []
    for warning in warnings:
        out += _notes(f"! {warning}", NOTE_WARNING, note_width)
    cut = max(0, len(text) - SHOWN_CHARS)
    if 0 < cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
        cut += 1  # not between the two halves of one CRLF
    # A pasted message breaks its lines with lone CRs (terminals turn LF into CR): count those too.
    first_line = 1 + count_breaks(text, 0, cut)
    lines = with_lf_breaks(text[cut:]).split("\n")
    last_line = first_line + len(lines) - 1
    marked: dict[int, Marked] = {}  # by the line the block starts at
    for start, end in spans if spans is not None else BlockSpans().of(text):
        error = errors.get(start)
        marked[start] = Marked(end or last_line, INVALID if error else BLOCK, error)
    for error_line, error in errors.items():  # an invalid block the scanner did not delimit
        marked.setdefault(error_line, Marked(error_line, INVALID, error))
    if pending_line is not None:
        marked[pending_line] = Marked(last_line, PENDING, None)
    if cut:
        out.append(ViewLine(None, f"[... {cut:,} earlier characters not shown ...]", NOTE_DIM))
    active: Marked | None = None
    for offset, line in enumerate(lines):
        number = first_line + offset
        active = marked.get(number, active)
        out.append(ViewLine(number, screen_line(line, LINE_CHARS), active.kind if active else ""))
        if active and number == active.end_line:
            if active.error:
                out += _notes(f"^ {active.error}", NOTE_ERROR, note_width)
            active = None
    if pending_line is not None:
        out += _notes(
            "... pending: this block has no END_OPERATOR_CMD yet", NOTE_PENDING, note_width
        )
    return out


GUTTER = 6  # the line numbers' column, which stays in place when the text scrolls sideways


class MessageView(DrawnLines, can_focus=True):
    DEFAULT_CSS = "MessageView { overflow: auto auto; }"
    _shown: (
        tuple[int, int, tuple[tuple[int, str], ...], int | None, int, tuple[str, ...]] | None
    ) = None

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lines: list[ViewLine] = message_lines("", {})
        self._rows: dict[int, int] = {}
        self._source: tuple[str, dict[int, str], int | None, tuple[str, ...]] = ("", {}, None, ())
        self._message: object = None  # which message is shown: another one starts at its top left
        self._wanted_line: int | None = None  # the message line the view was asked to show
        self._spans = BlockSpans()

    def _note_width(self) -> int:
        return max(
            self.size.width - 9, 20
        )  # the line-number gutter, the vertical scrollbar and a space

    def on_resize(self) -> None:
        self.show(*self._source, message=self._message)  # notes are wrapped to the width

    def show(
        self,
        text: str,
        errors: dict[int, str],
        pending_line: int | None = None,
        warnings: tuple[str, ...] = (),
        *,
        message: object = None,
    ) -> None:
        """Show `text`; `message` names the message it is (a number): switching to another one
        starts at its first line and column, while the same message growing keeps its place."""
        if message != self._message:
            self._message, self._wanted_line, self._shown = message, None, None
            self.scroll_to(0, 0, animate=False, force=True)
        width = self._note_width()
        key = (id(text), len(text), tuple(sorted(errors.items())), pending_line, width, warnings)
        if key == self._shown:
            return  # results of valid blocks do not change the message: no need to redraw it
        self._shown, self._source = key, (text, errors, pending_line, warnings)
        self.lines = message_lines(
            text, errors, pending_line, width, warnings, self._spans.of(text)
        )
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
