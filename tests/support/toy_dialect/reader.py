"""The toy dialect's reader: a span reader. A block runs from `[[toy:` to the next `]]`, on one
line or more; inside an OPERATOR_CMD block an opener is a value, and inside its own block an
OPERATOR_CMD marker or a String tag is its text."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from msgspec import Struct

if TYPE_CHECKING:
    from operator_app.protocol.message.reader import Opening, Walk

OPEN, CLOSE = "[[toy:", "]]"


class ToyBlock(Struct, frozen=True):
    dialect: ClassVar[str] = "toy"

    start_line: int
    end_line: int | None  # None: the message ended before its ]]
    command: str  # what stands between "[[toy:" and "]]", trimmed
    key: str  # what the message said up to its end, hashed (the scanner's key)

    @property
    def runs(self) -> bool:
        return True


class PendingToyBlock(Struct, frozen=True):
    dialect: ClassVar[str] = "toy"
    awaits: ClassVar[str] = "its ]]"

    start_line: int

    @property
    def label(self) -> str:
        return OPEN


class ToyReader:
    spans: ClassVar[bool] = True

    def __init__(self, opening: Opening) -> None:
        self._start: int | None = None  # the line its open block began on
        self._pieces: list[str] = []

    @property
    def pending(self) -> PendingToyBlock | None:
        return PendingToyBlock(self._start) if self._start is not None else None

    def quiet(self, chunk: str, walk: Walk) -> bool:
        # An opener cut by a chunk's end leaves its "[" in that chunk, which then walks and holds.
        return "[" not in chunk

    def resume(self, text: str, pos: int, walk: Walk) -> int:
        return pos

    def next_at(self, text: str, pos: int) -> int:
        return text.find("[", pos)

    def look(self, text: str, pos: int, at: int, walk: Walk) -> int:
        ahead = text[at : at + len(OPEN)]
        if len(ahead) < len(OPEN) and OPEN.startswith(ahead):  # the rest comes in the next chunk
            walk.outside(text[pos:at])
            walk.hold(text, at)
            return len(text)
        walk.outside(text[pos:at])
        if ahead != OPEN or walk.others_open():  # prose, or a value of an OPERATOR_CMD block
            walk.outside(text[at : at + 1])
            return at + 1
        self._start, self._pieces = walk.line(), []
        walk.claim(self)
        walk.take(OPEN)
        return at + len(OPEN)

    def inside(self, text: str, pos: int, walk: Walk) -> int:
        end = text.find(CLOSE, pos)
        if end < 0:
            keep = 1 if text.endswith(CLOSE[0]) else 0
            self._content(text[pos : len(text) - keep], walk)
            if keep:
                walk.hold(text, len(text) - keep)
            return len(text)
        self._content(text[pos:end], walk)
        walk.take(CLOSE)
        self._close(walk.line(), walk)
        return end + len(CLOSE)

    def finish(self, held: str, walk: Walk) -> None:
        self._content(held, walk)
        self._close(None, walk)

    def before_window(self, text: str, start: int) -> None:
        pass

    def _content(self, piece: str, walk: Walk) -> None:
        if piece:
            walk.take(piece)
            self._pieces.append(piece)

    def _close(self, end_line: int | None, walk: Walk) -> None:
        start, self._start = self._start, None
        assert start is not None
        walk.release(start)
        walk.emit(ToyBlock(start, end_line, "".join(self._pieces).strip(), walk.key()))
