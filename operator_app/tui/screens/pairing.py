"""Shows the bridge's pairing code while the person types it into the browser extension's popup.
It closes itself once a browser has paired; Esc closes it earlier (the code stays valid, and the
header keeps showing it)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


def spaced(code: str) -> str:
    """ "482913" as "482 913": two groups are easier to read off and type."""
    return f"{code[:3]} {code[3:]}" if len(code) == 6 else code


class PairingScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close (the code stays valid)")]

    def __init__(self, code: str, port: int, extension_dir: str) -> None:
        super().__init__()
        self.code, self.port, self.extension_dir = code, port, extension_dir

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = "pair a browser with Operator"
            yield Static(
                "1. Load the Operator extension once: on the browser's extensions page, turn on "
                'developer mode, choose "Load unpacked" and pick this folder:'
            )
            yield Static(Text(self.extension_dir, style="bold cyan"), classes="pairing-detail")
            yield Static(
                "2. Open the extension's popup (its icon in the toolbar) and type this code:"
            )
            yield Static(
                Text.assemble((spaced(self.code), "bold reverse"), f"   port {self.port}"),
                id="pairing-code",
                classes="pairing-detail",
            )
            yield Static(
                "The code works once, for 10 minutes. Then the chat's answers stream in here; "
                "every write still asks you in this terminal.",
                id="pairing-note",
            )
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
