"""The status line above the footer: what Operator is doing now, or what to do next. A text wider
than the terminal wraps onto a second and a third line (app.tcss) instead of being cut mid-sentence:
the end of a status is often the part that says what to do."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..display import printable


class StatusLine(Static):
    text: str = ""

    def say(self, text: str, style: str = "") -> None:
        self.text = text = printable(text)
        self.update(Text(text, style=style, overflow="ellipsis"))
