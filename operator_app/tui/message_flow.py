"""How messages reach the engine and how what the engine says reaches the screen. Input: a paste,
text followed in a file, or the watched clipboard, each run by a thread worker through the
EngineRunner (a write's consent dialog is asked from that worker, which waits for the answer:
waiting_write.py); e ends a message that streams in.
Output: the handlers of the runner's messages update the MessageState of each message and the
status line, then ask the panes for a coalesced redraw. A controller (app_link.py), and the one
that changes the Following (app_state.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Input, TextArea

from .. import settings
from ..engine import AwaitingDecision, BlocksFound, CommandOutput, Progress, ResultReady
from ..protocol import MessageScan, nothing_to_run, scan_whole
from .clipboard import SystemClipboard, watch_loop
from .messages import (
    ClipboardText,
    EngineEventPosted,
    FromRunner,
    MessageBegan,
    MessageFinished,
    MessageGrew,
    PendingChanged,
    WorkFailed,
)
from .runner import Abandoned, EngineRunner, follow_loop
from .state import MessageState
from .status_text import decided_text, finished_text, streaming_text, waits_text

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import (
        AppOptions,
        Following,
        MessageBook,
        OpenWorkspace,
        OwnCopies,
        WaitingWrite,
    )
    from .bridge_control import BridgeControl
    from .copies import CopyControl
    from .panes import Panes
    from .running_command import RunningCommandControl
    from .undo import UndoControl


class MessageFlow:
    def __init__(
        self,
        app: AppLink,
        panes: Panes,
        options: AppOptions,
        book: MessageBook,
        opened: OpenWorkspace,
        following: Following,
        waiting: WaitingWrite,
        copies: OwnCopies,
        *,
        bridge_control: BridgeControl,
        copy_control: CopyControl,
        undo_control: UndoControl,
        running_command: RunningCommandControl,
    ) -> None:
        self.app, self.panes, self.options, self.book = app, panes, options, book
        self.opened, self.following, self.waiting, self.copies = opened, following, waiting, copies
        self.bridge_control, self.copy_control = bridge_control, copy_control
        self.undo_control, self.running_command = undo_control, running_command

    # --- input and workers ---------------------------------------------------------------

    def paste(self, event: events.Paste) -> None:
        if not event.text.strip():
            return
        event.stop()
        if len(self.app.screen_stack) > 1:
            if isinstance(self.app.focused, (Input, TextArea)):
                return  # the picker's path field took it (a pasted event still bubbles up to here)
            self.app.notify(
                "This paste was not taken: close the dialog first (answer it, or escape), then "
                "paste again.",
                severity="warning",
                timeout=8,
            )
            return
        self.start_message(event.text, "paste")

    def start_message(self, text: str, source: str) -> None:
        runner = self.opened.runner
        if runner is None:
            self.app.notify("Choose a workspace first (w).", severity="warning")
            return
        # Scanned once: the engine runs this very scan (what it finds, or why nothing is there).
        scan = scan_whole(text)
        refused = nothing_to_run(scan, text)
        if refused is not None:
            # Nothing could run: don't add an empty message to the session.
            what = refused
            self.app.notify(
                f"The {source} ({len(text):,} characters) was not taken: {what}.",
                severity="warning",
                timeout=10,
            )
            return
        self.panes.show_welcome(False)
        waiting, running = self.waiting.write, self.running_command.running
        if waiting is not None:
            self.app.notify(
                f"This {source} runs once you decide on {waiting.plan.command_id} of message "
                f"{waiting.number}, which waits for you (d).",
                severity="warning",
                timeout=10,
            )
        elif running.output is not None:
            # Messages run one at a time: this one comes after the rest of the running one,
            # including any question its command's changes will ask.
            said = (
                f"This {source} runs once message {running.number} is done: its "
                f"{running.output.command_id} runs now (x stops it), and what it changes is "
                "asked about first."
            )
            self.app.notify(said, severity="warning", timeout=10)
            self.panes.status(said)
        else:
            self.panes.status(f"Running a {source} of {len(text):,} characters...")
        self.app.in_thread(lambda: self._run_message(runner, text, source, scan), group="engine")

    def _run_message(self, runner: EngineRunner, text: str, source: str, scan: MessageScan) -> None:
        """On a worker."""
        try:
            runner.run_text(text, source, scan)
        except Exception as exc:
            self.app.post_message(WorkFailed(f"{type(exc).__name__}: {exc}"))

    def follow_file(self, path: Path) -> None:
        self.app.in_thread(lambda: self._follow(path), group="follow")

    def _follow(self, path: Path) -> None:
        """On a worker."""
        opened = self.opened
        try:
            follow_loop(
                path,
                lambda: opened.runner,
                self.following.end_requested,
                self.app.stopping,
                self.options.poll_interval,
            )
        except Abandoned:
            pass  # the app is quitting with a write unanswered: the message stays unended
        except Exception as exc:
            self.app.post_message(
                WorkFailed(f"following {path} stopped: {type(exc).__name__}: {exc}")
            )

    def watch_clipboard(self) -> None:
        self.app.in_thread(self._watch_clipboard, group="clipboard")

    def _watch_clipboard(self) -> None:
        """On a worker."""
        source = self.options.clipboard_source
        if isinstance(source, SystemClipboard) and not source.available():
            self.app.post_message(
                WorkFailed(
                    f"--watch-clipboard is off: {source.why_unavailable()}. "
                    "Paste the model's messages instead."
                )
            )
            return
        watch_loop(
            source,
            lambda text: self.app.post_message(ClipboardText(text)),
            self.copies.is_own,
            self.app.stopping,
            self.options.clipboard_interval,
        )

    def action_end_follow(self) -> None:
        state = self.book.current()
        if state is not None and self.bridge_control.streams(state.number):
            self.panes.status(
                f"Ending message {state.number}: what the browser adds to it from now on "
                "is not run."
            )
            self.bridge_control.end_message(state.number)
            return
        followed = self.following.open_message
        if followed is None:
            self.app.explain("end_follow")
            return
        self.panes.status(f"Ending message {followed}...")
        self.following.end_requested.set()

    # --- engine events -------------------------------------------------------------------

    def _state_of(self, message: FromRunner, number: int) -> MessageState | None:
        return self.book.states.get(number) if message.origin is self.opened.runner else None

    def message_began(self, message: MessageBegan) -> None:
        if message.origin is not self.opened.runner:
            return
        state = MessageState(message.number, message.text, message.source)
        self.book.began(state)
        self.panes.show_welcome(False)
        if message.source.startswith("follow"):
            self.following.open_message = message.number
            if self.options.follow is not None:
                self.panes.status(streaming_text(state, self.options.follow.name))
        elif message.source.startswith("bridge"):
            self.panes.status(
                streaming_text(
                    state, f"the browser ({message.source.removeprefix('bridge ')})", end_key=False
                )
            )
        self.panes.show_message(message.number)

    def engine_event(self, message: EngineEventPosted) -> None:
        state = self._state_of(message, message.message_number)
        if state is None:
            return
        event = message.event
        was_waiting = state.writes_waiting()
        if isinstance(event, BlocksFound):
            state.found(event)  # where the view marks them, from the engine's scan
        else:
            state.apply(event)
        if isinstance(event, AwaitingDecision):
            self.panes.status(waits_text(state.number, event.plan))
        elif isinstance(event, Progress):
            self.panes.status(f"{event.command_id}: {event.text}")
        elif isinstance(event, CommandOutput):
            self.running_command.heard(state.number, event)
        elif isinstance(event, ResultReady):
            result = event.result
            if was_waiting and not state.writes_waiting():
                self.panes.status(
                    decided_text(state.number, result)
                )  # "waits for you" is over, say so
            if result.status in ("conflict", "failed") and result.diff:
                self.app.notify(
                    f"{result.id} was not applied: {result.summary}",
                    title="Write failed",
                    severity="error",
                    timeout=20,
                )
        if self.book.view_number == state.number:
            self.panes.request_refresh()

    def message_grew(self, message: MessageGrew) -> None:
        state = self._state_of(message, message.number)
        if state is not None:
            state.grow(message.chunk)
            self.panes.request_refresh()

    def pending_changed(self, message: PendingChanged) -> None:
        state = self._state_of(message, message.number)
        if state is not None:
            state.set_pending(message.pending)
            self.panes.request_refresh()

    def message_finished(self, message: MessageFinished) -> None:
        state = self._state_of(message, message.number)
        if state is None:
            return
        state.finish(message.warnings)
        if self.following.open_message == state.number:
            self.following.open_message = None
        self.panes.status(
            finished_text(
                state, to_browser=state.source.startswith("bridge") and self.bridge_control.on
            )
        )
        if settings.auto_copy() and state.results:
            self.copy_control.copy_results_of(state, auto=True)
        for warning in state.warnings:
            self.app.notify(
                warning, title=f"Message {state.number}", severity="warning", timeout=15
            )
        self.undo_control.check()
        # The last rows may land with it: the table's cursor follows them.
        self.panes.request_refresh(tail=True)

    def work_failed(self, message: WorkFailed) -> None:
        self.app.notify(message.text, title="Operator", severity="error", timeout=15)
