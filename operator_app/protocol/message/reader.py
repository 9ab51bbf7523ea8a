"""What a dialect's reader is to the message scanner (router.py), what the scanner offers it
while it reads, and what it finds (sans-IO): a block (`Block`) and a block still arriving
(`Pending`), of any dialect, as the rest of Operator sees them (each reader makes its own kinds;
the executor, the front ends and the bridge read only what these say). A dialect's pure half
makes its reader (protocol/dialect.py `Dialect.reader`); the scanner routes the message's text
to the readers of every registered dialect, as h11 routes bytes to the reader of its state
(h11/_readers.py `READERS`).

Two kinds, by how a dialect's blocks stand in a message:

- a `LineReader`'s blocks are lines of their own (OPERATOR_CMD: a marker line, key-value lines,
  an END line). It is given all the text outside other dialects' blocks, in order, and finds its
  blocks itself; while one of its blocks is open (`pending`), an opener of another dialect is text
  of that block, a value.
- a `SpanReader`'s blocks are spans that begin at an opener anywhere in a line (String's
  `<𝒞=string:topic>...</𝒞>`). The scanner finds the places its `next_at` names in text outside
  every block, and hands it each (`look`); once it `claim`s the text, the scanner hands it all the
  text that follows (`inside`) until it `release`s it at its block's end, so an opener of another
  dialect inside its block is its content. To line readers a span taken out stands as a space and
  its line breaks, so their line numbers stay right.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol, runtime_checkable

from msgspec import Struct

from ..blocks import ScanWarning


class Block(Protocol):
    """A block found in a message, of any dialect."""

    dialect: ClassVar[str]

    @property
    def start_line(self) -> int: ...

    @property
    def end_line(self) -> int | None:
        """The line its end stands on; None when the message ended before it."""
        ...

    @property
    def runs(self) -> bool:
        """Whether Operator answers it (a String block of another channel, or one of Operator's
        own responses pasted back, is not run)."""
        ...


class Pending(Protocol):
    """A block still arriving (its end not yet seen), of any dialect."""

    dialect: ClassVar[str]
    awaits: ClassVar[str]  # what it waits for, as the table says: "its END_OPERATOR_CMD line"

    @property
    def start_line(self) -> int: ...

    @property
    def label(self) -> str | None:
        """What names it while it arrives: an OPERATOR_CMD block's id, a String block's tag."""
        ...


MessageEvent = Block | ScanWarning  # what a scan yields, in message order


class Opening(Struct, frozen=True):
    """Where a scan of a message begins."""

    first_line: int = 1  # the message line of the first character fed
    fragment: bool = False  # it begins inside that line (the window's cut): no block opens there
    window_cut: bool = False  # the spec's window cut the message: text before it is not read


@runtime_checkable
class LineReader(Protocol):
    """A dialect whose blocks are lines: it reads every line no span reader took."""

    spans: ClassVar[bool]  # False

    def feed(self, chunk: str) -> Sequence[MessageEvent]:
        """The next text outside span readers' blocks; the blocks and warnings it completed, as
        a list (the scanner hands it on as its own answer)."""
        ...

    @property
    def pending(self) -> Pending | None:
        """Its block still open, if one is (asked before another dialect's block may open)."""
        ...

    def end(self) -> Sequence[MessageEvent]:
        """The message is over: a block still open is reported as never closed."""
        ...


class Walk(Protocol):
    """What the scanner offers a span reader while it reads one piece of text (`text`, from
    `pos`): text before `pos` is taken, text from it not yet."""

    fragment: bool  # the piece begins in the window's cut line, up to its first break
    claimed: SpanReader | None  # the span reader whose block is open
    ended: bool  # end() was called

    # What the scanner took so far (message/taken.py), as plain callables, since a block's
    # content passes through `take` piece by piece.
    @property
    def take(self) -> Callable[[str], None]:
        """Take the reader's own block text: counted and hashed, nothing else."""
        ...

    @property
    def tail(self) -> Callable[[int], str]:
        """The last `size` characters taken (at most 12): what may have begun before `text`."""
        ...

    @property
    def line(self) -> Callable[[], int]:
        """The message line the next character not yet taken stands on."""
        ...

    @property
    def key(self) -> Callable[[], str]:
        """A hash of everything the message said so far, its line breaks made alike: the same
        block of the same message has the same key however the message came in."""
        ...

    def outside(self, piece: str) -> None:
        """`piece` is text outside every span: taken, and read by the line readers."""
        ...

    def others_open(self) -> bool:
        """A line reader holds a block open here: an opener now is a value of that block."""
        ...

    def hold(self, text: str, at: int) -> None:
        """Keep text[at:] for the next chunk: what stands there cannot be told yet."""
        ...

    def claim(self, reader: SpanReader) -> None:
        """`reader`'s block opened: all text goes to its `inside` until it releases it."""
        ...

    def release(self, start_line: int) -> None:
        """The claiming reader's block (opened at `start_line`) ended with the text taken."""
        ...

    def emit(self, event: MessageEvent) -> None:
        """A block found (or a warning), after what the line readers found before it."""
        ...


@runtime_checkable
class SpanReader(Protocol):
    """A dialect whose blocks are spans opened anywhere in a line."""

    spans: ClassVar[bool]  # True

    def quiet(self, chunk: str, walk: Walk) -> bool:
        """Cheap: `chunk`, coming after the text taken, holds nothing `next_at` would name, so
        it is text outside every block (the scanner's fast path asks this of each chunk)."""
        ...

    def resume(self, text: str, pos: int, walk: Walk) -> int:
        """A new piece of text is read from `pos` (called at the start of every piece): where to
        read on from, past an opener of its begun in the text taken before, which it handled
        (only when no block is open and the piece is no fragment)."""
        ...

    def next_at(self, text: str, pos: int) -> int:
        """Where in text[pos:] the next place it must look at stands, -1 when there is none."""
        ...

    def look(self, text: str, pos: int, at: int, walk: Walk) -> int:
        """Look at the place `at` that `next_at` named (text[pos:at] is not taken yet): hand
        what is not its block to `walk.outside`, or open a block (`walk.claim`), or hold what
        cannot be told yet; where to read on from."""
        ...

    def inside(self, text: str, pos: int, walk: Walk) -> int:
        """Its block is open: read text[pos:] (its content, then maybe its end: `walk.release`,
        `walk.emit`); where to read on from."""
        ...

    def finish(self, held: str, walk: Walk) -> None:
        """The message ended inside its block (`held`: the last text, held back): close it."""
        ...

    @property
    def pending(self) -> Pending | None:
        """Its block still open, if one is."""
        ...

    def before_window(self, text: str, start: int) -> None:
        """The window starts at `start` of `text`: what stands before it that a block cut by the
        window's start needs for its answer (its open tag)."""
        ...


Reader = LineReader | SpanReader
