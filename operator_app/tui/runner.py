"""The TUI's link to the engine, used only from worker threads: it runs one message at a time
(pasted whole, or streamed from a followed file or the browser bridge) with the same Engine as
`operator-app exec`, posts every engine event as a Textual message, and asks the UI for consent by
blocking on the `ask` callable. It never touches a widget."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from textual.message import Message

from ..engine import (
    Engine,
    EngineEvent,
    Lookahead,
    MessageOpened,
    MessageRun,
    Session,
    Workspace,
    WriteOutlook,
    WritePlan,
)
from ..protocol import CommandResult, MessageScan
from .command_answers import Answer, command_answer, command_policy
from .follow import FileFollower
from .messages import (
    EngineEventPosted,
    FromRunner,
    MessageBegan,
    MessageFinished,
    MessageGrew,
    PendingChanged,
)

Post = Callable[[Message], object]
Ask = Callable[
    [WritePlan, int, WriteOutlook], str
]  # blocks until the person answers "yes", "no", "all" or "quit"
Observer = Callable[
    [EngineEvent], None
]  # hears a streamed message's engine events too (the bridge)


class Abandoned(BaseException):
    """The person quit while a write waited for them. Not an answer: recording "rejected" would
    tell the model the person declined. Raised from the engine's decide callback, it passes the
    engine's per-command `except Exception` on purpose, so the message stops unended: after a
    restart its remaining commands show as not run, which is what they are."""


class EngineRunner:
    """One per open workspace; a new workspace gets a new runner (and so a new session)."""

    def __init__(self, workspace: Workspace, session: Session, post: Post, ask: Ask) -> None:
        self.workspace, self.session = workspace, session
        self._post_raw, self._ask = post, ask
        self._order = threading.Lock()  # one message at a time, in arrival order
        self._approve_rest: set[int] = set()

    def _post(self, message: FromRunner) -> None:
        message.origin = self
        self._post_raw(message)

    def _engine(
        self, opened: list[int], shown: Callable[[], str], observer: Observer | None = None
    ) -> Engine:
        """`shown`: what the screen starts the message from (all of a pasted message; nothing yet
        of a streamed one, whose chunks each come as a MessageGrew)."""

        def listener(event: EngineEvent) -> None:
            if isinstance(event, MessageOpened):
                opened.append(event.number)
                self._post(MessageBegan(event.number, event.source, shown()))
            else:
                self._post(EngineEventPosted(opened[0] if opened else 0, event))
            if observer is not None:
                observer(event)

        def decide(plan: WritePlan, outlook: WriteOutlook) -> Answer:
            number = opened[0] if opened else 0
            # A repeated message's change, or a command without a sandbox, runs only on its own
            # explicit yes, never on an earlier `a`.
            if number in self._approve_rest and not plan.needs_own_yes:
                return True
            answer = self._ask(plan, number, outlook)
            if answer == "quit":
                raise Abandoned
            if answer == "all":
                self._approve_rest.add(number)
            return command_answer(answer, plan, self.workspace.root)

        return Engine(
            self.workspace,
            self.session,
            decide=decide,
            listener=listener,
            shell=command_policy(self.workspace.root),
        )

    def run_text(
        self, text: str, source: str, scan: MessageScan | None = None
    ) -> MessageRun | None:
        """None when the person quit in the middle (the app is going away: nothing to tell it).
        `scan`: the message's scan, when the caller made it already (it is not made twice)."""
        with self._order:
            try:
                run = self._engine([], lambda: text).run_text(text, source=source, scan=scan)
            except Abandoned:
                return None
        self._post(MessageFinished(run.number, run.warnings))
        return run

    def open_stream(
        self,
        source: str,
        observer: Observer | None = None,
        lookahead: Lookahead | None = None,
        origin: str | None = None,
    ) -> StreamedMessage:
        return StreamedMessage(self, source, observer, lookahead, origin)

    def results_of(self, number: int) -> list[CommandResult]:
        """What `c` copies for message `number`: its results as the session recorded them."""
        return self.session.results_of(number)

    def message_text(self, number: int) -> str | None:
        return self.session.message_text(number)

    @property
    def state_dir(self) -> Path:
        return self.session.state_dir


class StreamedMessage:
    """A message arriving in pieces. The engine's streaming calls don't take the session lock
    themselves, so each is made under it here, like `run_text` is."""

    def __init__(
        self,
        runner: EngineRunner,
        source: str,
        observer: Observer | None = None,
        lookahead: Lookahead | None = None,
        origin: str | None = None,
    ) -> None:
        self._runner = runner
        self.text = ""
        opened: list[int] = []
        with runner._order, runner.session.lock():
            # The screen starts from what was fed (nothing yet), not from what the page already
            # sent beyond it: each chunk is shown by its own MessageGrew as it is fed. A followed
            # file may always grow; the bridge knows what it holds beyond and when it stopped.
            self.run = runner._engine(opened, lambda: self.text, observer).open_stream(
                source=source, lookahead=lookahead, origin=origin
            )
        self.number = self.run.number

    def feed(self, chunk: str) -> None:
        runner = self._runner
        runner._post(MessageGrew(self.number, chunk))  # the text shows before its blocks run
        self.text += chunk
        with runner._order, runner.session.lock():
            self.run.feed(chunk)
        pending = self.run.pending
        runner._post(
            PendingChanged(
                self.number,
                (pending.start_line, pending.label, pending.awaits) if pending else None,
            )
        )

    def end(self) -> None:
        runner = self._runner
        with runner._order, runner.session.lock():
            self.run.end()
        runner._post(MessageFinished(self.number, self.run.warnings))


def follow_loop(
    path: Path,
    current_runner: Callable[[], EngineRunner | None],
    end_requested: threading.Event,
    stopping: Callable[[], bool],
    interval: float,
) -> None:
    """Tail `path` until `stopping()`: new text feeds the open message (opening one if needed); the
    message ends when the file is truncated or replaced, when `end_requested` is set, or when the
    workspace changes. Nothing is read while no workspace is open."""
    follower = FileFollower(path)
    stream: StreamedMessage | None = None
    owner: EngineRunner | None = None
    while not stopping():
        runner = current_runner()
        ending = end_requested.is_set()
        # A request with no message open is forgotten, not kept for the next one.
        end_requested.clear()
        if stream is not None and (ending or runner is not owner):
            stream.end()
            stream = None
        if runner is not None:
            poll = follower.poll()
            if stream is not None and poll.restarted:
                stream.end()
                stream = None
            if poll.text:
                if stream is None:
                    stream, owner = runner.open_stream(f"follow {path.name}"), runner
                stream.feed(poll.text)
        time.sleep(interval)
    if stream is not None:
        stream.end()
