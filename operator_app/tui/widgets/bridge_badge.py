"""The bridge's state at the right of the header: off, waiting for a browser (with the pairing
code while one is on offer), or connected with the site and the title of the tab (or, while no
chat tab is open, the browser's name and "open a chat tab")."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Header, Static

from ..display import printable

MAX_TITLE = 32


def badge_text(
    state: str,
    *,
    site: str | None = None,
    title: str | None = None,
    code: str | None = None,
    browser: str | None = None,
) -> Text:
    if state == "off":
        return Text("bridge off", style="dim")
    if state == "connected" and site is None:
        return Text.assemble(
            ("bridge ", "bold"),
            (printable(browser or "browser"), "bold green"),
            (": open a chat tab", ""),
        )
    if state == "connected":
        shown = printable(title or "")
        shown = shown if len(shown) <= MAX_TITLE else shown[: MAX_TITLE - 1] + "…"
        return Text.assemble(
            ("bridge ", "bold"),
            (printable(site or "browser"), "bold green"),
            (f": {shown}" if shown else "", ""),
        )
    if code:
        return Text.assemble(("bridge ", "bold"), ("pair with code ", ""), (code, "bold yellow"))
    return Text.assemble(("bridge ", "bold"), ("waiting for a browser", "yellow"))


class BridgeBadge(Static):
    DEFAULT_CSS = """
    BridgeBadge {
        dock: right;
        width: auto;
        max-width: 50%;
        padding: 0 1;
        background: transparent;
    }
    """

    def on_mount(self) -> None:
        self.update(badge_text("off"))


class AppHeader(Header):
    """Textual's header with the bridge's badge where the clock would be."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            # The clock's empty placeholder (10 cells) would sit beside the badge. Matched by name,
            # not imported from Textual's private module: if it is renamed, only the gap comes back.
            if type(widget).__name__ != "HeaderClockSpace":
                yield widget
        yield BridgeBadge(id="bridge-badge")
