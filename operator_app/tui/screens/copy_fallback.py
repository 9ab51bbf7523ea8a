"""Shown after a copy when no system clipboard tool took the text: the terminal was sent it
(OSC 52), which many terminals honour silently and some ignore. So the text is here, selectable,
with the file it was saved to. `t` says "my terminal's copy works": this view is not shown again."""

from __future__ import annotations

import shlex
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from ..clipboard import where_saved

WIDE_LINE = 100  # longer lines than this are not wrapped in the view (base64 must stay whole)


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
        longest = max((len(line) for line in self.text.split("\n")), default=0)
        if longest > WIDE_LINE and self.saved_to is not None:
            # A terminal's own selection copies a line this view wraps as several, and a result's
            # base64 must stay one line; a line the terminal itself wrapped is copied whole.
            note += (
                f" Lines up to {longest:,} characters long are not wrapped here: scroll sideways, "
                "or print the text where your terminal wraps it, and select it there: cat "
                f"{shlex.quote(str(self.saved_to))}"
            )
        with Vertical(id="fallback-box") as box:
            box.border_title = "copied text"
            yield Static(note, id="fallback-note")
            yield TextArea(self.text, read_only=True, soft_wrap=False, id="fallback-text")
        yield Footer()

    def action_close(self, trusted: bool) -> None:
        self.dismiss(trusted)
