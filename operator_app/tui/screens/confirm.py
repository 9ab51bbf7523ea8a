"""A yes/no question in a small dialog: y answers True, n and escape False. For the second look
before `a` applies writes the person has not seen, and before quitting with a write waiting."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, title: str, question: Text, *, yes: str, no: str) -> None:
        super().__init__()
        self.title_text, self.question, self.yes, self.no = title, question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = self.title_text
            yield Static(self.question, id="confirm-question")
            yield Static(
                Text.assemble(("y", "bold"), f" {self.yes}   ", ("n", "bold"), f" {self.no}"),
                id="confirm-keys",
            )
        yield Footer()

    def reword(self, question: Text) -> None:
        """Say the question as it stands now, in place: the person's next key still answers
        this dialog, not one opened under their fingers."""
        self.question = question
        for shown in self.query("#confirm-question").results(Static):  # none before compose
            shown.update(question)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
