"""A scrollable view of styled text lines drawn with Textual's line API: only the lines on screen
are rendered, so a 200 KB file read or a diff of thousands of lines shows at once and scrolls
without lag (a Static holding the same text is laid out whole, which took most of a second).
Lines are not wrapped, except those built with `wrapped` (headings and summaries); diffs are
coloured by their line prefixes, and the code in them by its language. The details pane and the
consent dialog's diff are both this."""

from __future__ import annotations

import os
import textwrap
import threading
from collections.abc import Sequence
from typing import Any

from msgspec import Struct
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...engine import split_lines
from ..display import screen_line

LINE_CHARS = 2_000  # longer lines are cut in the view only
STYLES = {
    "": Style(),
    "head": Style(bold=True),
    "ok": Style(color="green"),
    "error": Style(bold=True, color="red"),
    "warn": Style(color="yellow"),
    "dim": Style(dim=True),
    "add": Style(color="green"),
    "del": Style(color="red"),
    "hunk": Style(color="cyan"),
    "meta": Style(bold=True),
}


# A changed line of code keeps its token colours on a tinted background (as code review tools
# show diffs); only its +/- keeps the line's own colour.
CODE_BACKGROUNDS = {"add": Style(bgcolor="#16391f"), "del": Style(bgcolor="#42181b"), "": Style()}
_CODE_THEME = "monokai"
_CACHED_SEGMENTS = 4_000
# Longer lines (minified or generated code) are drawn plain: lexing 400,000 characters took
# seconds, and their thousands of segments most of a second again on every redraw.
CODE_LINE_LIMIT = 1_000


class CodeColours:
    """Token colours for the code in the lines of a diff, by the file's name, with the lexers Rich
    uses (Pygments). Each line is lexed on its own, when it is first drawn: enough to colour
    keywords, names, strings and comments, and never slow for a diff of any length."""

    _lexers: dict[str, Any] = {}
    _lock = threading.Lock()

    def __init__(self, lexer: Any) -> None:
        from rich.syntax import Syntax

        self.lexer = lexer
        self.theme = Syntax.get_theme(_CODE_THEME)
        self._segments: dict[tuple[str, str], list[Segment]] = {}

    @classmethod
    def for_file(cls, name: str | None) -> CodeColours | None:
        """Colours for a file named `name`, or None for a kind of file Pygments does not know."""
        if not name:
            return None
        # Keyed by the whole name, as Pygments matches it: by extension, CMakeLists.txt would
        # colour every .txt file as CMake, and FOO.PY (no lexer) leave every .py file plain.
        basename = os.path.basename(name)
        with cls._lock:
            if basename not in cls._lexers:
                from pygments.util import ClassNotFound

                try:
                    from pygments.lexers import get_lexer_for_filename

                    cls._lexers[basename] = get_lexer_for_filename(
                        basename, stripnl=False, ensurenl=False
                    )
                except (ClassNotFound, Exception):
                    cls._lexers[basename] = None
            lexer = cls._lexers[basename]
        return None if lexer is None else cls(lexer)

    @staticmethod
    def warm_up() -> None:
        """Load Pygments' lexer table ahead of the first diff (run in a thread: it takes a
        while)."""
        CodeColours.for_file("warm-up.py")

    def _colour(self, token: Any) -> Style:
        # The theme's own background would paint blocks over the view's (and over the tint).
        style = self.theme.get_style_for_token(token)
        return Style(color=style.color, bold=style.bold, italic=style.italic)

    def segments(self, code: str, kind: str, base: Style) -> list[Segment]:
        key = (code, kind)
        found = self._segments.get(key)
        if found is None:
            if len(self._segments) > _CACHED_SEGMENTS:
                self._segments.clear()
            found = [
                Segment(value, self._colour(token) + CODE_BACKGROUNDS[kind])
                for token, value in self.lexer.get_tokens(code)
                if value
            ]
            self._segments[key] = found
        return [Segment(segment.text, base + segment.style) for segment in found]


class StyledLine(Struct, frozen=True):
    text: str
    style: str = ""  # a key of STYLES
    code: CodeColours | None = None  # a diff line whose text after its first character is code
    # a diff line: its first character (+, -, space) stays put when scrolled sideways
    gutter: bool = False


def plain_lines(text: str, style: str = "") -> list[StyledLine]:
    """`text` a line a row (split on "\n" only, as the engine splits a file); empty: one row."""
    return [StyledLine(screen_line(line, LINE_CHARS), style) for line in split_lines(text) or [""]]


def wrapped(text: str, style: str, width: int) -> list[StyledLine]:
    parts = textwrap.wrap(text, max(width, 20), subsequent_indent="  ", break_on_hyphens=False) or [
        ""
    ]
    return [StyledLine(screen_line(part, LINE_CHARS), style) for part in parts]


def diff_lines(diff: str, code: CodeColours | None = None) -> list[StyledLine]:
    """A unified diff, coloured by its line prefixes; with `code`, the code in its context, added
    and removed lines is coloured as code too."""
    out = []
    for line in split_lines(diff) or [""]:
        body = False
        if line.startswith(("---", "+++")):
            style = "meta"
        elif line.startswith("@@"):
            style = "hunk"
        elif line.startswith("+"):
            style, body = "add", True
        elif line.startswith("-"):
            style, body = "del", True
        elif line.startswith("\\"):
            style = "dim"
        else:
            style, body = "", line.startswith(" ")
        out.append(
            StyledLine(
                screen_line(line, LINE_CHARS),
                style,
                code if body and len(line) <= CODE_LINE_LIMIT else None,
                True,
            )
        )
    return out


class DrawnLines(ScrollView):
    """A ScrollView that draws only the lines on screen: a subclass keeps `lines` and says in
    `draw` how one looks: its gutter (line numbers, a diff's +/- column), which stays in place
    when the view scrolls sideways, the text, which scrolls, and the style that fills the rest of
    its row."""

    lines: Sequence[object]

    def draw(self, line: Any) -> tuple[Strip | None, Strip, Style]:
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = y + scroll_y
        if index >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        gutter, body, fill = self.draw(self.lines[index])
        if gutter is None:
            return body.crop_extend(scroll_x, scroll_x + width, fill)
        fixed = min(gutter.cell_length, width)
        return Strip.join(
            [
                gutter.crop_extend(0, fixed, fill),
                body.crop_extend(scroll_x, scroll_x + width - fixed, fill),
            ]
        )


class LinesView(DrawnLines, can_focus=True):
    DEFAULT_CSS = "LinesView { overflow: auto auto; }"

    def __init__(self, lines: list[StyledLine] | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lines: list[StyledLine] = []
        if lines is not None:
            self.set_lines(lines)

    @property
    def plain(self) -> str:
        return "\n".join(line.text for line in self.lines)

    def text_width(self) -> int:
        """Columns a wrapped line may use: the view less its scrollbar."""
        return max(self.size.width - 2, 20)

    def set_lines(self, lines: list[StyledLine], *, keep_scroll: bool = False) -> None:
        self.lines = lines
        width = max((cell_len(line.text) for line in lines), default=0)
        self.virtual_size = Size(width, len(lines))
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False)
        self.refresh()

    def draw(self, line: StyledLine) -> tuple[Strip | None, Strip, Style]:
        style = self.rich_style + STYLES[line.style]
        if line.code is None or len(line.text) < 2:
            if line.gutter and line.text:
                return (
                    Strip([Segment(line.text[0], style)]),
                    Strip([Segment(line.text[1:], style)]),
                    self.rich_style,
                )
            return None, Strip([Segment(line.text, style)]), self.rich_style
        tint = self.rich_style + CODE_BACKGROUNDS[line.style]
        prefix = Strip([Segment(line.text[0], tint + STYLES[line.style] + Style(bold=True))])
        return prefix, Strip(line.code.segments(line.text[1:], line.style, self.rich_style)), tint
