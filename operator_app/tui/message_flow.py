"""How messages reach the engine and how what the engine says reaches the screen. Input: a paste,
text followed in a file, or the watched clipboard, each run by a thread worker through the
EngineRunner (a write's consent dialog is asked from that worker, which waits for the answer:
waiting_write.py); e ends a message that streams in.
Output: the handlers of the runner's messages update the MessageState of each message and the
status line, then ask for a coalesced redraw. A mixin of OperatorApp, which owns the widgets; the
one that changes its Following (app_state.py)."""

from __future__ import annotations

from pathlib import Path

from textual import events, work
from textual.widgets import Input, TextArea

from .. import settings
from ..engine.executor import AwaitingDecision, Progress, ResultReady
from ..protocol.chanflow.blocks import ChanBlock
from ..protocol.chanflow.grammar import SIGIL
from ..protocol.message import scan_whole
from .clipboard import SystemClipboard, watch_loop
from .host import AppHost
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
from .status_text import decided_text, finished_text, streaming_text


def nothing_to_run(text: str) -> str | None:
    """Why a text holds nothing Operator could run, or None when it holds a block of either
    dialect (even an invalid one: its error is an answer)."""
    if "OPERATOR_CMD" in text:
        return None
    if f"<{SIGIL}=" in text:
        blocks = [b for b in scan_whole(text).blocks if isinstance(b, ChanBlock) and b.for_operator]
        if any(not block.is_response for block in blocks):
            return None
        if blocks:
            return "Operator's own String responses: paste them into the chat, not here"
    if "OPERATOR_RESULT" in text:
        return "Operator's own results (OPERATOR_RESULT blocks): paste them into the chat, not here"
    return f"no OPERATOR_CMD or <{SIGIL}=string:...> block in it, so there is nothing to run"


class MessageFlowMixin(AppHost):
    # --- input and workers ---------------------------------------------------------------

    def on_paste(self, event: events.Paste) -> None:
        if not event.text.strip():
            return
        event.stop()
        if len(self.screen_stack) > 1:
            if isinstance(self.focused, (Input, TextArea)):
                return  # the picker's path field took it (a pasted event still bubbles up to here)
            self.notify(
                "This paste was not taken: close the dialog first (answer it, or escape), then "
                "paste again.",
                severity="warning",
                timeout=8,
            )
            return
        self.start_message(event.text, "paste")

    def on_clipboard_text(self, message: ClipboardText) -> None:
        self.start_message(message.text, "clipboard")

    def start_message(self, text: str, source: str) -> None:
        runner = self.opened.runner
        if runner is None:
            self.notify("Choose a workspace first (w).", severity="warning")
            return
        refused = nothing_to_run(text)
        if refused is not None:
            # Nothing could run: don't add an empty message to the session.
            what = refused
            self.notify(
                f"The {source} ({len(text):,} characters) was not taken: {what}.",
                severity="warning",
                timeout=10,
            )
            return
        self.welcome.display = False
        waiting = self.waiting.write
        if waiting is not None:
            self.notify(
                f"This {source} runs once you decide on {waiting.plan.command_id} of message "
                f"{waiting.number}, which waits for you (d).",
                severity="warning",
                timeout=10,
            )
        else:
            self.status(f"Running a {source} of {len(text):,} characters...")
        self.run_message(runner, text, source)

    @work(thread=True, exit_on_error=False, group="engine")
    def run_message(self, runner: EngineRunner, text: str, source: str) -> None:
        try:
            runner.run_text(text, source)
        except Exception as exc:
            self.post_message(WorkFailed(f"{type(exc).__name__}: {exc}"))

    @work(thread=True, exit_on_error=False, group="follow")
    def follow_file(self, path: Path) -> None:
        try:
            follow_loop(
                path,
                lambda: self.opened.runner,
                self.following.end_requested,
                self._stopping,
                self.options.poll_interval,
            )
        except Abandoned:
            pass  # the app is quitting with a write unanswered: the message stays unended
        except Exception as exc:
            self.post_message(WorkFailed(f"following {path} stopped: {type(exc).__name__}: {exc}"))

    @work(thread=True, exit_on_error=False, group="clipboard")
    def watch_clipboard(self) -> None:
        source = self.options.clipboard_source
        if isinstance(source, SystemClipboard) and not source.available():
            self.post_message(
                WorkFailed(
                    f"--watch-clipboard is off: {source.why_unavailable()}. "
                    "Paste the model's messages instead."
                )
            )
            return
        watch_loop(
            source,
            lambda text: self.post_message(ClipboardText(text)),
            self.copies.is_own,
            self._stopping,
            self.options.clipboard_interval,
        )

    def action_end_follow(self) -> None:
        state = self.book.current()
        if state is not None and self.bridge_streams(state.number):
            self.status(
                f"Ending message {state.number}: what the browser adds to it from now on "
                "is not run."
            )
            self.end_bridge_message(state.number)
            return
        followed = self.following.open_message
        if followed is None:
            self._explain("end_follow")
            return
        self.status(f"Ending message {followed}...")
        self.following.end_requested.set()

    # --- engine events -------------------------------------------------------------------

    def _state_of(self, message: FromRunner, number: int) -> MessageState | None:
        return self.book.states.get(number) if message.origin is self.opened.runner else None

    def on_message_began(self, message: MessageBegan) -> None:
        if message.origin is not self.opened.runner:
            return
        state = MessageState(message.number, message.text, message.source)
        self.book.began(state)
        self.welcome.display = False
        if message.source.startswith("follow"):
            self.following.open_message = message.number
            if self.options.follow is not None:
                self.status(streaming_text(state, self.options.follow.name))
        elif message.source.startswith("bridge"):
            self.status(
                streaming_text(
                    state, f"the browser ({message.source.removeprefix('bridge ')})", end_key=False
                )
            )
        self.show_message(message.number)

    def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        state = self._state_of(message, message.message_number)
        if state is None:
            return
        event = message.event
        was_waiting = state.writes_waiting()
        state.apply(event)
        if isinstance(event, AwaitingDecision):
            plan = event.plan
            self.status(
                f"Message {state.number}: {plan.action} on {plan.where} waits for you "
                "(y: apply, n: reject, a: apply the rest, esc: decide later)."
            )
        elif isinstance(event, Progress):
            self.status(f"{event.command_id}: {event.text}")
        elif isinstance(event, ResultReady):
            result = event.result
            if was_waiting and not state.writes_waiting():
                self.status(decided_text(state.number, result))  # "waits for you" is over, say so
            if result.status in ("conflict", "failed") and result.diff:
                self.notify(
                    f"{result.id} was not applied: {result.summary}",
                    title="Write failed",
                    severity="error",
                    timeout=20,
                )
        if self.book.view_number == state.number:
            self.request_refresh()

    def on_message_grew(self, message: MessageGrew) -> None:
        state = self._state_of(message, message.number)
        if state is not None:
            state.grow(message.chunk)
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
        if self.following.open_message == state.number:
            self.following.open_message = None
        self.status(
            finished_text(state, to_browser=state.source.startswith("bridge") and self.bridge_on)
        )
        if settings.auto_copy() and state.results:
            self.copy_results_of(state, auto=True)
        for warning in state.warnings:
            self.notify(warning, title=f"Message {state.number}", severity="warning", timeout=15)
        self.check_undo()
        self.request_refresh(tail=True)  # the last rows may land with it: the cursor follows them

    def on_work_failed(self, message: WorkFailed) -> None:
        self.notify(message.text, title="Operator", severity="error", timeout=15)
