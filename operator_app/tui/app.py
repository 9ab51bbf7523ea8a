"""The Operator TUI: compose, bindings and message handlers. File work runs in thread workers that
drive the same Engine as `operator-app exec` (runner.py); workers only post messages, and the
handlers here own the UI state. A write's decision is asked from the worker thread, which waits
for the consent dialog's answer."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ..engine.executor import AwaitingDecision, Progress, ResultReady
from ..engine.plan import WritePlan
from ..engine.session import Session, StateUnusable, default_state_dir
from ..engine.workspace import Workspace, WorkspaceUnusable
from ..protocol.results import render_results
from . import config
from .clipboard import ClipboardSource, SystemClipboard, deliver, watch_loop
from .display import plural, pretty_path
from .keys import MAIN_KEYS, main_bindings
from .messages import (ClipboardText, CopyDone, EngineEventPosted, FromRunner, MessageBegan, MessageFinished,
                       MessageGrew, PendingChanged, UndoDone, WorkFailed)
from .runner import EngineRunner, follow_loop
from .screens.consent import ConsentScreen
from .screens.copy_fallback import CopyFallbackScreen
from .screens.help import HelpScreen
from .screens.picker import PickerScreen
from .screens.undo_confirm import UndoConfirmScreen
from .state import MessageState, load_history
from .widgets.command_table import CommandTable
from .widgets.details_view import DetailsView
from .widgets.message_view import MessageView
from .widgets.status import StatusLine
from .widgets.welcome import WelcomePanel

REFRESH_DELAY_S = 0.05  # a 100-block paste posts 200 events at once: redraw once for many of them


class OperatorApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "Operator"
    BINDINGS = [*main_bindings(), Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, *, workspace: Path | None = None, state_dir: Path | None = None, follow: Path | None = None,
                 watch_clipboard: bool = False, initial_message: str | None = None,
                 clipboard_source: ClipboardSource | None = None, poll_interval: float = 0.2,
                 clipboard_interval: float = 0.5) -> None:
        super().__init__()
        self._initial_workspace, self._state_override = workspace, state_dir
        self._follow_path, self._watch_clipboard = follow, watch_clipboard
        self._initial_message = initial_message
        self._clipboard_source = clipboard_source or SystemClipboard()
        self._poll_interval, self._clipboard_interval = poll_interval, clipboard_interval
        self.runner: EngineRunner | None = None
        self.states: dict[int, MessageState] = {}
        self.view_number: int | None = None
        self._followed: int | None = None  # the followed message still open
        self._own_copies: set[str] = set()
        self._can_undo = False
        self._end_follow = threading.Event()
        self._shutting_down = threading.Event()
        self._refresh_scheduled = False
        self._footer_keys: tuple[bool | None, ...] = ()

    @property
    def workspace(self) -> Workspace | None:
        return self.runner.workspace if self.runner else None

    @property
    def session(self) -> Session | None:
        return self.runner.session if self.runner else None

    def compose(self) -> ComposeResult:
        yield Header()
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
        yield Footer()

    def on_mount(self) -> None:
        # Held, not queried: App.query_one looks at the active screen, which may be a dialog.
        self.table, self.message_view = self.query_one(CommandTable), self.query_one(MessageView)
        self.details, self.status_line = self.query_one(DetailsView), self.query_one(StatusLine)
        self.welcome, self.message_title = self.query_one(WelcomePanel), self.query_one("#message-title", Static)
        self.table.focus()
        start = self._initial_workspace or config.last_workspace()
        if start is None:
            self.status("Choose the workspace folder to begin.")
            self.push_screen(PickerScreen(Path.cwd(), first_use=True), self._workspace_chosen)
        else:
            self.open_workspace(start, self._state_override)
        if self._follow_path is not None:
            self.follow_file(self._follow_path)
        if self._watch_clipboard:
            self.watch_clipboard()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides a key from the footer; None shows it dimmed: it applies, just not now.
        state = self.current()
        if action == "end_follow":
            return False if self._follow_path is None else (True if self._followed is not None else None)
        if action == "copy_results":
            return True if state is not None and state.results else None
        if action in ("previous_message", "next_message"):
            return True if self._neighbour(-1 if action == "previous_message" else 1) is not None else None
        if action == "undo":
            return True if self._can_undo else None
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key in MAIN_KEYS:
            if self.check_action(key.action, ()) is not False:
                yield SystemCommand(key.label, f"{key.display}: {key.help}", getattr(self, f"action_{key.action}"))
        for number, state in sorted(self.states.items()):
            yield SystemCommand(f"Go to message {number}", f"{state.source}: {plural(len(state.results), 'result')}",
                                lambda number=number: self.show_message(number), discover=False)  # type: ignore[misc]

    # --- workspace and session -----------------------------------------------------------

    def _workspace_chosen(self, path: Path | None) -> None:
        if path is not None and (self.workspace is None or path != self.workspace.root):
            self.open_workspace(path, None)
        elif self.runner is None:
            self.status("No workspace chosen: press w to choose one.")

    def open_workspace(self, path: Path, state_dir: Path | None) -> None:
        try:
            workspace = Workspace(path)
            session = Session(state_dir or default_state_dir(workspace.root))
        except (WorkspaceUnusable, StateUnusable) as exc:
            self.notify(str(exc), severity="error", timeout=10)
            self.push_screen(PickerScreen(Path.cwd(), first_use=self.runner is None), self._workspace_chosen)
            return
        self.runner = EngineRunner(workspace, session, self.post_message, self._ask_consent)
        config.remember_workspace(workspace.root)
        self.sub_title = pretty_path(workspace.root)
        self.states = load_history(session)
        self.view_number = max(self.states, default=None)
        self.welcome.display = not self.states
        self._update_undo()
        self.refresh_view(reset=True)
        if self.states:
            self.status(f"Session resumed: {plural(len(self.states), 'message')}; [ and ] browse them. "
                        "Paste the model's next answer anywhere.")
        else:
            self.status("Paste the model's answer anywhere on this screen.")
        if self._initial_message is not None:
            text, self._initial_message = self._initial_message, None
            self.start_message(text, "message file")

    # --- input and workers ---------------------------------------------------------------

    def on_paste(self, event: events.Paste) -> None:
        if len(self.screen_stack) > 1 or not event.text.strip():
            return
        event.stop()
        self.start_message(event.text, "paste")

    def on_clipboard_text(self, message: ClipboardText) -> None:
        self.start_message(message.text, "clipboard")

    def start_message(self, text: str, source: str) -> None:
        if self.runner is None:
            self.notify("Choose a workspace first (w).", severity="warning")
            return
        self.welcome.display = False
        self.status(f"Running a {source} of {len(text):,} characters...")
        self.run_message(self.runner, text, source)

    @work(thread=True, exit_on_error=False, group="engine")
    def run_message(self, runner: EngineRunner, text: str, source: str) -> None:
        try:
            runner.run_text(text, source)
        except Exception as exc:  # noqa: BLE001 - shown, never lost silently
            self.post_message(WorkFailed(f"{type(exc).__name__}: {exc}"))

    @work(thread=True, exit_on_error=False, group="follow")
    def follow_file(self, path: Path) -> None:
        try:
            follow_loop(path, lambda: self.runner, self._end_follow, self._stopping, self._poll_interval)
        except Exception as exc:  # noqa: BLE001
            self.post_message(WorkFailed(f"following {path} stopped: {type(exc).__name__}: {exc}"))

    @work(thread=True, exit_on_error=False, group="clipboard")
    def watch_clipboard(self) -> None:
        source = self._clipboard_source
        if isinstance(source, SystemClipboard) and not source.available():
            self.post_message(WorkFailed("--watch-clipboard: no clipboard tool found (wl-paste, xclip, xsel, pbpaste)"))
            return
        watch_loop(source, lambda text: self.post_message(ClipboardText(text)),
                   lambda text: text.strip() in self._own_copies, self._stopping, self._clipboard_interval)

    def _ask_consent(self, plan: WritePlan, number: int) -> str:
        """Called on the engine's worker thread: show the dialog, wait for the answer."""
        answered, answer = threading.Event(), []

        def done(value: str | None) -> None:
            answer.append(value or "no")
            answered.set()

        try:
            self.call_from_thread(lambda: self.push_screen(ConsentScreen(plan, number), done))
        except RuntimeError:  # the app is gone
            return "no"
        while not answered.wait(0.1):
            if self._stopping():
                return "no"
        return answer[0]

    # --- engine events -------------------------------------------------------------------

    def _state_of(self, message: FromRunner, number: int) -> MessageState | None:
        return self.states.get(number) if message.origin is self.runner else None

    def on_message_began(self, message: MessageBegan) -> None:
        if message.origin is not self.runner:
            return
        self.states[message.number] = MessageState(message.number, message.text, message.source)
        if message.source.startswith("follow"):
            self._followed = message.number
        self.show_message(message.number)

    def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        state = self._state_of(message, message.message_number)
        if state is None:
            return
        event = message.event
        state.apply(event)
        if isinstance(event, AwaitingDecision):
            plan = event.plan
            self.status(f"Message {state.number}: {plan.action} on {plan.target.rel} waits for you "
                        "(y apply, n reject, a apply the rest).")
        elif isinstance(event, Progress):
            self.status(f"{event.command_id}: {event.text}")
        elif isinstance(event, ResultReady) and event.result.status in ("conflict", "failed") and event.result.diff:
            self.notify(f"{event.result.id} was not applied: {event.result.summary}", title="Write failed",
                        severity="error", timeout=20)
        if self.view_number == state.number:
            self.request_refresh()

    def on_message_grew(self, message: MessageGrew) -> None:
        state = self._state_of(message, message.number)
        if state is not None:
            state.text += message.chunk
            state.version += 1
            self.request_refresh()

    def on_pending_changed(self, message: PendingChanged) -> None:
        state = self._state_of(message, message.number)
        if state is not None:
            state.set_pending(message.pending)
            self.request_refresh()

    def on_message_finished(self, message: MessageFinished) -> None:
        state = self._state_of(message, message.number)
        if state is None:
            return
        state.finish(message.warnings)
        if self._followed == state.number:
            self._followed = None
        results = state.results
        failed = sum(1 for r in results if not r.ok)
        text = f"Message {state.number}: {plural(len(results), 'result')}"
        text += f" ({failed} not ok)" if failed else ""
        text += ". Press c to copy them back." if results else "."
        if message.warnings:
            text += "  Warnings: " + "; ".join(message.warnings)
        self.status(text)
        self._update_undo()
        self.request_refresh()

    def on_work_failed(self, message: WorkFailed) -> None:
        self.notify(message.text, title="Operator", severity="error", timeout=15)

    # --- the view ------------------------------------------------------------------------

    def current(self) -> MessageState | None:
        return self.states.get(self.view_number) if self.view_number is not None else None

    def status(self, text: str) -> None:
        self.status_line.say(text)

    def request_refresh(self) -> None:
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
            numbers = sorted(self.states)
            title = f"Message {state.number} ({numbers.index(state.number) + 1} of {len(numbers)}, {state.source})"
            title += "" if state.finished else " running"
            title += " interrupted: the app stopped before it ended" if state.interrupted else ""
            self.message_title.update(title)
            self.message_view.show(state.text, state.errors_by_line(), state.pending[0] if state.pending else None)
            table.sync(state.ordered_rows(), tail=not state.finished)
        self.show_selected()
        self._refresh_footer()

    def _refresh_footer(self) -> None:
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

    def show_message(self, number: int | None) -> None:
        if number is not None and number in self.states:
            self.view_number = number
            self.refresh_view(reset=True)

    def _neighbour(self, step: int) -> int | None:
        numbers = sorted(self.states)
        if self.view_number not in numbers:
            return None
        index = numbers.index(self.view_number) + step
        return numbers[index] if 0 <= index < len(numbers) else None

    # --- actions -------------------------------------------------------------------------

    def action_copy_results(self) -> None:
        state, session = self.current(), self.session
        results = session.results_of(state.number) if state is not None and session is not None else []
        if state is None or session is None or not results:
            self.notify("Nothing to copy yet: paste the model's answer first.", severity="warning")
            return
        still_open = "" if state.finished else " so far (the message is still open)"
        self._copy(render_results(results), f"{plural(len(results), 'result block')} of message {state.number}{still_open}",
                   session.state_dir / "copies" / f"message-{state.number}.txt")

    def action_copy_prompt(self) -> None:
        from ..protocol.spec import system_prompt

        folder = self.session.state_dir if self.session else config.config_dir()
        self._copy(system_prompt(), "the system prompt", folder / "copies" / "system-prompt.txt")

    def _copy(self, text: str, what: str, save_to: Path) -> None:
        self._own_copies.add(text.strip())
        self.copy_to_clipboard(text)  # the terminal's clipboard (OSC 52); also sets app.clipboard
        self.deliver_copy(text, what, save_to)

    @work(thread=True, exit_on_error=False, group="copy")
    def deliver_copy(self, text: str, what: str, save_to: Path) -> None:
        self.post_message(CopyDone(what, text, deliver(text, save_to)))

    def on_copy_done(self, message: CopyDone) -> None:
        outcome, size = message.outcome, f"{message.outcome.chars:,} characters"
        saved = f" Saved in {outcome.saved_to}." if outcome.saved_to else ""
        how = f"the clipboard ({outcome.tool}) and the terminal's" if outcome.tool else "the terminal's clipboard (OSC 52)"
        self.notify(f"Copied {message.what} ({size}) to {how}.{saved}", title="Copied")
        self.status(f"Copied {message.what} ({size}): paste it into the chat.")
        if outcome.tool is None and not config.terminal_copy_trusted() and len(self.screen_stack) == 1:
            self.push_screen(CopyFallbackScreen(message.text, message.what, outcome.saved_to),
                             lambda trusted: config.trust_terminal_copy() if trusted else None)

    def _update_undo(self) -> None:
        from ..engine.journal import Journal
        from ..engine.undo import undoable

        runner = self.runner
        self._can_undo = runner is not None and bool(undoable(runner.workspace, Journal(runner.session.state_dir)))
        self._refresh_footer()

    def action_undo(self) -> None:
        from ..engine.journal import Journal
        from ..engine.undo import undoable

        runner = self.runner
        entries = undoable(runner.workspace, Journal(runner.session.state_dir)) if runner else []
        if runner is None or not entries:
            self.notify("Nothing to undo in this workspace.", severity="warning")
            return
        self.push_screen(UndoConfirmScreen(entries[0], len(entries) - 1),
                         lambda yes: self.undo_last(runner) if yes else None)

    @work(thread=True, exit_on_error=False, group="undo")
    def undo_last(self, runner: EngineRunner) -> None:
        from ..engine.undo import UndoRefused, undo_last

        try:
            with runner.session.lock():
                done = undo_last(runner.workspace, runner.session.state_dir, 1)
            self.post_message(UndoDone("; ".join(o.summary for o in done) or "Nothing to undo.", True))
        except (UndoRefused, StateUnusable) as exc:
            self.post_message(UndoDone(f"Undo refused: {exc}", False))

    def on_undo_done(self, message: UndoDone) -> None:
        self.notify(message.text, title="Undo", severity="information" if message.ok else "error", timeout=10)
        self.status(message.text + (". The model still thinks the change is there: tell it." if message.ok else ""))
        self._update_undo()

    def action_pick_workspace(self) -> None:
        start = self.workspace.root if self.workspace else Path.cwd()
        self.push_screen(PickerScreen(start), self._workspace_chosen)

    def action_previous_message(self) -> None:
        self.show_message(self._neighbour(-1))

    def action_next_message(self) -> None:
        self.show_message(self._neighbour(1))

    def action_end_follow(self) -> None:
        if self._followed is None:
            self.notify("No followed message is open.", severity="warning")
            return
        self.status(f"Ending message {self._followed}...")
        self._end_follow.set()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        self._shutting_down.set()  # a worker waiting for consent gives up ("no") at once
        self.exit()

    def on_unmount(self) -> None:
        self._shutting_down.set()

    def _stopping(self) -> bool:
        return self._shutting_down.is_set() or not self.is_running
