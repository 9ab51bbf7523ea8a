"""Asks before undoing the last committed change: what it was, where, and what undo will do.
Answers True to go ahead."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...engine import JournalEntry

EFFECT = {
    "create": "remove the file it created",
    "modify": "restore the file as it was before",
    "delete": "bring it back from the trash",
    "move": "move it back (and put back a file it replaced)",
    "copy": "remove the copy (or restore the file it replaced)",
    "changeset": "take back every file the command changed, created or deleted",
}


class UndoConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Undo it"),
        Binding("n", "answer(False)", "Keep it"),
        Binding("escape", "answer(False)", "Keep it", show=False),
    ]

    def __init__(self, entry: JournalEntry, later: int = 0) -> None:
        super().__init__()
        self.entry = entry
        self.later = later  # how many more changes could be undone after this one

    def compose(self) -> ComposeResult:
        entry = self.entry
        question = Text.assemble(
            "Undo ",
            (f"{entry.action}", "bold"),
            " on ",
            (entry.where, "bold cyan"),
            (f" (id {entry.command_id})", "dim"),
            "?\n",
            f"This will {EFFECT.get(entry.kind, 'reverse it')}. ",
            "It is refused, and nothing is touched, if the file changed since.",
        )
        with Vertical(id="confirm-box") as box:
            box.border_title = "undo the last change"
            yield Static(question, id="confirm-question")
            more = (
                f"   ({self.later} earlier change{'s' if self.later != 1 else ''} can be undone "
                "after it)"
                if self.later
                else ""
            )
            yield Static(
                Text.from_markup(f"[b]y[/b] undo it   [b]n[/b] keep it{more}"), id="confirm-keys"
            )
        yield Footer()

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
