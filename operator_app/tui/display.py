"""Small text helpers for what the TUI shows: paths with the home folder as ~, counts, and text
made safe for the terminal."""

from __future__ import annotations

from pathlib import Path

from ..protocol import escape_controls

# What a file's line shows in place of a control character (tabs are expanded first).
_CONTROL_AS_SPACE = {code: " " for code in (*range(32), *range(127, 160)) if code != 9}


def printable(text: str) -> str:
    """`text` with control characters written as escapes ("\\x1b"), tabs and newlines kept: ids,
    summaries and file names reach the screen from the model and from files, and written raw, ESC
    or CSI would drive the person's terminal (clear it, set its clipboard). The rule is
    protocol/escapes.py's; the TUI lays out multi-line text itself, so it keeps newlines."""
    return escape_controls(text, keep="\t\n")


def screen_line(line: str, limit: int) -> str:
    """A line of a file or a message as the TUI draws it: tabs expanded, each control character a
    space (escapes would shift the columns the text has), each bidirectional control (which takes
    no column, and reorders what follows: issue 35) written as an escape, cut after `limit`
    characters."""
    from ..protocol import escape_bidi

    line = escape_bidi(line.expandtabs(4).translate(_CONTROL_AS_SPACE))
    return line if len(line) <= limit else line[:limit] + " …"


def pretty_path(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home())) if path != Path.home() else "~"
    except (ValueError, RuntimeError):
        return str(path)


def plural(n: int, noun: str) -> str:
    from ..protocol import count

    return count(n, noun)
