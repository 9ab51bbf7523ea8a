"""The one-line status above the footer: what Operator is doing now, or what to do next."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..display import printable


class StatusLine(Static):
    text: str = ""

    def say(self, text: str, style: str = "") -> None:
        self.text = text = printable(text)
        self.update(Text(text, style=style, no_wrap=True, overflow="ellipsis"))
