"""Shows the bridge's pairing code while the person types it into the browser extension's popup.
It closes itself once a browser has paired; Esc closes it earlier (the code stays valid, and the
header keeps showing it). A code that stops working (too many wrong tries) is said so here at
once, with `n` for a new one. With a browser paired already, the code pairs a browser in its
place unless the person presses `k`: then the new browser is paired beside it (a second
browser, or a Firefox temporary add-on, which has a new id at each load)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


def spaced(code: str) -> str:
    """ "482913" as "482 913": two groups are easier to read off and type."""
    return f"{code[:3]} {code[3:]}" if len(code) == 6 else code


def names(browsers: tuple[str, ...]) -> str:
    return " and ".join([", ".join(browsers[:-1]), browsers[-1]] if len(browsers) > 1 else browsers)


class PairingScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("n", "new_code", "New code"),
        Binding("k", "keep", "Keep the paired browser too"),
    ]

    def __init__(
        self,
        code: str,
        port: int,
        extension_dir: str,
        *,
        paired: tuple[str, ...] = (),
        keeps_paired: bool = False,
        new_code: Callable[[bool], str | None] | None = None,
        keep_paired: Callable[[bool], bool] | None = None,
    ) -> None:
        """`paired`: the browsers paired now; `new_code(keep_paired)`: offers a new code (None
        when the bridge is off); `keep_paired(on)`: whether the code on offer pairs a browser
        beside the paired ones (False when no code is on offer any more)."""
        super().__init__()
        self.code, self.port, self.extension_dir = code, port, extension_dir
        self.paired, self.keeps_paired = paired, keeps_paired
        self._new_code, self._keep_paired = new_code, keep_paired
        self.void: str | None = None

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
            yield Static(self._code_line(), id="pairing-code", classes="pairing-detail")
            yield Static(self._note(), id="pairing-note")
        yield Footer()

    def _code_line(self) -> Text:
        if self.void is not None:
            return Text.assemble(
                (spaced(self.code), "strike dim"), ("   no longer works", "bold red")
            )
        return Text.assemble((spaced(self.code), "bold reverse"), f"   port {self.port}")

    def _note(self) -> Text:
        if self.void is not None:
            return Text.assemble(
                (f"This code no longer works: {self.void}. ", "bold red"),
                "Press n for a new code.",
            )
        text = Text(
            "The code works once, for 10 minutes. Then the chat's answers stream in here; every "
            "write still asks you in this terminal."
        )
        if self.paired and self.keeps_paired:
            text.append(
                f"\n{names(self.paired)} stays paired: the browser that types this code is paired "
                "beside it (k: in its place instead).",
                style="green",
            )
        elif self.paired:
            text.append(
                f"\nThe browser that types this code is paired in place of {names(self.paired)}, "
                "whose pairing then stops working. k keeps it paired too (a second browser).",
                style="yellow",
            )
        return text

    def _redraw(self) -> None:
        self.query_one("#pairing-code", Static).update(self._code_line())
        self.query_one("#pairing-note", Static).update(self._note())

    def voided(self, why: str) -> None:
        """The bridge voided this code (too many wrong tries): say so, and offer `n`."""
        self.void = why
        self._redraw()

    def action_new_code(self) -> None:
        code = self._new_code(self.keeps_paired) if self._new_code is not None else None
        if code is not None:
            self.code, self.void = code, None
            self._redraw()

    def action_keep(self) -> None:
        if not self.paired or self._keep_paired is None or self.void is not None:
            return
        if self._keep_paired(not self.keeps_paired):
            self.keeps_paired = not self.keeps_paired
            self._redraw()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "keep":
            return bool(self.paired) and self.void is None
        return True

    def action_close(self) -> None:
        self.dismiss(None)
