"""The blocks of a text that grows at its end, each part of it scanned once (sans-IO).

Some texts are looked at again and again while they grow: an answer held for the person (the
bridge heard it while Operator was not listening) is counted at each line the model adds, and a
write's dialog looks at what its message's source holds beyond what the engine was fed once a
second. A `GrowingScan` keeps the message scanner of the last text it was asked about and feeds
it only what the next text adds, so asking costs the new characters, not the whole text again.
Text that is not the last one plus more (a rewritten answer) is scanned anew, in the spec's
window as a whole message is (`windowed_scanner`, decision 4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blocks import ScanWarning
from .message import windowed_scanner

if TYPE_CHECKING:
    from .message import MessageEvent, MessageScanner
    from .message.reader import Block, Pending


class GrowingScan:
    """The blocks found so far in a text that grows, and the one still open."""

    def __init__(self) -> None:
        self._text = ""  # what the scanner was given, and what came before its window
        self._scanner: MessageScanner | None = None
        self._blocks: list[Block] = []
        self._ended = False

    def blocks(self, text: str, *, ended: bool = False) -> tuple[Block, ...]:
        """The complete blocks of `text`, in message order. `ended`: `text` is whole, so a block
        still open is closed as a whole message's scan closes it (a missing END marker is its
        error; an END line with no line break after it ends its block)."""
        if not self._continues(text):
            self._scanner, start, _ = windowed_scanner(text)
            self._text, self._blocks, self._ended = text[:start], [], False
        assert self._scanner is not None
        if len(text) > len(self._text):
            self._take(self._scanner.feed(text[len(self._text) :]))
            self._text = text
        if ended and not self._ended:
            self._take(self._scanner.end())
            self._ended = True
        return tuple(self._blocks)

    @property
    def pending(self) -> Pending | None:
        """The block still open at the end of the last text, until that text is said to end."""
        if self._scanner is None or self._ended:
            return None
        return self._scanner.pending

    def _continues(self, text: str) -> bool:
        """`text` is the last text plus more (or the same text): the scanner goes on with it."""
        if self._scanner is None:
            return False
        if self._ended:
            return text == self._text
        return text.startswith(self._text)

    def _take(self, events: list[MessageEvent]) -> None:
        self._blocks += [event for event in events if not isinstance(event, ScanWarning)]
