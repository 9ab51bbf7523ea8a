"""The Operator TUI: compose, bindings and message handlers. All file work runs in thread workers
that drive the same Engine as `operator-app exec`; they only post messages, and the handlers here
own the UI state. A write's decision is asked from the worker thread, which waits for the
consent dialog's answer."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ..engine.executor import (
    AwaitingDecision, BlockStarted, DuplicateSkipped, Engine, EngineEvent, MessageOpened, Progress, ResultReady,
)
from ..engine.plan import WritePlan
from ..engine.session import Session, StateUnusable, default_state_dir
from ..engine.workspace import Workspace, WorkspaceUnusable
from ..protocol.results import render_results
from . import config
from .clipboard import ClipboardSource, SystemClipboard, copy_to_system
from .follow import FileFollower
from .messages import ClipboardText, EngineEventPosted, MessageFinished, MessageGrew, WorkFailed
from .screens.confirm import ConfirmScreen
from .screens.consent import ConsentScreen
from .screens.copy_fallback import CopyFallbackScreen
from .screens.help import HelpScreen
from .screens.picker import PickerScreen
from .state import MessageState, Row, load_history, status_of
from .widgets.command_table import CommandTable
from .widgets.message_view import MessageView

WELCOME = """[b]Welcome to Operator.[/b] The loop, in four steps:
  1. Press [b]p[/b] to copy the system prompt, and paste it into your chat with the model.
  2. Ask the model for what you want; it answers with OPERATOR_CMD blocks.
  3. Paste its whole answer here. Reads run at once; each write shows its diff and waits for [b]y[/b] / [b]n[/b].
  4. Press [b]c[/b] to copy the results, and paste them back into the chat.
Press [b]?[/b] for all keys."""


class OperatorApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "Operator"
    BINDINGS = [
        Binding("c", "copy_results", "Copy results"),
        Binding("p", "copy_prompt", "Copy prompt"),
        Binding("u", "undo", "Undo"),
        Binding("w", "pick_workspace", "Workspace"),
        Binding("left_square_bracket", "previous_message", "Prev msg"),
        Binding("right_square_bracket", "next_message", "Next msg"),
        Binding("e", "end_follow", "End message"),
        Binding("question_mark", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, *, workspace: Path | None = None, state_dir: Path | None = None, follow: Path | None = None,
                 watch_clipboard: bool = False, initial_message: str | None = None,
                 clipboard_source: ClipboardSource | None = None, poll_interval: float = 0.2) -> None:
        super().__init__()
        self._initial_workspace = workspace
        self._state_override = state_dir
        self._follow_path = follow
        self._watch_clipboard = watch_clipboard
        self._initial_message = initial_message
        self._clipboard_source = clipboard_source or SystemClipboard()
        self._poll_interval = poll_interval
        self.workspace: Workspace | None = None
        self.session: Session | None = None
        self.states: dict[int, MessageState] = {}
        self.view_number: int | None = None
        self._approve_rest: set[int] = set()
        self._own_copies: set[str] = set()
        self._end_follow = threading.Event()
        self._shutting_down = threading.Event()
        self._engine_lock = threading.Lock()  # one message at a time, in arrival order
        self._refresh_scheduled = False

    # --- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(WELCOME, id="welcome")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static("Message", classes="pane-title", id="message-title")
                yield MessageView(id="message")
            with Vertical(id="right"):
                yield Static("Commands", classes="pane-title")
                yield CommandTable(id="commands")
                yield Static("Details", classes="pane-title")
                with VerticalScroll(id="details-scroll"):
                    yield Static("", id="details")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        start = self._initial_workspace or config.last_workspace()
        if start is None:
            self.push_screen(PickerScreen(Path.cwd()), self._workspace_chosen)
        else:
            self.open_workspace(start, self._state_override)
        if self._follow_path is not None:
            self.follow_file(self._follow_path)
        if self._watch_clipboard:
            self.watch_clipboard()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer shows the keys that apply now: "end message" only while following a file.
        if action == "end_follow":
            return self._follow_path is not None
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and binding.action != "quit" and self.check_action(binding.action, ()):
                yield SystemCommand(binding.description, f"key {binding.key}", getattr(self, f"action_{binding.action}"))

    # --- workspace and session -----------------------------------------------------------

    def _workspace_chosen(self, path: Path | None) -> None:
        if path is not None:
            self.open_workspace(path, None)
        elif self.workspace is None:
            self.set_status("No workspace chosen: press w to choose one.")

    def open_workspace(self, path: Path, state_dir: Path | None) -> None:
        try:
            workspace = Workspace(path)
            session = Session(state_dir or default_state_dir(workspace.root))
        except (WorkspaceUnusable, StateUnusable) as exc:
            self.notify(str(exc), severity="error")
            self.push_screen(PickerScreen(Path.cwd()), self._workspace_chosen)
            return
        self.workspace, self.session = workspace, session
        config.remember_workspace(workspace.root)
        self.sub_title = str(workspace.root)
        self.states = load_history(session)
        self._approve_rest.clear()
        self.view_number = max(self.states, default=None)
        self.query_one("#welcome").display = not self.states
        self.refresh_view()
        if self._initial_message is not None:
            text, self._initial_message = self._initial_message, None
            self.start_message(text, "demo")

    # --- input ---------------------------------------------------------------------------

    def on_paste(self, event: events.Paste) -> None:
        if self.workspace is None or len(self.screen_stack) > 1 or not event.text.strip():
            return
        event.stop()
        self.start_message(event.text, "paste")

    def start_message(self, text: str, source: str) -> None:
        self.query_one("#welcome").display = False
        self.set_status(f"Working on a {source} of {len(text)} characters...")
        self.run_message(text, source)

    def _engine(self, holder: dict[str, int]) -> Engine:
        assert self.workspace is not None and self.session is not None

        def listener(event: EngineEvent) -> None:
            if isinstance(event, MessageOpened):
                holder["number"] = event.number
            self.post_message(EngineEventPosted(holder.get("number", 0), event))

        return Engine(self.workspace, self.session, decide=lambda plan: self._decide(plan, holder), listener=listener)

    @work(thread=True, exit_on_error=False, group="engine")
    def run_message(self, text: str, source: str) -> None:
        holder: dict[str, int] = {}
        try:
            with self._engine_lock:
                run = self._engine(holder).run_text(text, source=source)
            self.post_message(MessageFinished(run.number, run.warnings))
        except Exception as exc:  # noqa: BLE001 - shown, never lost silently
            self.post_message(WorkFailed(f"{type(exc).__name__}: {exc}"))

    @work(thread=True, exit_on_error=False, group="follow")
    def follow_file(self, path: Path) -> None:
        follower = FileFollower(path)
        run, text, holder = None, "", {}
        while not self._stopping():
            poll = follower.poll()
            if run is not None and (poll.restarted or self._end_follow.is_set()):
                self._end_follow.clear()
                run.end()
                self.post_message(MessageFinished(run.number, run.warnings))
                run, text = None, ""
            if poll.text:
                if run is None:
                    holder = {}
                    run = self._engine(holder).open_stream(source=f"follow {path.name}")
                    self.post_message(MessageGrew(run.number, "", None, None))
                text += poll.text
                with self._engine_lock:
                    run.feed(poll.text)
                pending = run.pending
                self.post_message(MessageGrew(run.number, text, pending.start_line if pending else None,
                                              pending.id_hint if pending else None))
            if run is None:
                self._end_follow.clear()  # nothing to end: forget the key press
            time.sleep(self._poll_interval)
        if run is not None:
            run.end()

    @work(thread=True, exit_on_error=False, group="clipboard")
    def watch_clipboard(self) -> None:
        last = self._clipboard_source.read()
        while not self._stopping():
            time.sleep(max(self._poll_interval, 0.05))
            text = self._clipboard_source.read()
            if text and text != last and "OPERATOR_CMD" in text and text not in self._own_copies:
                self.post_message(ClipboardText(text))
            last = text

    def on_clipboard_text(self, message: ClipboardText) -> None:
        if self.workspace is not None:
            self.start_message(message.text, "clipboard")

    # --- consent (asked from a worker thread) --------------------------------------------

    def _decide(self, plan: WritePlan, holder: dict[str, int]) -> bool:
        number = holder.get("number", 0)
        if number in self._approve_rest:
            return True
        answer: list[str] = []
        answered = threading.Event()

        def done(value: str | None) -> None:
            answer.append(value or "no")
            answered.set()

        self.call_from_thread(self.push_screen, ConsentScreen(plan), done)
        while not answered.wait(0.1):
            if self._stopping():
                return False
        if answer[0] == "all":
            self._approve_rest.add(number)
        return answer[0] in ("yes", "all")

    # --- engine events -------------------------------------------------------------------

    def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        event = message.event
        state = self.states.get(message.message_number)
        if isinstance(event, MessageOpened):
            assert self.session is not None
            self.states[event.number] = MessageState(event.number, self.session.message_text(event.number) or "", event.source)
            self.view_number = event.number
            self.refresh_view()
            return
        if state is None:
            return
        if isinstance(event, BlockStarted):
            state.rows[event.line] = Row(event.line, event.command_id, event.action, event.path, "running")
            state.pending = None
        elif isinstance(event, AwaitingDecision):
            row = self._row_for(state, event.plan.command_id)
            if row is not None:
                row.status, row.diff = "waiting for you", event.plan.diff
                row.summary = f"{event.plan.action} {event.plan.target.rel} +{event.plan.added} -{event.plan.removed}"
        elif isinstance(event, ResultReady):
            result = event.result
            line = result.line if result.line is not None else max(state.rows, default=0) + 1
            row = state.rows.setdefault(line, Row(line, result.id))
            row.command_id, row.action = result.id, result.action or row.action
            row.path = result.path or row.path
            row.status, row.summary, row.result = status_of(result), result.summary, result
            row.diff = result.diff or row.diff
        elif isinstance(event, DuplicateSkipped):
            line = event.line if event.line is not None else max(state.rows, default=0) + 1
            state.rows[line] = Row(line, event.command_id, event.earlier.action, event.earlier.path, "duplicate",
                                   f"already run in message {event.earlier_message}: {event.earlier.summary}", event.earlier)
        elif isinstance(event, Progress):
            self.set_status(f"{event.command_id}: {event.text}")
            return
        if self.view_number == state.number:
            self.request_refresh()

    def on_message_finished(self, message: MessageFinished) -> None:
        state = self.states.get(message.number)
        if state is None:
            return
        state.finished, state.warnings, state.pending = True, tuple(message.warnings), None
        ok = sum(1 for r in state.results if r.ok)
        self.set_status(f"Message {state.number}: {len(state.results)} results ({ok} ok). Press c to copy them."
                        + (f"  Warnings: {'; '.join(message.warnings)}" if message.warnings else ""))
        if self.view_number == state.number:
            self.request_refresh()

    def on_message_grew(self, message: MessageGrew) -> None:
        state = self.states.get(message.number)
        if state is None:
            return
        state.text = message.text
        state.pending = (message.pending_line, message.pending_id) if message.pending_line else None
        if state.pending:
            line = state.pending[0]
            state.rows.setdefault(line, Row(line, state.pending[1], status="pending"))
        if self.view_number == state.number:
            self.request_refresh()

    def on_work_failed(self, message: WorkFailed) -> None:
        self.notify(f"Operator failed: {message.text}", severity="error", timeout=10)

    @staticmethod
    def _row_for(state: MessageState, command_id: str) -> Row | None:
        for row in reversed(state.rows.values()):
            if row.command_id == command_id and row.result is None:
                return row
        return None

    # --- the view ------------------------------------------------------------------------

    def request_refresh(self) -> None:
        """Coalesce refreshes: a paste of 100 reads posts 200 events in a blink, and redrawing
        the message and table for each would make the UI crawl."""
        if not self._refresh_scheduled:
            self._refresh_scheduled = True
            self.set_timer(0.05, self._scheduled_refresh)

    def _scheduled_refresh(self) -> None:
        self._refresh_scheduled = False
        self.refresh_view(keep_cursor=True)

    def refresh_view(self, keep_cursor: bool = False) -> None:
        table = self.query_one(CommandTable)
        state = self.states.get(self.view_number) if self.view_number is not None else None
        title = self.query_one("#message-title", Static)
        if state is None:
            title.update("Message")
            self.query_one(MessageView).show("", {})
            table.reset()
            return
        count = len(self.states)
        position = sorted(self.states).index(state.number) + 1
        done = "" if state.finished else " (in progress)"
        title.update(f"Message {state.number} ({position} of {count}, {state.source}){done}")
        pending_line = state.pending[0] if state.pending else None
        self.query_one(MessageView).show(state.text, state.errors_by_line(), pending_line)
        cursor = table.cursor_row
        if not keep_cursor:
            table.reset()
        for row in sorted(state.rows.values(), key=lambda r: r.line):
            if row.status == "pending" and state.pending is None:
                continue
            table.upsert(row.line, row.command_id, row.action, row.path, row.status, row.summary)
        if keep_cursor and table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        self.show_details()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_details()

    def show_details(self) -> None:
        details = self.query_one("#details", Static)
        table = self.query_one(CommandTable)
        state = self.states.get(self.view_number) if self.view_number is not None else None
        if state is None or not table.row_count:
            details.update("")
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        row = state.rows.get(int(key)) if key is not None else None
        if row is None:
            details.update("")
            return
        details.update(render_details(row))

    def set_status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    # --- actions -------------------------------------------------------------------------

    def action_copy_results(self) -> None:
        state = self.states.get(self.view_number) if self.view_number is not None else None
        if state is None or self.session is None:
            self.notify("No message yet: paste the model's answer first.", severity="warning")
            return
        text = render_results(self.session.results_of(state.number))
        if not text:
            self.notify("This message has no results to copy.", severity="warning")
            return
        blocks = text.count("END_OPERATOR_RESULT")
        self._copy(text, f"{blocks} result block{'s' if blocks != 1 else ''} of message {state.number}",
                    self.session.state_dir / "copies" / f"message-{state.number}.txt")

    def action_copy_prompt(self) -> None:
        from ..protocol.spec import system_prompt

        folder = self.session.state_dir if self.session else config.config_dir()
        self._copy(system_prompt(), "the system prompt", folder / "copies" / "system-prompt.txt")

    def _copy(self, text: str, what: str, save_to: Path) -> None:
        self._own_copies.add(text)
        self.copy_to_clipboard(text)  # the terminal's clipboard (OSC 52)
        self._copy_system(text, what, save_to)

    @work(thread=True, exit_on_error=False, group="copy")
    def _copy_system(self, text: str, what: str, save_to: Path) -> None:
        try:
            save_to.parent.mkdir(parents=True, exist_ok=True)
            save_to.write_text(text, encoding="utf-8")
        except OSError:
            pass
        tool = copy_to_system(text)
        size = f"{len(text)} characters"
        if tool is not None:
            self.call_from_thread(self.notify, f"Copied {what} ({size}) to the clipboard with {tool} and the terminal.")
        else:
            self.call_from_thread(self.notify, f"Sent {what} ({size}) to the terminal clipboard; saved to {save_to}.")
            self.call_from_thread(self.push_screen, CopyFallbackScreen(text, save_to))

    def action_undo(self) -> None:
        if self.workspace is None or self.session is None:
            return
        from ..engine.journal import Journal
        from ..engine.undo import undoable

        entries = undoable(self.workspace, Journal(self.session.state_dir))
        if not entries:
            self.notify("Nothing to undo in this workspace.", severity="warning")
            return
        last = entries[0]

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.undo_last()

        self.push_screen(ConfirmScreen(f"Undo {last.action} on {last.rel} ({last.command_id})?"), confirmed)

    @work(thread=True, exit_on_error=False, group="undo")
    def undo_last(self) -> None:
        from ..engine.undo import UndoRefused, undo_last

        assert self.workspace is not None and self.session is not None
        try:
            with self.session.lock():
                done = undo_last(self.workspace, self.session.state_dir, 1)
            text = "; ".join(o.summary for o in done) or "Nothing to undo."
            self.call_from_thread(self.notify, text)
            self.call_from_thread(self.set_status, text)
        except (UndoRefused, StateUnusable) as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", timeout=10)

    def action_pick_workspace(self) -> None:
        start = self.workspace.root if self.workspace else Path.cwd()
        self.push_screen(PickerScreen(start), self._workspace_chosen)

    def action_previous_message(self) -> None:
        self._step_message(-1)

    def action_next_message(self) -> None:
        self._step_message(1)

    def _step_message(self, step: int) -> None:
        numbers = sorted(self.states)
        if not numbers or self.view_number is None:
            return
        index = max(0, min(len(numbers) - 1, numbers.index(self.view_number) + step))
        self.view_number = numbers[index]
        self.refresh_view()

    def action_end_follow(self) -> None:
        if self._follow_path is None:
            self.notify("Not following a file (start with --follow FILE).", severity="warning")
            return
        self._end_follow.set()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        self._shutting_down.set()
        self.exit()

    def on_unmount(self) -> None:
        self._shutting_down.set()  # however the app ends, the polling workers stop

    def _stopping(self) -> bool:
        return self._shutting_down.is_set() or not self.is_running


def render_details(row: Row) -> Text | Syntax:
    result = row.result
    if row.diff and (result is None or result.ok or result.status in ("rejected", "conflict")):
        head = f"{row.summary}\n\n" if row.summary else ""
        return Syntax(head + row.diff, "diff", theme="ansi_dark", word_wrap=True)
    if result is None:
        return Text(f"{row.status}: {row.command_id or ''} {row.action or ''} {row.path or ''}".strip())
    out = Text()
    out.append(result.summary + "\n\n", style="bold green" if result.ok else "bold red")
    details = result.details or ""
    if details.startswith(("{", "[")):
        try:
            details = json.dumps(json.loads(details), indent=2, ensure_ascii=False)
        except ValueError:
            pass
    out.append(details)
    return out
