"""The help screen: the keys (from keys.py, the same table the bindings come from) and every
action the model can send (from the command models, with their fields and the words the compact
prompt gives each)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..keys import MAIN_KEYS, OTHER_KEYS


def keys_table() -> Table:
    table = Table(title="Keys", title_justify="left", show_header=False, box=None, padding=(0, 2))
    for key in MAIN_KEYS:
        table.add_row(Text(key.display, style="bold"), key.help)
    for display, what in OTHER_KEYS:
        table.add_row(Text(display, style="bold"), what)
    return table


def actions_table() -> Table:
    """One row per action: the compact prompt's line for it (fields as written, [optional], a|b
    for one of them; * when the person is asked), so the help and the prompt say the same."""
    from ...protocol import render_brief

    table = Table(
        # a Text, not a string: rich would read [optional] as markup
        title=Text(
            "Actions the model can send ([optional], a|b: one of them; [style]: comment style)"
        ),
        title_justify="left",
        box=None,
        padding=(0, 2),
    )
    table.add_column("action", style="bold", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("fields: what it gives")
    from ...protocol import ACTIONS  # every command model: declared when help is first shown

    for name, model in ACTIONS.items():
        kind = (
            Text("write: asks you", style="yellow")
            if model.WRITES
            else Text("read: runs at once", style="green")
        )
        line = render_brief(model).removeprefix(name).removesuffix(f": {model.BRIEF}")
        fields = line.removesuffix(" *").strip() or "(no fields)"
        table.add_row(name, kind, Text(f"{fields}: {model.BRIEF}"))
    return table


class KeysScreen(ModalScreen[None]):
    """The keys of one dialog, as `?` shows them there."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, title: str, keys: tuple[tuple[str, str], ...]) -> None:
        super().__init__()
        self.title_text, self.keys = title, keys

    def compose(self) -> ComposeResult:
        table = Table(show_header=False, box=None, padding=(0, 2))
        for display, what in self.keys:
            table.add_row(Text(display, style="bold"), what)
        with VerticalScroll(id="keys-box") as box:
            box.border_title = self.title_text
            yield Static(table)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "help"
            yield Static(keys_table())
            yield Static(actions_table())
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
