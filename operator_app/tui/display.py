"""Small text helpers for what the TUI shows: paths with the home folder as ~, counts, and text
made safe for the terminal."""

from __future__ import annotations

import re
from pathlib import Path

# C0 controls but tab and newline, DEL, and C1 controls (U+009B is a one-character CSI for some
# terminals). Ids, summaries and file names reach the screen from the model and from files:
# written raw, ESC or CSI would drive the person's terminal (clear it, set its clipboard).
_TERMINAL_UNSAFE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with terminal control characters written as escapes ("\\x1b"); tabs and newlines
    kept."""
    if not _TERMINAL_UNSAFE_RE.search(text):
        return text
    return _TERMINAL_UNSAFE_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def pretty_path(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home())) if path != Path.home() else "~"
    except (ValueError, RuntimeError):
        return str(path)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
