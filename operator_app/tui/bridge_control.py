"""Starting and stopping the browser bridge from the TUI (`b`, the palette, `--bridge`), pairing a
browser, and what the bridge tells the person: its state in the header, pairings, results put
into the chat's input box. The bridge runs in the app's own event loop and streams into the same
EngineRunner as a paste, so every write still opens the consent dialog here. A controller
(app_link.py), and the one that changes the BridgeState (app_state.py); aiohttp is imported only
when the bridge starts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from ..bridge.command import EXTENSION_DIR
from ..bridge.service import BridgeStatus, HeldAnswer, Listener
from .bridge_words import (
    BRIDGE_OFF,
    RUN_HELD,
    delivered_note,
    happened,
    health_note,
    held_question,
    paused_note,
)
from .display import plural
from .screens.confirm import ConfirmScreen
from .screens.pairing import PairingScreen
from .status_text import bridge_on_text
from .widgets.bridge_badge import badge_text

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import AppOptions, BridgeState, OpenWorkspace
    from .panes import Panes


class _Told(Listener):
    def __init__(self, control: BridgeControl) -> None:
        self.control, self.app = control, control.app

    def status_changed(self, status: BridgeStatus) -> None:
        self.control.show_bridge_status(status)

    def paired(self, browser: str) -> None:
        app = self.app
        if isinstance(app.screen, PairingScreen):
            app.screen.dismiss(None)
        app.notify(
            f"Paired with {browser}. Answers streamed in that browser's chat now run here.",
            title="Bridge",
        )

    def code_voided(self, why: str) -> None:
        app = self.app
        if isinstance(app.screen, PairingScreen):
            app.screen.voided(why)
        app.notify(
            f"The pairing code no longer works: {why}. 'Pair a browser' (palette) shows a new one.",
            title="Bridge",
            severity="warning",
            timeout=15,
        )

    def forgotten(self) -> None:
        server = self.control.bridge_state.server
        code = server.pairing_code if server is not None else None
        self.app.notify(
            "The paired browser was forgotten (operator-app bridge --forget): its token no longer "
            "works." + (f" Pair again with the code {code[:3]} {code[3:]}." if code else ""),
            title="Bridge",
            severity="warning",
            timeout=20,
        )

    def delivered(self, number: int, count: int, sent: bool) -> None:
        self.app.notify(delivered_note(number, count, sent), title="Bridge")

    def failed(self, number: int | None, why: str) -> None:
        which = f"message {number}" if number is not None else "a message from the browser"
        self.app.notify(
            f"The bridge could not run {which}: {why}", title="Bridge", severity="error", timeout=15
        )

    def held(self, answers: list[HeldAnswer]) -> None:
        self.control.offer_held(answers)

    def asked(self, number: int, count: int) -> None:
        said = (
            f"Message {number}: the chat page asks where to put its {plural(count, 'result')}, as "
            "its input box holds text of yours. Answer there: after your text, replace it, or not "
            "now."
        )
        self.app.notify(said, title="Bridge", severity="warning", timeout=20)
        self.control.panes.status(said)


class BridgeControl:
    def __init__(
        self,
        app: AppLink,
        panes: Panes,
        options: AppOptions,
        opened: OpenWorkspace,
        bridge_state: BridgeState,
    ) -> None:
        self.app, self.panes, self.options = app, panes, options
        self.opened, self.bridge_state = opened, bridge_state

    def action_toggle_bridge(self) -> None:
        if self.bridge_state.server is None:
            self.app.in_loop(self.start_bridge(), group="bridge")
        else:
            self.app.in_loop(self.stop_bridge(), group="bridge")

    def pair_browser(self) -> None:
        server = self.bridge_state.server
        if server is None:
            self.app.in_loop(self.start_bridge(pair=True), group="bridge")
            return
        server.pair_again()
        self._show_pairing()

    def action_pair_another_browser(self) -> None:
        """A code that pairs a browser beside the paired ones (the person says so here: k)."""
        server = self.bridge_state.server
        if server is None:
            self.app.in_loop(self.start_bridge(pair=True, keep_paired=True), group="bridge")
            return
        server.pair_again(keep_paired=True)
        self._show_pairing()

    def palette(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Pair a browser",
            "show a new code to pair the Operator browser extension, in place of a paired one "
            "(starts the bridge; k pairs another beside it)",
            self.pair_browser,
        )
        held = self.held_answers()
        if held:
            yield SystemCommand(
                RUN_HELD,
                f"{plural(len(held), 'answer')} the model wrote while Operator was not "
                "listening: they run only when you say so",
                self.run_held,
            )

    async def start_bridge(self, pair: bool = False, keep_paired: bool = False) -> None:
        from ..bridge.pairing import stored_port
        from ..bridge.server import BridgeServer, BridgeUnavailable

        if self.bridge_state.server is not None:
            return
        opened = self.opened
        server = BridgeServer(
            lambda: opened.runner,
            _Told(self),
            lambda: opened.runner.workspace.root.name if opened.runner is not None else None,
            paused=self.bridge_state.paused,
        )
        port = self.options.bridge_port
        if port is None:
            port = stored_port()
        try:
            await server.start(port)
        except BridgeUnavailable as exc:
            self.app.notify(
                f"The bridge is off: {exc}", title="Bridge", severity="error", timeout=15
            )
            return
        self.bridge_state.server, self.bridge_state.paused = server, None
        self.panes.show_bridge_tip(True)
        if pair and (server.pairing_code is None or keep_paired):
            server.pair_again(keep_paired)
        self.show_bridge_status(server.status())
        self.panes.status(bridge_on_text(server.port, paired=self.bridge_state.paired()))
        if server.pairing_code is not None:
            self._show_pairing()

    async def stop_bridge(self, final: bool = False) -> None:
        """Turn the bridge off. Answers being written wait for it to come back (their page sends
        the rest then); `final` (Operator quits) ends them."""
        server, self.bridge_state.server = self.bridge_state.server, None
        if server is None:
            paused, self.bridge_state.paused = self.bridge_state.paused, None
            if final and paused is not None:
                await paused.finish()
            return
        self.offer_held([])  # what was held goes with the bridge: the page sends it again later
        writing = server.bridge.writing()
        keep = not final and bool(server.bridge.pages.open_serials())
        await server.stop(pause=keep)
        if keep:
            self.bridge_state.paused = server.bridge
        self.panes.show_badge(badge_text("off"))
        if self.app.is_running:
            self.panes.show_bridge_tip(False)
        self.panes.status(paused_note(writing) if keep else BRIDGE_OFF)

    @property
    def on(self) -> bool:
        return self.bridge_state.server is not None

    def streams(self, number: int) -> bool:
        """Whether message `number` is still being fed by the browser."""
        return self.bridge_state.streams(number)

    def end_message(self, number: int) -> None:
        bridge = self.bridge_state.fed_by()
        if bridge is not None:
            bridge.end_message(number)

    def workspace_changed(self) -> None:
        bridge = self.bridge_state.fed_by()
        if bridge is not None:
            bridge.workspace_changed()

    def held_answers(self) -> list[HeldAnswer]:
        server = self.bridge_state.server
        return list(server.bridge.held.values()) if server is not None else []

    def offer_held(self, answers: list[HeldAnswer]) -> None:
        """Ask the person whether to run the answers that ended while Operator was not listening
        (the question is asked again, updated, when the list changes)."""
        asking = self.bridge_state.held_question
        if answers and len(answers) == self.bridge_state.held_asked:
            # The same answers, one of them grown or ended: an open question says so in place
            # ("began" becomes "ended"); one the person put off, or a word already given while
            # they were in another dialog, is not said again at each line the model writes.
            if asking is not None:
                asking.reword(held_question(answers))
            return
        if asking is not None:
            self.bridge_state.held_question = None
            if asking in self.app.screen_stack:  # (not when the app is closing)
                asking.dismiss(None)
        self.bridge_state.held_asked = len(answers)
        if not answers:
            return
        if len(self.app.screen_stack) > 1:
            # The person is in another dialog: a question opened under their fingers would take
            # the next y as its answer.
            self.app.notify(
                f"{plural(len(answers), 'answer')} {happened(answers)} while Operator was not "
                "listening. Close "
                f"this, then run {'it' if len(answers) == 1 else 'them'} from the palette "
                f"(ctrl+p): {RUN_HELD}.",
                title="Bridge",
                severity="warning",
                timeout=20,
            )
            return
        question = ConfirmScreen(
            "from the browser",
            held_question(answers),
            yes=f"run {'it' if len(answers) == 1 else 'them'}",
            no="not now",
        )

        def answered(run: bool | None) -> None:
            if self.bridge_state.held_question is question:
                self.bridge_state.held_question = None
            if run is None:
                return  # replaced by a newer question, or the bridge stopped
            if run:
                self.run_held()
            else:
                self.panes.status(
                    f"Not run: {plural(len(answers), 'answer')} from while Operator was not "
                    "listening "
                    f'{"waits" if len(answers) == 1 else "wait"}; the palette\'s "{RUN_HELD}" runs '
                    f"{'it' if len(answers) == 1 else 'them'}."
                )

        self.bridge_state.held_question = question
        self.app.dialog(question, answered)

    def run_held(self) -> None:
        server = self.bridge_state.server
        ran = server.bridge.run_held() if server is not None else 0
        if ran == 0:
            self.app.notify(
                "No answer from while Operator was not listening waits.", severity="warning"
            )
            return
        self.panes.status(
            f"Running {plural(ran, 'answer')} that ended while Operator was not listening."
        )

    def show_bridge_status(self, status: BridgeStatus) -> None:
        if self.bridge_state.server is None:
            return
        tab, before = status.tab, self.bridge_state.tab
        if tab is not None:
            self.bridge_state.tab = tab
        self.panes.show_badge(
            badge_text(
                status.state,
                site=tab.site if tab else None,
                title=tab.title if tab else None,
                code=status.pairing_code,
                browser=status.browser,
            )
        )
        said = health_note(before, tab) if tab is not None else None
        if said is not None:
            self.panes.status(said)

    def _show_pairing(self) -> None:
        server = self.bridge_state.server
        if server is None or server.pairing_code is None or server.port is None:
            return
        if isinstance(self.app.screen, PairingScreen):
            self.app.screen.dismiss(None)
        status = server.status()

        def new_code(keep_paired: bool) -> str | None:
            live = self.bridge_state.server
            return live.pair_again(keep_paired) if live is not None else None

        def keep_paired(on: bool) -> bool:
            live = self.bridge_state.server
            return live.keep_paired(on) if live is not None else False

        self.app.dialog(
            PairingScreen(
                server.pairing_code,
                server.port,
                str(EXTENSION_DIR),
                paired=status.paired,
                keeps_paired=status.keeps_paired,
                new_code=new_code,
                keep_paired=keep_paired,
            )
        )
