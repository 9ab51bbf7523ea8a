"""The one thread that hands the bridge's stream operations to the engine. Feeding a chunk may
wait a long time (the session lock; a write waiting for the person's answer in the terminal), so
it never runs on the event loop that serves the browser. Operations run in arrival order; chunks
that piled up behind a wait are fed as one. What happens to each Operator message is told back
through `FeederEvents`, from this thread: the server moves it onto its loop.
"""

from __future__ import annotations

import functools
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..engine import EngineEvent
from ..protocol import CommandResult
from .pages import End, Feed, Open, StreamOp, page_origin

Observer = Callable[[EngineEvent], None]


class OpenStream(Protocol):
    number: int

    def feed(self, chunk: str) -> None: ...

    def end(self) -> None: ...


class StreamHost(Protocol):
    """What the front end that owns the engine (the TUI) lends the bridge: a streamed message
    run exactly like `--follow` runs one, and the results a message has recorded."""

    def open_stream(
        self,
        source: str,
        observer: Observer | None = None,
        lookahead: Callable[[], tuple[str, bool]] | None = None,
        origin: str | None = None,
    ) -> OpenStream: ...

    def results_of(self, number: int) -> list[CommandResult]: ...

    def message_text(self, number: int) -> str | None: ...

    @property
    def state_dir(self) -> Path: ...  # the session's folder: the bridge keeps its ledger there


class FeederEvents(Protocol):
    def opened(self, serial: int, number: int) -> None: ...

    def engine_event(self, serial: int, event: EngineEvent) -> None: ...

    def ended(self, serial: int, results: list[CommandResult]) -> None: ...

    def failed(self, serial: int, why: str) -> None: ...


class Feeder:
    def __init__(self, current_host: Callable[[], StreamHost | None], events: FeederEvents) -> None:
        self._current_host = current_host
        self._events = events
        self._ops: deque[StreamOp] = deque()
        self._wake = threading.Condition()
        self._stopping = False
        self._streams: dict[int, tuple[StreamHost, OpenStream]] = {}
        self._thread = threading.Thread(
            target=self._run, name="operator-bridge-feeder", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def put(self, ops: list[StreamOp]) -> None:
        if ops:
            with self._wake:
                self._ops.extend(ops)
                self._wake.notify()

    def stop(self) -> None:
        """Finish what is queued (the caller queues the End of every open message first), then
        stop."""
        with self._wake:
            self._stopping = True
            self._wake.notify()

    def join(self, timeout: float | None = None) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _next(self) -> StreamOp | None:
        with self._wake:
            while not self._ops:
                if self._stopping:
                    return None
                self._wake.wait()
            op = self._ops.popleft()
            if isinstance(op, Feed):
                # Chunks that queued up while a write waited for its answer go in at once.
                parts = [op.chunk]
                while (
                    self._ops
                    and isinstance(self._ops[0], Feed)
                    and self._ops[0].serial == op.serial
                ):
                    parts.append(self._ops.popleft().chunk)  # type: ignore[union-attr]
                if len(parts) > 1:
                    op = Feed(op.serial, "".join(parts))
            return op

    def lookahead(self, serial: int) -> tuple[str, bool]:
        """What the page already sent of message `serial` beyond what was fed (queued behind a
        write waiting for its answer), and whether more may follow (no End is queued): a
        write's dialog says from it what else the message will write."""
        with self._wake:
            queued = [op for op in self._ops if op.serial == serial]
        text = "".join(op.chunk for op in queued if isinstance(op, Feed))
        return text, not any(isinstance(op, End) for op in queued)

    def _run(self) -> None:
        while (op := self._next()) is not None:
            try:
                self._apply(op)
            except Exception as exc:
                self._drop(op.serial)
                self._events.failed(op.serial, f"{type(exc).__name__}: {exc}")
            except BaseException as exc:
                # The front end is going away in the middle of a write's question (the TUI's
                # Abandoned): that message stays unended, as a quit leaves a pasted one. Nothing
                # more is fed; the messages still open are told they failed, not left running.
                for serial in list(self._streams):
                    self._events.failed(
                        serial, f"the bridge stopped feeding it ({type(exc).__name__})"
                    )
                self._streams.clear()
                return

    def _drop(self, serial: int) -> None:
        """A message whose feeding failed is ended, so it does not stay 'running' in the TUI."""
        held = self._streams.pop(serial, None)
        if held is not None:
            try:
                held[1].end()
            except Exception:
                pass

    def _apply(self, op: StreamOp) -> None:
        if isinstance(op, Open):
            host = self._current_host()
            if host is None:
                self._events.failed(op.serial, "no workspace is open in Operator")
                return

            def observe(event: EngineEvent, serial: int = op.serial) -> None:
                self._events.engine_event(serial, event)

            # Every Operator message of one page message shares its origin: a block of it that
            # ran is never run again when the page sends the text once more.
            stream = host.open_stream(
                op.source,
                observe,
                functools.partial(self.lookahead, op.serial),
                origin=page_origin(op.key),
            )
            self._streams[op.serial] = (host, stream)
            self._events.opened(op.serial, stream.number)
            return
        held = self._streams.get(op.serial)
        if held is None:
            return  # its Open failed: already reported
        host, stream = held
        if isinstance(op, Feed):
            if host is not self._current_host():
                # The person chose another workspace: this message belongs to the old one.
                self._streams.pop(op.serial)
                stream.end()
                self._events.failed(
                    op.serial, "the workspace changed while the message was being written"
                )
                return
            stream.feed(op.chunk)
        elif isinstance(op, End):
            self._streams.pop(op.serial)
            stream.end()
            self._events.ended(op.serial, host.results_of(stream.number))
