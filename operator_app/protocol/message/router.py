"""Finds the blocks of every dialect in one message, whole or streamed (sans-IO), as one list of
events in message order: the message's text routed to each registered dialect's reader
(reader.py says the two kinds and what each is given).

Text outside every block goes to the line readers (OPERATOR_CMD's); each span reader (String's)
names the places where a block of its may open, the earliest is looked at by its reader, and
from an open tag to its close the text is that reader's alone. A block is emitted the moment its
end arrives; one still open is `pending` until `end()`. Feeding a text whole or in any chunking
yields the same events, keys included.

Cost is linear: a chunk no span reader would look at costs a list append and the line readers'
own feed; outside blocks each span reader searches for its openers with str.find, inside a block
for its end, and each character is counted and hashed once (taken.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from .. import grammar
from ..blocks import ScanWarning
from .reader import LineReader, MessageEvent, Opening, Pending, Reader, SpanReader
from .taken import ACCOUNT_EVERY, Taken
from .window import MessageScan, message_window

__all__ = ["MessageScanner", "scan_whole", "windowed_scanner"]

Feed = Callable[[str], list[MessageEvent]]
Quiet = Callable[[str, "MessageScanner"], bool]


class MessageScanner:
    """The message's scanner: feed() / end() / pending, whatever dialects its blocks are of.
    `readers`: one per dialect, the table's (protocol/dialects.py) unless given."""

    def __init__(
        self,
        *,
        first_line: int = 1,
        skip_first_fragment: bool = False,
        window_cut: bool = False,
        readers: Sequence[Reader] | None = None,
    ) -> None:
        opening = Opening(first_line, skip_first_fragment, window_cut)
        if readers is None:
            from ..dialects import readers_for

            readers = readers_for(opening)
        self.span_readers: tuple[SpanReader, ...] = tuple(
            cast(SpanReader, reader) for reader in readers if reader.spans
        )
        self.line_readers: tuple[LineReader, ...] = tuple(
            cast(LineReader, reader) for reader in readers if not reader.spans
        )
        self._taken = Taken(first_line)
        self._pieces = self._taken.pieces
        self.take = self._taken.take
        self.tail = self._taken.tail
        self.line = self._taken.line
        self.key = self._taken.key
        self._feed_lines: Feed = self._lines_feed()
        self._quiet: Quiet = self._quiet_check()
        self._held = ""  # text cut by the end of the last chunk, read again with the next
        self.fragment = skip_first_fragment  # the window began inside a line: no block opens in it
        self.claimed: SpanReader | None = None  # the span reader whose block is open
        self._first = first_line == 1 and not skip_first_fragment
        self.ended = False
        # Nothing is held, open or cut, and the first chunk (which may start with a BOM) is past:
        # a chunk no span reader would look at needs no walk.
        self._plain = False
        self._events: list[MessageEvent] = []

    def _lines_feed(self) -> Feed:
        """One call that feeds every line reader (the usual one reader's own feed)."""
        feeds = [cast(Feed, reader.feed) for reader in self.line_readers]
        if len(feeds) == 1:
            return feeds[0]

        def feed_all(piece: str) -> list[MessageEvent]:
            events: list[MessageEvent] = []
            for feed in feeds:
                events += feed(piece)
            return events

        return feed_all

    def _quiet_check(self) -> Quiet:
        """One call that asks every span reader whether a chunk is quiet for it."""
        checks = [reader.quiet for reader in self.span_readers]
        if len(checks) == 1:
            return checks[0]
        return lambda chunk, walk: all(check(chunk, walk) for check in checks)

    # --- what is open ---------------------------------------------------------------------

    @property
    def pending(self) -> Pending | None:
        if self.claimed is not None:
            return self.claimed.pending
        for reader in self.line_readers:
            found = reader.pending
            if found is not None:
                return found
        return None

    # --- feeding --------------------------------------------------------------------------

    def feed(self, chunk: str, _every: int = ACCOUNT_EVERY) -> list[MessageEvent]:
        # (_every: a constant as a local, read for every chunk of a stream.) Two characters or
        # more: what a place in the next chunk may follow is then in this one, the last piece
        # taken.
        if self._plain and len(chunk) > 1 and self._quiet(chunk, self):
            pieces = self._pieces
            pieces.append(chunk)
            if len(pieces) > _every:
                self._taken.account()
            return self._feed_lines(chunk)
        return self._feed_walking(chunk)

    def _feed_walking(self, chunk: str) -> list[MessageEvent]:
        if self.ended:
            raise RuntimeError("feed() after end()")
        if self._first and chunk:
            self._first = False
            # A byte order mark opening the message is encoding, not text (scanner.py says why).
            chunk = chunk.removeprefix("\ufeff")
        if not chunk:
            return []
        text = self._held + chunk if self._held else chunk
        self._held = ""
        events: list[MessageEvent] = []
        self._events = events
        self._walk(text)
        self._plain = not (self._held or self.claimed is not None or self.fragment)
        return events

    def end(self) -> list[MessageEvent]:
        if self.ended:
            return []
        self._plain = False
        events: list[MessageEvent] = []
        self._events = events
        held, self._held = self._held, ""
        claimed = self.claimed
        if claimed is not None:
            claimed.finish(held, self)
        elif held:
            self.outside(held)
        for reader in self.line_readers:
            events += reader.end()
        self.ended = True
        return events

    # --- the walk -------------------------------------------------------------------------

    def _walk(self, text: str) -> None:
        pos, size = 0, len(text)
        for reader in self.span_readers:
            pos = reader.resume(text, pos, self)
        while pos < size:
            claimed = self.claimed
            if claimed is not None:
                pos = claimed.inside(text, pos, self)
            elif self.fragment:
                pos = self._fragment_line(text, pos, size)
            else:
                at, looking = self._next_place(text, pos)
                if looking is None:
                    self.outside(text[pos:] if pos else text)
                    return
                pos = looking.look(text, pos, at, self)

    def _fragment_line(self, text: str, pos: int, size: int) -> int:
        """The window began inside a line: up to its end no block opens."""
        brk = grammar.first_break(text, pos, size)
        if brk < 0:
            self.outside(text[pos:])
            return size
        self.outside(text[pos : brk + 1])
        self.fragment = False
        return brk + 1

    def _next_place(self, text: str, pos: int) -> tuple[int, SpanReader | None]:
        """The earliest place a span reader must look at, and that reader (the table's order
        breaks a tie)."""
        best, chosen = -1, None
        for reader in self.span_readers:
            at = reader.next_at(text, pos)
            if at >= 0 and (best < 0 or at < best):
                best, chosen = at, reader
        return best, chosen

    # --- what a span reader is offered (reader.py `Walk`) -----------------------------------

    def outside(self, piece: str) -> None:
        if piece:
            self.take(piece)
            self._events += self._feed_lines(piece)

    def others_open(self) -> bool:
        # A loop, not any() over a generator: asked at every open tag, and 4% of a message of
        # String blocks (benchmarks/bench_chanflow.py) went to making the generator.
        for reader in self.line_readers:  # noqa: SIM110
            if reader.pending is not None:
                return True
        return False

    def hold(self, text: str, at: int) -> None:
        self._held = text[at:]

    def claim(self, reader: SpanReader) -> None:
        self.claimed = reader

    def release(self, start_line: int) -> None:
        self.claimed = None
        # The line readers get a space and the block's line breaks in its place.
        self._events += self._feed_lines(" " + "\n" * (self.line() - start_line))

    def emit(self, event: MessageEvent) -> None:
        self._events.append(event)


def windowed_scanner(text: str) -> tuple[MessageScanner, int, ScanWarning | None]:
    """A scanner for the spec's window of `text` (its last WINDOW_CHARS characters), the offset
    the window starts at, and the warning to give when it cuts the text. Feed it text[start:]."""
    window = message_window(text)
    if window is None:
        return MessageScanner(), 0, None
    opening = window.opening
    scanner = MessageScanner(
        first_line=opening.first_line,
        skip_first_fragment=opening.fragment,
        window_cut=opening.window_cut,
    )
    for reader in scanner.span_readers:  # a block the window cuts is answered: what opened it
        reader.before_window(text, window.start)
    return scanner, window.start, window.warning


def scan_whole(text: str) -> MessageScan:
    """Scan a whole message: only its last WINDOW_CHARS characters, as the spec says."""
    scanner, start, cut = windowed_scanner(text)
    events = scanner.feed(text[start:] if start else text) + scanner.end()
    blocks = tuple(e for e in events if not isinstance(e, ScanWarning))
    warnings = tuple(e for e in events if isinstance(e, ScanWarning))
    return MessageScan(blocks, ((cut,) if cut else ()) + warnings, start)
