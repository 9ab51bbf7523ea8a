"""Shown after a copy when no system clipboard tool took the text: the terminal was sent it
(OSC 52), which many terminals honour silently and some ignore. So the text is here, selectable,
with the file it was saved to. `t` says "my terminal's copy works": this view is not shown again."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from ..clipboard import where_saved


class CopyFallbackScreen(ModalScreen[bool]):
    """Answers True when the person says the terminal's copy works."""

    BINDINGS = [
        Binding("escape", "close(False)", "Close"),
        Binding("q", "close(False)", "Close", show=False),
        Binding("t", "close(True)", "Terminal copy works: don't show again"),
    ]

    def __init__(self, text: str, what: str, saved_to: Path | None) -> None:
        super().__init__()
        self.text = text
        self.what = what
        self.saved_to = saved_to

    def compose(self) -> ComposeResult:
        saved = (
            f"It is also saved in {where_saved(self.saved_to)}"
            if self.saved_to
            else "It could not be saved to a file"
        )
        note = (
            f"No system clipboard tool (wl-copy, xclip, xsel, pbcopy) took {self.what}, so the "
            "text went to your terminal's clipboard only (OSC 52), which some terminals ignore. "
            "If pasting in the chat works, press t and this view won't come back. Otherwise "
            f"select the text below. {saved}."
        )
        with Vertical(id="fallback-box") as box:
            box.border_title = "copied text"
            yield Static(note, id="fallback-note")
            yield TextArea(self.text, read_only=True, id="fallback-text")
        yield Footer()

    def action_close(self, trusted: bool) -> None:
        self.dismiss(trusted)
