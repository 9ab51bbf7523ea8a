"""Starting and stopping the browser bridge from the TUI (`b`, the palette, `--bridge`), pairing a
browser, and what the bridge tells the person: its state in the header, pairings, results put
into the chat's input box. The bridge runs in the app's own event loop and streams into the same
EngineRunner as a paste, so every write still opens the consent dialog here. A mixin of
OperatorApp, and the one that changes its BridgeState (app_state.py); aiohttp is imported only
when the bridge starts."""

from __future__ import annotations

from rich.text import Text

from ..bridge.command import EXTENSION_DIR
from ..bridge.service import BridgeStatus, HeldAnswer, Listener
from .display import plural, printable
from .host import AppHost
from .screens.confirm import ConfirmScreen
from .screens.pairing import PairingScreen
from .status_text import bridge_on_text
from .widgets.bridge_badge import BridgeBadge, badge_text


class _Told(Listener):
    def __init__(self, app: BridgeControlMixin) -> None:
        self.app = app

    def status_changed(self, status: BridgeStatus) -> None:
        self.app.show_bridge_status(status)

    def paired(self, browser: str) -> None:
        app = self.app
        if isinstance(app.screen, PairingScreen):
            app.screen.dismiss(None)
        app.notify(
            f"Paired with {browser}. Answers streamed in that browser's chat now run here.",
            title="Bridge",
        )

    def delivered(self, number: int, count: int, sent: bool) -> None:
        what = "result" if count == 1 else "results"
        if sent:
            self.app.notify(
                f"Message {number}: the browser sent {count} {what} to the chat.", title="Bridge"
            )
        else:
            self.app.notify(
                f"Message {number}: {count} {what} are in the chat's input box; send them there.",
                title="Bridge",
            )

    def failed(self, number: int | None, why: str) -> None:
        which = f"message {number}" if number is not None else "a message from the browser"
        self.app.notify(
            f"The bridge could not run {which}: {why}", title="Bridge", severity="error", timeout=15
        )

    def held(self, answers: list[HeldAnswer]) -> None:
        self.app.offer_held(answers)

    def asked(self, number: int, count: int) -> None:
        said = (
            f"Message {number}: the chat page asks where to put its {plural(count, 'result')}, as "
            "its input box holds text of yours. Answer there: after your text, replace it, or not "
            "now."
        )
        self.app.notify(said, title="Bridge", severity="warning", timeout=20)
        self.app.status(said)


RUN_HELD = "Run the answers that ended while Operator was not listening"


def held_question(answers: list[HeldAnswer]) -> Text:
    """ "1 answer ended while Operator was not listening — run it?" and the answers, one a line."""
    count = len(answers)
    them = "it" if count == 1 else "them"
    headline = f"{plural(count, 'answer')} ended while Operator was not listening — run {them}?"
    lines = [Text(headline, style="bold")]
    for answer in answers:
        where = printable(answer.site) + (f": {printable(answer.title)}" if answer.title else "")
        writing = ", the model still writes it" if answer.generating else ""
        lines.append(
            Text(
                f"  • {where} ({plural(answer.blocks, 'block')}, "
                f"{plural(len(answer.lines), 'line')}{writing})"
            )
        )
    lines.append(
        Text(
            "The model wrote it while the bridge was off, Operator was closed, or the page was not "
            "watched yet, so it does not run by itself. Not now: the palette's \""
            + RUN_HELD
            + '" runs it later, while the bridge is on.'
        )
    )
    return Text("\n").join(lines)


class BridgeControlMixin(AppHost):
    def action_toggle_bridge(self) -> None:
        if self.bridge_state.server is None:
            self.run_worker(self.start_bridge(), group="bridge", exclusive=True)
        else:
            self.run_worker(self.stop_bridge(), group="bridge", exclusive=True)

    def action_pair_browser(self) -> None:
        server = self.bridge_state.server
        if server is None:
            self.run_worker(self.start_bridge(pair=True), group="bridge", exclusive=True)
            return
        server.pair_again()
        self._show_pairing()

    async def start_bridge(self, pair: bool = False) -> None:
        from ..bridge.pairing import stored_port
        from ..bridge.server import BridgeServer, BridgeUnavailable

        if self.bridge_state.server is not None:
            return
        server = BridgeServer(
            lambda: self.opened.runner,
            _Told(self),
            lambda: self.workspace.root.name if self.workspace is not None else None,
        )
        port = self.options.bridge_port
        if port is None:
            port = stored_port()
        try:
            await server.start(port)
        except BridgeUnavailable as exc:
            self.notify(f"The bridge is off: {exc}", title="Bridge", severity="error", timeout=15)
            return
        self.bridge_state.server = server
        self.welcome.show_bridge(True)
        if pair and server.pairing_code is None:
            server.pair_again()
        self.show_bridge_status(server.status())
        self.status(bridge_on_text(server.port, paired=server.bridge.pairing.paired is not None))
        if server.pairing_code is not None:
            self._show_pairing()

    async def stop_bridge(self) -> None:
        server, self.bridge_state.server = self.bridge_state.server, None
        if server is None:
            return
        self.offer_held([])  # what was held goes with the bridge: the page sends it again later
        await server.stop()
        self._badge().update(badge_text("off"))
        if self.is_running:
            self.welcome.show_bridge(False)
        self.status(
            "Bridge off: paste the model's answers, or press b to turn the bridge on again."
        )

    @property
    def bridge_on(self) -> bool:
        return self.bridge_state.server is not None

    def bridge_streams(self, number: int) -> bool:
        """Whether message `number` is still being fed by the browser."""
        server = self.bridge_state.server
        return server is not None and server.bridge.open_message(number) is not None

    def end_bridge_message(self, number: int) -> None:
        server = self.bridge_state.server
        if server is not None:
            server.bridge.end_message(number)

    def bridge_workspace_changed(self) -> None:
        server = self.bridge_state.server
        if server is not None:
            server.bridge.workspace_changed()

    def held_answers(self) -> list[HeldAnswer]:
        server = self.bridge_state.server
        return list(server.bridge.held.values()) if server is not None else []

    def offer_held(self, answers: list[HeldAnswer]) -> None:
        """Ask the person whether to run the answers that ended while Operator was not listening
        (the question is asked again, updated, when the list changes)."""
        asking = self.bridge_state.held_question
        if asking is not None:
            self.bridge_state.held_question = None
            if asking in self.screen_stack:  # (not when the app is closing)
                asking.dismiss(None)
        if not answers:
            return
        if len(self.screen_stack) > 1:
            # The person is in another dialog: a question opened under their fingers would take
            # the next y as its answer.
            self.notify(
                f"{plural(len(answers), 'answer')} ended while Operator was not listening. Close "
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
                self.action_run_held()
            else:
                self.status(
                    f"Not run: {plural(len(answers), 'answer')} from while Operator was not "
                    "listening "
                    f'{"waits" if len(answers) == 1 else "wait"}; the palette\'s "{RUN_HELD}" runs '
                    f"{'it' if len(answers) == 1 else 'them'}."
                )

        self.bridge_state.held_question = question
        self.push_screen(question, answered)

    def action_run_held(self) -> None:
        server = self.bridge_state.server
        ran = server.bridge.run_held() if server is not None else 0
        if ran == 0:
            self.notify(
                "No answer from while Operator was not listening waits.", severity="warning"
            )
            return
        self.status(f"Running {plural(ran, 'answer')} that ended while Operator was not listening.")

    def show_bridge_status(self, status: BridgeStatus) -> None:
        if self.bridge_state.server is None:
            return
        tab = status.tab
        self._badge().update(
            badge_text(
                status.state,
                site=tab.site if tab else None,
                title=tab.title if tab else None,
                code=status.pairing_code,
                browser=status.browser,
            )
        )
        if tab is not None and not tab.adapter_ok and tab.problem:
            self.status(f"The browser says: {tab.problem}")

    def _show_pairing(self) -> None:
        server = self.bridge_state.server
        if server is None or server.pairing_code is None or server.port is None:
            return
        if isinstance(self.screen, PairingScreen):
            self.screen.dismiss(None)
        self.push_screen(PairingScreen(server.pairing_code, server.port, str(EXTENSION_DIR)))

    def _badge(self) -> BridgeBadge:
        return self.bridge_badge
