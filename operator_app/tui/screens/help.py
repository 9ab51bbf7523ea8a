"""The help screen: the keys, and every action the model can send (from the command models)."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...protocol.commands import ACTIONS

KEYS: tuple[tuple[str, str], ...] = (
    ("paste", "a bracketed paste anywhere is a new message"),
    ("c", "copy the result blocks of the shown message"),
    ("p", "copy the system prompt for the chat"),
    ("u", "undo the last change (asks first)"),
    ("w", "choose another workspace (starts a new session)"),
    ("[ / ]", "previous / next message of the session"),
    ("e", "end the message being followed (--follow)"),
    ("y / n / a", "in a consent dialog: apply / reject / apply the rest"),
    ("?", "this help"),
    ("ctrl+p", "command palette"),
    ("ctrl+q", "quit"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close"), Binding("question_mark", "close", "Close", show=False),
                Binding("q", "close", "Close", show=False)]

    def compose(self) -> ComposeResult:
        keys = Table(title="Keys", show_header=False, box=None, padding=(0, 2))
        for key, what in KEYS:
            keys.add_row(f"[b]{key}[/b]", what)
        actions = Table(title="Actions the model can send", show_header=True, box=None, padding=(0, 2))
        actions.add_column("action")
        actions.add_column("kind")
        actions.add_column("fields")
        for name, model in ACTIONS.items():
            fields = [f for f in model.model_fields if f not in ("version", "id", "action")]
            actions.add_row(name, "write (asks you)" if model.WRITES else "read", ", ".join(fields))
        with VerticalScroll(id="help-box"):
            yield Static(keys)
            yield Static(actions)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
