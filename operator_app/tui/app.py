"""The Operator TUI: compose, bindings, and the view of the shown message (the workspace and its
session are workspace_session.py). File work runs in thread workers that drive the same Engine as
`operator-app exec` (runner.py); workers only post messages, and the handlers own the UI state.
How messages come in and what the engine says about them is message_flow.py; a write waiting for
the person is waiting_write.py; copy and undo are copy_undo.py; which keys apply now is
key_availability.py. The state they share is app_state.py's objects, created here once."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import DataTable, Footer, Static

from .. import settings
from ..engine.boundary.workspace import Workspace
from ..engine.state.session import Session
from .app_state import (
    AppOptions,
    BridgeState,
    Following,
    MessageBook,
    OpenWorkspace,
    OwnCopies,
    UndoState,
    WaitingWrite,
)
from .bridge_control import BridgeControlMixin
from .bridge_words import RUN_HELD
from .clipboard import ClipboardSource, SystemClipboard
from .copy_undo import CopyUndoMixin
from .display import plural, printable
from .key_availability import KeyAvailabilityMixin
from .keys import MAIN_KEYS, main_bindings
from .message_flow import MessageFlowMixin
from .runner import EngineRunner
from .screens.help import HelpScreen
from .state import MessageState
from .status_text import browsing_text
from .waiting_write import WaitingWriteMixin
from .widgets.bridge_badge import AppHeader, BridgeBadge
from .widgets.command_table import CommandTable
from .widgets.details_view import DetailsView
from .widgets.lines_view import CodeColours
from .widgets.message_view import MessageView
from .widgets.status import StatusLine
from .widgets.welcome import WelcomePanel
from .workspace_session import WorkspaceSessionMixin

if TYPE_CHECKING:
    from ..bridge.server import BridgeServer  # aiohttp: imported only when the bridge starts

REFRESH_DELAY_S = 0.05  # a 100-block paste posts 200 events at once: redraw once for many of them


class OperatorApp(
    KeyAvailabilityMixin,
    WorkspaceSessionMixin,
    MessageFlowMixin,
    WaitingWriteMixin,
    CopyUndoMixin,
    BridgeControlMixin,
    App[None],
):
    CSS_PATH = "app.tcss"
    TITLE = "Operator"
    BINDINGS = [*main_bindings(), Binding("ctrl+q", "quit", "Quit", priority=True)]
    # Below 100 columns the panes stack: side by side, the table had no room for a summary.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    def __init__(
        self,
        *,
        workspace: Path | None = None,
        state_dir: Path | None = None,
        follow: Path | None = None,
        watch_clipboard: bool = False,
        initial_message: str | None = None,
        clipboard_source: ClipboardSource | None = None,
        poll_interval: float = 0.2,
        clipboard_interval: float = 0.5,
        bridge: bool = False,
        bridge_port: int | None = None,
    ) -> None:
        super().__init__()
        self.options = AppOptions(
            workspace=workspace,
            state_dir=state_dir,
            follow=follow,
            watch_clipboard=watch_clipboard,
            clipboard_source=clipboard_source or SystemClipboard(),
            poll_interval=poll_interval,
            clipboard_interval=clipboard_interval,
            bridge=bridge,
            bridge_port=bridge_port,
        )
        # One object per concern; app_state.py says which module changes each.
        self.opened = OpenWorkspace(first_message=initial_message)
        self.book = MessageBook()
        self.following = Following()
        self.copies = OwnCopies()
        self.undo_state = UndoState()
        self.waiting = WaitingWrite()
        self.bridge_state = BridgeState()
        # This module's own: closing, and the coalesced redraw.
        self._shutting_down = threading.Event()
        self._refresh_scheduled = False
        self._tail_next_refresh = False
        self._footer_keys: tuple[bool | None, ...] = ()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        # Notifications quote ids, summaries and file names from the model and from files: as
        # markup, "[@click=app.quit]" would become a live action link, and control characters
        # would reach the terminal. Nothing here needs markup, so it is off by default.
        super().notify(
            printable(message),
            title=printable(title),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    # What the app shows of its state to its readers (tests, benchmarks), read-only.
    @property
    def runner(self) -> EngineRunner | None:
        return self.opened.runner

    @property
    def states(self) -> dict[int, MessageState]:
        return self.book.states

    @property
    def view_number(self) -> int | None:
        return self.book.view_number

    @property
    def bridge(self) -> BridgeServer | None:
        return self.bridge_state.server

    @property
    def workspace(self) -> Workspace | None:
        return self.runner.workspace if self.runner else None

    @property
    def session(self) -> Session | None:
        return self.runner.session if self.runner else None

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield WelcomePanel()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static("Message", classes="pane-title", id="message-title")
                yield MessageView(id="message")
            with Vertical(id="right"):
                yield Static("Commands", classes="pane-title")
                yield CommandTable(id="commands")
                yield Static("Details", classes="pane-title", id="details-title")
                yield DetailsView(id="details")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        # Held, not queried: App.query_one looks at the active screen, which may be a dialog.
        self.table, self.message_view = self.query_one(CommandTable), self.query_one(MessageView)
        self.details, self.status_line = self.query_one(DetailsView), self.query_one(StatusLine)
        self.welcome, self.message_title = (
            self.query_one(WelcomePanel),
            self.query_one("#message-title", Static),
        )
        self.bridge_badge = self.query_one(BridgeBadge)
        self.table.focus()
        theme = settings.theme()
        if (
            theme is not None and theme in self.available_themes
        ):  # one removed since is simply not used
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        start = self.options.workspace or settings.last_workspace()
        if start is None:
            self.status("Choose the workspace folder to begin.")
            self._pick_workspace(Path.cwd(), first_use=True)
        else:
            self.open_workspace(start)
        if self.options.follow is not None:
            self.follow_file(self.options.follow)
        if self.options.watch_clipboard:
            self.watch_clipboard()
        if self.options.bridge:
            self.run_worker(self.start_bridge(), group="bridge", exclusive=True)
        # Pygments' lexer table takes a quarter of a second to load: not on the first diff's time.
        self.run_worker(CodeColours.warm_up, thread=True, group="warm-up", exit_on_error=False)

    def _theme_changed(self, theme: Theme) -> None:
        settings.remember_theme(theme.name)  # chosen in the palette: the next start uses it too

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key in MAIN_KEYS:
            if self.check_action(key.action, ()) is not False:
                yield SystemCommand(
                    key.label, f"{key.display}: {key.help}", getattr(self, f"action_{key.action}")
                )
        on = settings.auto_copy()
        yield SystemCommand(
            f"Auto-copy results: turn {'off' if on else 'on'}",
            "copy a message's result blocks as soon as its last result is in (remembered; "
            f"now {'on' if on else 'off'})",
            self.action_toggle_auto_copy,
        )
        string = settings.prompt_dialect() == "string"
        yield SystemCommand(
            f"Prompt dialect: switch p to {'OPERATOR_CMD' if string else 'String (ChanFlow)'}",
            "which system prompt p copies: OPERATOR_CMD blocks, or String's "
            f"<\U0001d49e=string:...> blocks (remembered; now "
            f"{'String' if string else 'OPERATOR_CMD'}); Operator runs both",
            self.action_toggle_prompt_dialect,
        )
        yield SystemCommand(
            "Pair a browser",
            "show a new code to pair the Operator browser extension, in place of a paired one "
            "(starts the bridge)",
            self.action_pair_browser,
        )
        if self.bridge is not None and self.bridge.status().paired:
            yield SystemCommand(
                "Pair another browser",
                "show a code that pairs a second browser while the paired one stays paired",
                self.action_pair_another_browser,
            )
        held = self.held_answers()
        if held:
            yield SystemCommand(
                RUN_HELD,
                f"{plural(len(held), 'answer')} the model wrote while Operator was not "
                "listening: they run only when you say so",
                self.action_run_held,
            )
        for number, state in sorted(self.book.states.items()):
            yield SystemCommand(
                f"Go to message {number}",
                f"{state.source}: {plural(len(state.results), 'result')}",
                lambda number=number: self.browse(number),
                discover=False,
            )

    # --- the view ------------------------------------------------------------------------

    def current(self) -> MessageState | None:
        return self.book.current()

    def status(self, text: str) -> None:
        self.status_line.say(text)

    def request_refresh(self, *, tail: bool = False) -> None:
        """Redraw soon, once for all the changes until then; `tail`: the table's cursor follows
        the last rows this redraw brings."""
        self._tail_next_refresh = self._tail_next_refresh or tail
        if not self._refresh_scheduled:
            self._refresh_scheduled = True
            self.set_timer(REFRESH_DELAY_S, self._scheduled_refresh)

    def _scheduled_refresh(self) -> None:
        self._refresh_scheduled = False
        if not self._stopping():
            self.refresh_view()

    def refresh_view(self, reset: bool = False) -> None:
        state, table = self.current(), self.table
        if reset:
            table.reset()
        if state is None:
            self.message_title.update("Message")
            self.message_view.show("", {})
        else:
            numbers = sorted(self.book.states)
            where = f"{numbers.index(state.number) + 1} of {len(numbers)}, {state.source}"
            where += ", interrupted" if state.interrupted else ""
            title = f"Message {state.number} ({where})" + ("" if state.finished else " running")
            self.message_title.update(title)
            self.message_view.show(
                state.text,
                state.errors_by_line(),
                state.pending[0] if state.pending else None,
                state.warnings,
                message=(self.opened.runner, state.number),
            )
            tail = not state.finished or self._tail_next_refresh
            table.sync(state.ordered_rows(), tail=tail and not reset)
        self._tail_next_refresh = False
        self.show_selected()
        self._refresh_footer()

    def _refresh_footer(self) -> None:
        if not self.screen_stack:
            return  # the app is closing: a worker's late message has no footer to update
        # Redrawing the footer restyles it: only when a key's state changed, not on every event.
        keys = tuple(self.check_action(key.action, ()) for key in MAIN_KEYS)
        if keys != self._footer_keys:
            self._footer_keys = keys
            self.refresh_bindings()

    def show_selected(self) -> None:
        state, line = self.current(), self.table.selected_line()
        row = state.rows.get(line) if state is not None and line is not None else None
        self.details.show(row)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_selected()
        line = self.table.selected_line()
        if line is not None:
            self.message_view.scroll_to_line(line)

    def on_command_table_top_wanted(self, event: CommandTable.TopWanted) -> None:
        self.message_view.scroll_to_top()

    def show_message(self, number: int | None) -> None:
        if self.book.show(number):
            self.refresh_view(reset=True)

    # --- actions (copy and undo are in copy_undo.py, e in message_flow.py) ---------------

    def action_previous_message(self) -> None:
        self._step(-1, "previous_message")

    def action_next_message(self) -> None:
        self._step(1, "next_message")

    def _step(self, step: int, action: str) -> None:
        number = self.book.neighbour(step)
        if number is None:  # from the command palette, where a dimmed entry still runs
            self._explain(action)
        self.browse(number)

    def browse(self, number: int | None) -> None:
        """Show message `number` at the person's request, and say on the status line where they
        are."""
        self.show_message(number)
        state = self.current()
        if number is not None and state is not None and state.number == number:
            self.status(browsing_text(state, self.waiting.command_in(number)))

    def action_toggle_prompt_dialect(self) -> None:
        dialect = "operator" if settings.prompt_dialect() == "string" else "string"
        kept = settings.set_prompt_dialect(dialect)
        said = (
            "p now copies String's system prompt (<\U0001d49e=string:...> blocks)."
            if dialect == "string"
            else "p now copies the OPERATOR_CMD system prompt."
        )
        self.notify(
            said if kept else said + " (Not remembered: the settings file cannot be written.)"
        )

    def action_toggle_auto_copy(self) -> None:
        on = not settings.auto_copy()
        kept = settings.set_auto_copy(on)
        said = (
            "Auto-copy is on: each message's result blocks are copied as soon as its last result "
            "is in."
            if on
            else "Auto-copy is off: press c to copy a message's results."
        )
        self.notify(
            said
            + ("" if kept else f" (Not remembered: {settings.settings_file()} cannot be written.)"),
            severity="information" if kept else "warning",
        )

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def _leave(self) -> None:
        self._shutting_down.set()  # a worker waiting for consent gives up ("quit") at once
        await self.stop_bridge(final=True)
        self.exit()

    async def on_unmount(self) -> None:
        self._shutting_down.set()
        await self.stop_bridge(final=True)

    def _stopping(self) -> bool:
        return self._shutting_down.is_set() or not self.is_running
