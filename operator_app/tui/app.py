"""The Operator TUI, composed: this module lays out the screen, creates the state objects
(app_state.py) and the controllers that own them, and routes to those controllers what Textual
delivers to the app: its messages (from widgets, and from workers, which only post) and the
actions of the keys. Each controller holds one concern and sees the app only through AppLink
(app_link.py), which this class provides:

- panes.py: what the panes show, the coalesced redraw, browsing [ and ];
- workspace_session.py: the workspace and its session (w, the picker, reading a session back);
- message_flow.py: messages in (paste, --follow, the clipboard), the engine's events out to rows;
- waiting_write.py: the write that waits and its consent dialog (d, enter, ctrl+q);
- copies.py: copies of results and of the system prompt (c, p, auto-copy);
- undo.py: undo (u) and what the journal says;
- bridge_control.py: the browser bridge (b, pairing, answers held).

Which keys apply now, and why not, is keys.py's table: the bindings, check_action, a refused key's
explanation, the help screen and the palette read it. File work runs in thread workers that drive
the same Engine as `operator-app exec` (runner.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen, ScreenResultCallbackType
from textual.theme import Theme
from textual.widgets import DataTable, Footer, Static

from .. import settings
from ..engine import Session, Workspace
from .app_state import (
    AppOptions,
    BridgeState,
    Following,
    MessageBook,
    OpenWorkspace,
    OwnCopies,
    RunningCommand,
    UndoState,
    WaitingWrite,
)
from .bridge_control import BridgeControl
from .clipboard import ClipboardSource, SystemClipboard
from .copies import CopyControl
from .display import printable
from .keys import KEY_OF_ACTION, MAIN_KEYS, Key, Now, main_bindings
from .message_flow import MessageFlow
from .messages import (
    ClipboardText,
    ConsentAsked,
    CopyDone,
    EngineEventPosted,
    HistoryLoaded,
    MessageBegan,
    MessageFinished,
    MessageGrew,
    PendingChanged,
    UndoChecked,
    UndoDone,
    WorkFailed,
)
from .panes import Panes
from .runner import EngineRunner
from .running_command import RunningCommandControl
from .screens.help import HelpScreen
from .state import MessageState
from .undo import UndoControl
from .waiting_write import WaitingWriteControl
from .widgets.bridge_badge import AppHeader, BridgeBadge
from .widgets.command_table import CommandTable
from .widgets.details_view import DetailsView
from .widgets.lines_view import CodeColours
from .widgets.message_view import MessageView
from .widgets.status import StatusLine
from .widgets.welcome import WelcomePanel
from .workspace_session import WorkspaceSession

if TYPE_CHECKING:
    from ..bridge.server import BridgeServer  # aiohttp: imported only when the bridge starts

Answer = TypeVar("Answer")


class OperatorApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "Operator"
    BINDINGS = [*main_bindings(), Binding("ctrl+q", "quit", "Quit", priority=True)]
    # Below 100 columns the panes stack: side by side, the table had no room for a summary.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    # The controllers (_make_controllers), declared here so that what each attribute holds is
    # read from the class (tests/tui/test_state_owners.py).
    panes: Panes
    bridge_control: BridgeControl
    waiting_write: WaitingWriteControl
    running_command: RunningCommandControl
    copy_control: CopyControl
    undo_control: UndoControl
    message_flow: MessageFlow
    workspace_session: WorkspaceSession

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
        # One object per concern; app_state.py says which controller changes each (the others
        # only read it), and tests/tui/test_state_owners.py holds the code to that.
        self.opened = OpenWorkspace(first_message=initial_message)
        self.book = MessageBook()
        self.following = Following()
        self.copies = OwnCopies()
        self.undo_state = UndoState()
        self.waiting = WaitingWrite()
        self.bridge_state = BridgeState()
        self.running = RunningCommand()
        # This module's own: closing, and the keys' states the footer shows.
        self._shutting_down = threading.Event()
        self._footer_keys: tuple[bool | None, ...] = ()
        self._make_controllers()

    def _make_controllers(self) -> None:
        """The controllers: each given the state it changes, the state it reads, and the others
        it calls (no circle: each only calls those made before it); then the keys routed to
        them."""
        self.panes = Panes(self, self.book, self.opened, self.waiting)
        self.bridge_control = BridgeControl(
            self, self.panes, self.options, self.opened, self.bridge_state
        )
        self.waiting_write = WaitingWriteControl(self, self.panes, self.book, self.waiting)
        self.running_command = RunningCommandControl(self, self.panes, self.opened, self.running)
        self.copy_control = CopyControl(self, self.panes, self.opened, self.book, self.copies)
        self.undo_control = UndoControl(
            self, self.panes, self.opened, self.book, self.undo_state, self.waiting_write
        )
        self.message_flow = MessageFlow(
            self,
            self.panes,
            self.options,
            self.book,
            self.opened,
            self.following,
            self.waiting,
            self.copies,
            bridge_control=self.bridge_control,
            copy_control=self.copy_control,
            undo_control=self.undo_control,
            running_command=self.running_command,
        )
        self.workspace_session = WorkspaceSession(
            self,
            self.panes,
            self.options,
            self.book,
            self.opened,
            self.undo_state,
            waiting_write=self.waiting_write,
            bridge_control=self.bridge_control,
            undo_control=self.undo_control,
            message_flow=self.message_flow,
        )
        self._route_keys(
            (
                self.panes,
                self.workspace_session,
                self.message_flow,
                self.waiting_write,
                self.running_command,
                self.copy_control,
                self.undo_control,
                self.bridge_control,
            )
        )

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

    def current(self) -> MessageState | None:
        return self.book.current()

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
        self.panes.attach(
            message_view=self.message_view,
            message_title=self.message_title,
            table=self.table,
            details=self.details,
            status_line=self.status_line,
            welcome=self.welcome,
            bridge_badge=self.bridge_badge,
        )
        self.table.focus()
        theme = settings.theme()
        if (
            theme is not None and theme in self.available_themes
        ):  # one removed since is simply not used
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.workspace_session.begin()
        if self.options.follow is not None:
            self.message_flow.follow_file(self.options.follow)
        if self.options.watch_clipboard:
            self.message_flow.watch_clipboard()
        if self.options.bridge:
            self.in_loop(self.bridge_control.start_bridge(), group="bridge")
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
        yield from self.copy_control.palette()
        yield from self.bridge_control.palette()
        yield from self.panes.palette()
        yield from self.running_command.palette()

    # --- which keys apply now (keys.py's table) -------------------------------------------

    def now(self) -> Now:
        """What the keys' availability reads: the state objects, and whether no dialog is open."""
        return Now(
            options=self.options,
            opened=self.opened,
            book=self.book,
            following=self.following,
            undo=self.undo_state,
            waiting=self.waiting,
            bridge=self.bridge_state,
            running=self.running,
            alone=len(self.screen_stack) == 1,
        )

    def _route_keys(self, controllers: tuple[object, ...]) -> None:
        """Each key of the table to the controller with its action (`action_<name>`: Textual
        looks the action up on the app), and to `_key_refused` when its binding did not run:
        Textual then offers the key to the app's `key_<name>`."""
        for key in MAIN_KEYS:
            name = f"action_{key.action}"
            owners = [controller for controller in controllers if hasattr(controller, name)]
            if len(owners) > 1 or not (owners or hasattr(type(self), name)):
                raise TypeError(f"{key.display}: {name} on one controller, not {len(owners)}")
            if owners:
                setattr(self, name, getattr(owners[0], name))
            setattr(self, f"key_{key.key}", partial(self._key_refused, key))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        key = KEY_OF_ACTION.get(action)
        return True if key is None else key.applies(self.now())

    def _key_refused(self, key: Key) -> None:
        """`key` was pressed and its binding did not run, as it does not apply now: say why (not
        under a dialog, whose keys these are not), or run it anyway when it says so itself."""
        if len(self.screen_stack) != 1:
            return
        if key.runs_anyway:
            getattr(self, f"action_{key.action}")()
        else:
            self.explain(key.action)

    def explain(self, action: str) -> None:
        """Say why the key of `action` does nothing now (its entry in keys.py says it)."""
        self.notify(KEY_OF_ACTION[action].why_not(self.now()), severity="warning")

    def refresh_keys(self) -> None:
        if not self.screen_stack:
            return  # the app is closing: a worker's late message has no footer to update
        # Redrawing the footer restyles it: only when a key's state changed, not on every event.
        keys = tuple(self.check_action(key.action, ()) for key in MAIN_KEYS)
        if keys != self._footer_keys:
            self._footer_keys = keys
            self.refresh_bindings()

    # --- what the controllers ask of the app (app_link.py) ---------------------------------

    def dialog(
        self, screen: Screen[Answer], answered: ScreenResultCallbackType[Answer] | None = None
    ) -> None:
        self.push_screen(screen, answered)

    def in_thread(self, work: Callable[[], object], *, group: str) -> None:
        self.run_worker(work, thread=True, group=group, exit_on_error=False)

    def in_loop(self, work: Coroutine[Any, Any, None], *, group: str) -> None:
        self.run_worker(work, group=group, exclusive=True)

    def on_ui_thread(self, work: Callable[[], object]) -> None:
        self.call_from_thread(work)

    def after_redraw(self, work: Callable[[], object]) -> None:
        self.call_after_refresh(work)

    def later(self, delay: float, work: Callable[[], object]) -> None:
        self.set_timer(delay, work)

    # --- routing: what Textual delivers to the app, to the controller it concerns ----------

    def on_paste(self, event: events.Paste) -> None:
        self.message_flow.paste(event)

    def on_clipboard_text(self, message: ClipboardText) -> None:
        self.message_flow.start_message(message.text, "clipboard")

    def on_message_began(self, message: MessageBegan) -> None:
        self.message_flow.message_began(message)

    def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        self.message_flow.engine_event(message)

    def on_message_grew(self, message: MessageGrew) -> None:
        self.message_flow.message_grew(message)

    def on_pending_changed(self, message: PendingChanged) -> None:
        self.message_flow.pending_changed(message)

    def on_message_finished(self, message: MessageFinished) -> None:
        self.message_flow.message_finished(message)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.message_flow.work_failed(message)

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        self.workspace_session.history_loaded(message)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.panes.row_highlighted()

    def on_command_table_top_wanted(self, event: CommandTable.TopWanted) -> None:
        self.panes.top_wanted()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.waiting_write.row_chosen()

    def on_consent_asked(self, message: ConsentAsked) -> None:
        self.waiting_write.consent_asked(message)

    def on_copy_done(self, message: CopyDone) -> None:
        self.copy_control.copy_done(message)

    def on_undo_checked(self, message: UndoChecked) -> None:
        self.undo_control.checked(message)

    def on_undo_done(self, message: UndoDone) -> None:
        self.undo_control.done(message)

    async def action_quit(self) -> None:
        if not await self.running_command.quit_first():
            await self.waiting_write.quit()

    # --- the app's own: help, and closing ---------------------------------------------------

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def leave(self) -> None:
        self._shutting_down.set()  # a worker waiting for consent gives up ("quit") at once
        await self.bridge_control.stop_bridge(final=True)
        self.exit()

    async def on_unmount(self) -> None:
        self._shutting_down.set()
        await self.bridge_control.stop_bridge(final=True)

    def stopping(self) -> bool:
        return self._shutting_down.is_set() or not self.is_running
