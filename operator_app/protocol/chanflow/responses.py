"""String's answers, as text (pure): one response block per command block, tagged with the
block's topic and the time, `re: [id] /cmd` first, then the system message, then `---` and the
content for a command that returns some; an error is `✗ CODE: message` with its context lines;
a change is shown with line numbers, as docs/design.md describes."""

from __future__ import annotations

import re

from msgspec import Struct

from ..escapes import escape_controls, escape_name, escape_text
from . import grammar
from .tag_escape import escape_tags

CHANGE_LINES_SHOWN = 200  # of a change's numbered lines; past that the response says how many more
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Response(Struct, frozen=True):
    topic: str  # full "type:name"
    time: str  # ISO 8601 with the offset, to the second
    request_id: str
    request: str  # the command line, as the model wrote it
    message: str  # the system message (with its ✓ or ✗ where it has one)
    rest: str | None = None  # what follows it: an error's context lines, or "---" and the content
    mode: str | None = None  # the session's mode, when it has one ("edit": seed 003)

    def render(self) -> str:
        """The response block, safe both ways (docs/design.md, "The String dialect", Escapes):
        the command line and the message are one line each with every control character escaped,
        what follows keeps tab and line feed (protocol/escapes.py, the one rule for controls); and
        no tag is in it but its own, each tag start in its text given one more backslash
        (tag_escape.py, the one rule for tags), so a file's `</𝒞>` shown in it ends nothing and
        a response pasted back runs nothing."""
        lines = [
            f"re: [{self.request_id}] {escape_name(self.request)}",
            escape_controls(self.message),
        ]
        if self.rest is not None:
            lines.append(escape_text(self.rest.removesuffix("\n")))
        inner = escape_tags("\n".join(lines))
        return f"{self.open_tag()}\n{inner}\n{grammar.CLOSE}"

    def open_tag(self) -> str:
        mode = f" mode={self.mode}" if self.mode else ""
        return f'<{grammar.SIGIL}={grammar.CHANNEL}:{self.topic} time="{self.time}"{mode}>'


def after_message(*, content: str | None = None, context: tuple[str, ...] = ()) -> str | None:
    """The text a response has after its system message: context lines, then "---" and the
    content when there is some (an empty document is "---" and nothing)."""
    parts = list(context)
    if content is not None:
        parts += [grammar.SEPARATOR, content.removesuffix("\n")]
    return "\n".join(parts) if parts else None


def numbered_change(diff: str, *, limit: int = CHANGE_LINES_SHOWN) -> str:
    """A unified diff as String shows a change: `12 │ kept`, `13 -│ removed` (its old number),
    `13 +│ added` (its new number), "…" between hunks; at most `limit` lines."""
    rows = _numbered_rows(diff)
    shown, more = rows[:limit], len(rows) - limit
    width = max((len(number) for number, _, _ in shown), default=1)
    out = [_numbered_row(row, width) for row in shown]
    if more > 0:
        out.append(f"\u2026 ({more} more lines of the change)")
    return "\n".join(out)


Row = tuple[str, str, str]  # (number, mark, text); the mark "…" is the gap between two hunks


def _numbered_rows(diff: str) -> list[Row]:
    rows: list[Row] = []
    old = new = 0
    for line in diff.split("\n"):
        if line.startswith(("--- ", "+++ ")) and not rows and old == new == 0:
            continue
        match = _HUNK_RE.match(line)
        if match:
            if rows:
                rows.append(("", "\u2026", ""))
            old, new = int(match.group(1)), int(match.group(3))
            continue
        row, old, new = _diff_line(line, old, new)
        if row is not None:
            rows.append(row)
    return rows


def _diff_line(line: str, old: int, new: int) -> tuple[Row | None, int, int]:
    """A hunk's line as a row (none for "\\ No newline ..." or an empty line), and the old and
    new line numbers after it."""
    mark, text = line[:1], line[1:]
    if mark == "-":
        return (str(old), "-", text), old + 1, new
    if mark == "+":
        return (str(new), "+", text), old, new + 1
    if mark == " ":
        return (str(new), " ", text), old + 1, new + 1
    return None, old, new


def _numbered_row(row: Row, width: int) -> str:
    number, mark, text = row
    if mark == "\u2026":
        return "\u2026"
    gutter = "\u2502" if mark == " " else f"{mark}\u2502"
    shown = f"{number.rjust(width)} {gutter} {text}"
    return shown if text else shown.rstrip(" ")
