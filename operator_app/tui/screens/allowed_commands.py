"""The commands always allowed to run in the open workspace (the command dialog's r), listed from
the command palette: enter (or delete) revokes the one selected, escape closes. A revoked command
is asked about again from its next run on."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ... import settings


class AllowedCommandsScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("delete", "revoke", "Revoke", show=False),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = "commands always allowed here"
            yield Static(
                Text.assemble(
                    "These run without asking in ",
                    (str(self.workspace), "bold cyan"),
                    " (sandboxed; their changes are still shown to you). enter revokes one.",
                ),
                id="confirm-question",
            )
            yield OptionList(id="allowed-list")
            yield Static(Text.from_markup("[b]enter[/b] revoke   [b]esc[/b] close"))
        yield Footer()

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        found = self.query_one(OptionList)
        found.clear_options()
        rules = settings.allowed_commands(self.workspace)
        if not rules:
            found.add_option(Option("(no command is always allowed in this workspace)", id="-"))
            return
        networked = set(settings.allowed_with_network(self.workspace))
        for number, script in enumerate(rules):
            shown = Text(script.replace("\n", " ⏎ "))
            if script in networked:
                shown.append("   with the network", style="bold yellow")
            found.add_option(Option(shown, id=str(number)))
        found.highlighted = 0

    def action_revoke(self) -> None:
        found = self.query_one(OptionList)
        index = found.highlighted
        rules = settings.allowed_commands(self.workspace)
        if index is None or index >= len(rules):
            return
        settings.revoke_command(self.workspace, rules[index])
        self.notify(f"Revoked: {rules[index].splitlines()[0] if rules[index] else ''}")
        self._fill()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_revoke()

    def action_close(self) -> None:
        self.dismiss(None)
