"""A scrollable view of styled text lines drawn with Textual's line API: only the lines on screen
are rendered, so a 200 KB file read or a diff of thousands of lines shows at once and scrolls
without lag (a Static holding the same text is laid out whole, which took most of a second).
Lines are not wrapped, except those built with `wrapped` (headings and summaries); diffs are
coloured by their line prefixes. The details pane and the consent dialog's diff are both this."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

LINE_CHARS = 2_000  # longer lines are cut in the view only
STYLES = {
    "": Style(), "head": Style(bold=True), "ok": Style(color="green"), "error": Style(bold=True, color="red"),
    "warn": Style(color="yellow"), "dim": Style(dim=True), "add": Style(color="green"), "del": Style(color="red"),
    "hunk": Style(color="cyan"), "meta": Style(bold=True),
}
# Control characters (tab aside, C1 included) would reach the terminal raw: show a space.
_CONTROL = {c: " " for c in (*range(32), *range(127, 160)) if c != 9}


@dataclass(frozen=True)
class StyledLine:
    text: str
    style: str = ""  # a key of STYLES


def clean(line: str) -> str:
    line = line.expandtabs(4).translate(_CONTROL)
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " …"


def plain_lines(text: str, style: str = "") -> list[StyledLine]:
    # Split on "\n" only: str.splitlines would also break at \f, \x1c, U+2028... inside a line.
    return [StyledLine(clean(line), style) for line in text.removesuffix("\n").split("\n")]


def wrapped(text: str, style: str, width: int) -> list[StyledLine]:
    parts = textwrap.wrap(text, max(width, 20), subsequent_indent="  ", break_on_hyphens=False) or [""]
    return [StyledLine(clean(part), style) for part in parts]


def diff_lines(diff: str) -> list[StyledLine]:
    out = []
    for line in diff.removesuffix("\n").split("\n"):
        if line.startswith(("---", "+++")):
            style = "meta"
        elif line.startswith("@@"):
            style = "hunk"
        elif line.startswith("+"):
            style = "add"
        elif line.startswith("-"):
            style = "del"
        elif line.startswith("\\"):
            style = "dim"
        else:
            style = ""
        out.append(StyledLine(clean(line), style))
    return out


class LinesView(ScrollView, can_focus=True):
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

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = y + scroll_y
        if index >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        line = self.lines[index]
        strip = Strip([Segment(line.text, self.rich_style + STYLES[line.style])])
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)
