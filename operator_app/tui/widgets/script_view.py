"""A command's script as its dialog shows it: whole (issue 35: lines past 2,000 characters were cut,
so `echo one` + 2,100 spaces + `; cat .env` showed as `echo one` and ran whole on `y`). Each line
is wrapped at the view's width, never cut, the rows it continues on marked `↪`; a character that
does not show (a control, a bidirectional or zero-width character) is written as an escape
(`\\u202e`) and its line drawn in yellow; and `script_note` says above the dialog's keys when a
line is wider than the view or holds such a character. The script runs as it is: only its
showing changes."""

from __future__ import annotations

import functools

from msgspec import Struct
from rich.cells import cell_len, chop_cells
from rich.text import Text
from textual import events
from textual.message import Message

from ...protocol import escape_hidden
from .lines_view import CODE_LINE_LIMIT, CodeColours, LinesView, StyledLine


@functools.cache
def _shell() -> CodeColours | None:
    """The shell's colours, looked up when a script is first shown, not when the module is
    imported: looking a lexer up by file name loads Pygments' whole table, a tenth of a second of
    the TUI's start (tests/test_import_hygiene.py)."""
    return CodeColours.for_file("script.sh")


CONTINUED = "↪"  # the gutter of a row that continues the line above it
FIRST_WIDTH = 100  # the width wrapped at before the view knows its own
NAMED = 6  # lines named in the note; more are counted


class ShownLine(Struct, frozen=True):
    text: str  # as shown: tabs expanded, hidden characters escaped
    hidden: bool  # it held a character that does not show


def shown_lines(script: str) -> list[ShownLine]:
    lines = []
    for line in script.split("\n"):
        text, hidden = escape_hidden(line.expandtabs(4))
        lines.append(ShownLine(text, hidden))
    return lines


def script_rows(lines: list[ShownLine], width: int) -> list[StyledLine]:
    """The rows of the view `width` columns wide (its gutter included): every character shown."""
    rows = []
    room = max(width - 1, 8)
    for line in lines:
        parts = chop_cells(line.text, room) if line.text else [""]
        code = _shell() if not line.hidden and len(line.text) <= CODE_LINE_LIMIT else None
        style = "warn" if line.hidden else ""
        for index, part in enumerate(parts):
            gutter = " " if index == 0 else CONTINUED
            rows.append(StyledLine(gutter + part, style, code if len(parts) == 1 else None, True))
    return rows


def _numbers(found: list[int]) -> str:
    named = ", ".join(str(n) for n in found[:NAMED])
    more = f" and {len(found) - NAMED} more" if len(found) > NAMED else ""
    return ("line " if len(found) == 1 else "lines ") + named + more


def script_note(lines: list[ShownLine], width: int) -> Text:
    """What the person must know before answering: lines wider than the view, hidden characters.
    Empty when neither."""
    room = max(width - 1, 8)
    wide = [n for n, line in enumerate(lines, 1) if cell_len(line.text) > room]
    hidden = [n for n, line in enumerate(lines, 1) if line.hidden]
    text = Text()
    if wide:
        longest = max(len(lines[n - 1].text) for n in wide)
        text.append(
            f"{_numbers(wide).capitalize()} {'is' if len(wide) == 1 else 'are'} wider than this "
            f"view (up to {longest:,} characters): wrapped, never cut ({CONTINUED} marks the "
            "rows a line goes on in); scroll to read the whole script before you answer.",
            style="bold yellow",
        )
    if hidden:
        text.append("\n" if wide else "")
        text.append(
            f"{_numbers(hidden).capitalize()} {'holds' if len(hidden) == 1 else 'hold'} "
            "characters that do not show (control, bidirectional or zero-width): written here "
            "as escapes (\\u202e) on yellow lines; the script runs with them as they are.",
            style="bold yellow",
        )
    return text


class ScriptView(LinesView):
    """The script, wrapped again whenever the view's width changes; `on_width` hears the width
    (the dialog's note follows it)."""

    def __init__(self, script: str, **kwargs: object) -> None:
        self.shown = shown_lines(script)
        self._width = FIRST_WIDTH
        super().__init__(script_rows(self.shown, FIRST_WIDTH), **kwargs)

    @property
    def wrap_width(self) -> int:
        return self._width

    def on_resize(self, event: events.Resize) -> None:
        width = self.text_width()
        if width != self._width:
            self._width = width
            self.set_lines(script_rows(self.shown, width), keep_scroll=True)
        self.post_message(ScriptWrapped(width))


class ScriptWrapped(Message):
    """The script view wrapped its lines at `width`."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width
