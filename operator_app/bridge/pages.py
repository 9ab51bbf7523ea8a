"""From the browser's view of a chat to Operator messages, without I/O. The extension re-sends the
whole text of an assistant message (a *page message*, keyed by conversation and position) each time
it changes; `PageMessages.update` turns that into stream operations for the engine, like a followed
file's polls: open an Operator message, feed it only what is new, end it. A text that changed
before its end, or grew after its message ended, starts a new Operator message with the whole text;
the session's duplicate ids keep its earlier blocks from running twice.
"""

from __future__ import annotations

from msgspec import Struct, field

from ..protocol import longest_opener, may_hold_blocks

PageKey = tuple[str, int]  # (conversation, position among the page's assistant messages)

# A block's opener split across two updates must still be seen: look this far back into the old
# text (an opener cut by the last update ends in this update).
_MARKER_OVERLAP = longest_opener() - 1


def page_origin(key: PageKey) -> str:
    """What the engine knows every Operator message of one page message by (its blocks' identity
    includes it), however often the page sends the text again, across restarts too."""
    return f"page {key[1]} of {key[0]}"


def holds_marker(text: str) -> bool:
    """Whether `text` may hold a block for Operator, of any dialect."""
    return may_hold_blocks(text)


class Open(Struct, frozen=True):
    serial: int  # the bridge's own number for the Operator message (the session's comes later)
    key: PageKey
    source: str


class Feed(Struct, frozen=True):
    serial: int
    chunk: str


class End(Struct, frozen=True):
    serial: int


StreamOp = Open | Feed | End


class PageMessage(Struct):
    key: PageKey
    text: str = ""  # everything seen of it so far
    open_serial: int | None = None  # the Operator message being fed, while one is open
    serials: list[int] = field(
        default_factory=list
    )  # every Operator message it opened, oldest first
    has_marker: bool = False
    closed: bool = False  # the person ended its message by hand: its later growth is not taken


class PageMessages:
    def __init__(self) -> None:
        self._pages: dict[PageKey, PageMessage] = {}
        self._next_serial = 1

    def get(self, key: PageKey) -> PageMessage | None:
        return self._pages.get(key)

    def restore(self, key: PageKey, text: str, messages: int, *, closed: bool) -> list[int]:
        """A page message Operator saw before it restarted (ledger.py): the text its last
        Operator message held, ended. Returns a serial for each of its `messages`."""
        serials = list(range(self._next_serial, self._next_serial + messages))
        self._next_serial += messages
        self._pages[key] = PageMessage(key, text, None, serials, has_marker=True, closed=closed)
        return serials

    def forget_ended(self, keep: int) -> list[int]:
        """Drop the least recently updated ended page messages beyond `keep` (their full texts
        stay in the session, and the ledger can bring them back); returns their serials."""
        dropped: list[int] = []
        for key in list(self._pages):
            if len(self._pages) <= keep:
                break
            page = self._pages[key]
            if page.open_serial is None:
                del self._pages[key]
                dropped += page.serials
        return dropped

    def open_serials(self) -> list[int]:
        return [page.open_serial for page in self._pages.values() if page.open_serial is not None]

    def would_open(self, key: PageKey, text: str) -> bool:
        """Whether `text` for `key` would open a new Operator message (what `update` would do)."""
        page = self._pages.get(key) or PageMessage(key)
        return self._change(page, text)[0] == "open"

    @staticmethod
    def _change(page: PageMessage, text: str) -> tuple[str, bool]:
        """What `text` does to `page`: "none", "feed" (it grew while open), "ignore" (it grew after
        the person ended it), "end" (rewritten, or grown after its end, without a marker) or
        "open"; and whether the text holds a marker."""
        if text == page.text or page.text.startswith(text):
            # (A text the seen one starts with is no news: a re-render, or a page reloaded in the
            # middle showing less than was seen. It is not a rewrite.)
            return "none", page.has_marker
        grew = text.startswith(page.text)
        if grew:
            has_marker = page.has_marker or holds_marker(
                text[max(0, len(page.text) - _MARKER_OVERLAP) :]
            )
        else:
            has_marker = holds_marker(text)
        if grew and page.open_serial is not None:
            return "feed", has_marker
        if grew and page.closed:
            return "ignore", has_marker
        # Never opened, ended earlier, or rewritten before its end: what a followed file does when
        # it is truncated or replaced. The whole text goes to a new message.
        return ("open" if has_marker else "end"), has_marker

    def update(self, key: PageKey, text: str, *, generating: bool, source: str) -> list[StreamOp]:
        page = self._pages.pop(key, None) or PageMessage(key)
        self._pages[key] = page  # most recently updated last
        ops: list[StreamOp] = []
        change, page.has_marker = self._change(page, text)
        if change == "feed":
            ops.append(Feed(page.open_serial, text[len(page.text) :]))  # type: ignore[arg-type]
        elif change in ("end", "open"):
            page.closed = False
            ops += self._end(page)
            if change == "open":
                ops += self._end_earlier_positions(page.key)
                ops += self._open(page, source)
                ops.append(Feed(page.open_serial, text))  # type: ignore[arg-type]
        if change != "none":
            page.text = text
        if not generating:
            ops += self._end(page)
        return ops

    def close(self, serial: int) -> list[StreamOp]:
        """The person ends the Operator message `serial` (its page stopped, or will not say so):
        what the page adds to that text afterwards is not run; a rewritten text is."""
        for page in self._pages.values():
            if page.open_serial == serial:
                page.closed = True
                return self._end(page)
        return []

    def end_all(self) -> list[StreamOp]:
        """Operations that end every open Operator message (the bridge stops, the workspace
        changes)."""
        ops: list[StreamOp] = []
        for page in self._pages.values():
            ops += self._end(page)
        return ops

    def _open(self, page: PageMessage, source: str) -> list[StreamOp]:
        serial, self._next_serial = self._next_serial, self._next_serial + 1
        page.open_serial = serial
        page.serials.append(serial)
        return [Open(serial, page.key, source)]

    @staticmethod
    def _end(page: PageMessage) -> list[StreamOp]:
        if page.open_serial is None:
            return []
        serial, page.open_serial = page.open_serial, None
        return [End(serial)]

    def _end_earlier_positions(self, key: PageKey) -> list[StreamOp]:
        # The model has moved on to a later message of the conversation: an earlier one still
        # open (its "stopped" update was lost) will not grow any more.
        conversation, position = key
        ops: list[StreamOp] = []
        for other in self._pages.values():
            if other.key[0] == conversation and other.key[1] < position:
                ops += self._end(other)
        return ops
