"""Shown when no clipboard could be reached: the result text in a selectable view, and the file
it was saved to, so the person can still get it into the chat."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea


class CopyFallbackScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close"), Binding("q", "close", "Close", show=False)]

    def __init__(self, text: str, saved_to: Path) -> None:
        super().__init__()
        self.text = text
        self.saved_to = saved_to

    def compose(self) -> ComposeResult:
        with Vertical(id="fallback-box"):
            yield Static(f"No clipboard was reachable (the terminal copy was sent too). Select the text below, "
                         f"or take it from:\n{self.saved_to}", id="fallback-note")
            yield TextArea(self.text, read_only=True, id="fallback-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
