"""The spec's window (sans-IO): "Only the last 200,000 chars are scanned" (docs/design.md,
decision 4). Where it cuts a message, how a scan that begins there opens, and a whole message's
scan as one value."""

from __future__ import annotations

from msgspec import Struct

from .. import grammar
from ..blocks import ScanWarning
from .reader import Block, Opening


class Window(Struct, frozen=True):
    """Where the spec's window (the last WINDOW_CHARS characters) cuts a message."""

    start: int  # the offset of its first character
    first_line: int  # the message line it starts in
    fragment: bool  # it starts inside that line, which is then skipped
    warning: ScanWarning  # what the scan says about the cut

    @property
    def opening(self) -> Opening:
        return Opening(self.first_line, self.fragment, window_cut=True)


def message_window(text: str) -> Window | None:
    """The window of `text`, or None when the whole text fits in it."""
    start = max(0, len(text) - grammar.WINDOW_CHARS)
    if not start:
        return None
    first_line = 1 + grammar.count_breaks(text, 0, start)
    # When the cut falls between "\r" and "\n" the "\n" is that line's own break.
    if text[start - 1] == "\r" and text[start] == "\n":
        start += 1
    warning = ScanWarning(
        first_line,
        f"the message is {len(text)} characters; only the last {grammar.WINDOW_CHARS} were scanned",
    )
    return Window(start, first_line, text[start - 1] not in "\r\n", warning)


class MessageScan(Struct, frozen=True):
    """A whole message's scan: its blocks of every dialect and its warnings."""

    blocks: tuple[Block, ...]  # in message order
    warnings: tuple[ScanWarning, ...]
    window_start: int  # character offset where scanning began (0 unless the message was cut)
