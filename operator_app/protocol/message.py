"""Finds the blocks of both dialects in one message, whole or streamed (sans-IO): OPERATOR_CMD
blocks (scanner.py finds those) and String's `<𝒞=channel:topic>payload</𝒞>` blocks, as one list
of events in message order.

`MessageScanner` reads the text once. Outside a ChanFlow block the text goes on to the
OPERATOR_CMD scanner; a ChanFlow block is taken out of that text (the scanner is given a space and
the block's line breaks instead, so its line numbers stay right and nothing inside a `/write`'s
content can pass for an OPERATOR_CMD block). An open tag inside an OPERATOR_CMD block is part of
that block (a value), never a ChanFlow block. A block is emitted the moment its `</𝒞>` arrives;
one still open is `pending` until `end()`, which reports it as never closed. Feeding a text whole
or in any chunking yields the same events, keys included.

Cost is linear: outside blocks the text is searched for the sigil with str.find, inside a block
for the close tag, and each character is counted and hashed once.
"""

from __future__ import annotations

import hashlib

from msgspec import Struct, field

from . import grammar
from .blocks import PendingBlock, RawBlock, ScanWarning
from .chanflow import grammar as chan
from .chanflow.blocks import ChanBlock, Fault, PendingChanBlock, trim_payload
from .chanflow.near_miss import TRIGGER, TagMiss, close_miss, open_miss, plausible
from .scanner import Scanner, windowed_as

__all__ = ["MessageEvent", "MessageScan", "MessageScanner", "scan_whole", "windowed_scanner"]

MessageEvent = RawBlock | ChanBlock | ScanWarning
_SIGIL = chan.SIGIL
_CLOSE = chan.CLOSE
_CLOSE_HEAD = _CLOSE[:-1]  # "</𝒞": a close tag, exact or with a space before its ">"
_TRIGGER_STARTS = frozenset(TRIGGER[1:])  # what a chunk may start with that ends a cut TRIGGER
_TRIGGER_ENDS = tuple(TRIGGER[cut:] for cut in range(1, len(TRIGGER)))  # "string", ..., "g"
# A block's payload beyond this is refused, not kept growing: a whole message is only read in its
# last WINDOW_CHARS characters, so a larger block could never run pasted; streamed, it does not
# either (decision 4).
MAX_PAYLOAD_CHARS = grammar.WINDOW_CHARS
_ACCOUNT_EVERY = 1 << 16  # pieces taken before they are counted and hashed anyway (a bound)
_TAIL = 12  # characters of the text taken kept at hand for what the next chunk starts with
MAX_STRAY_ANSWERS = 100  # close tags without a block answered in one message; more are counted
_LOOK_BACK = 4  # characters before a sigil or "=string" where a near-miss tag may begin
_STRING_HEADS = (chan.CHANNEL + ":", chan.CHANNEL + " ", chan.CHANNEL + "\t")


class _OpenChan(Struct):
    start_line: int
    header: str
    pieces: list[str] = field(default_factory=list)
    chars: int = 0
    too_large: bool = False
    problem: str | None = None  # a near-miss tag: what is wrong with it (near_miss.py)
    close: str = _CLOSE  # what ends it besides </𝒞> (a look-alike's own close tag)


def split_tag(header: str) -> tuple[str, str | None, str]:
    """(channel, topic or None, attributes) of what stands between "<𝒞=" and ">"."""
    head, _, attributes = header.strip().partition(" ")
    if not attributes:
        head, _, attributes = head.partition("\t")
    channel, colon, topic = head.partition(":")
    return channel, (topic if colon else None), attributes.strip()


class MessageScanner(Scanner):
    """The OPERATOR_CMD scanner (scanner.py), given a message's text only after String's blocks
    were taken out of it. A subclass, not a wrapper, so that a chunk of prose costs what the
    OPERATOR_CMD scanner alone makes it cost: the check for the sigil, and the same queueing."""

    def __init__(
        self, *, first_line: int = 1, skip_first_fragment: bool = False, window_cut: bool = False
    ) -> None:
        super().__init__(
            first_line=first_line, skip_first_fragment=skip_first_fragment, window_cut=window_cut
        )
        # Text taken is counted (line breaks) and hashed (for block keys) only when a tag needs
        # its line or key, or when enough has piled up: a chunk of prose costs a list append.
        self._unaccounted: list[str] = []
        self._at_line = first_line  # the line the first unaccounted character is on
        self._held = ""  # a tag (or close tag) cut by the end of the last chunk
        self._accounted_tail = ""  # the last characters counted and hashed (_TAIL of them)
        self._cr = False  # the last character accounted was "\r" (maybe half of "\r\n")
        self._hash = hashlib.sha256()
        self._fragment = skip_first_fragment  # the window began inside a line: no tag opens in it
        self._seen_block = False
        self._chan: _OpenChan | None = None  # the ChanFlow block being read
        self._first = first_line == 1 and not skip_first_fragment
        self._message_ended = False
        # Nothing is held, open or cut, and the first chunk (which may start with a BOM) is past:
        # a chunk without the sigil needs no walk.
        self._plain = False
        # The window cut the message inside a block: its open tag as it stood before the window
        # (header, line), for the answer the block gets (set by windowed_scanner).
        self.cut_open: tuple[str, int] | None = None
        self._strays = 0  # close tags that closed no block, so far

    # --- what is open ---------------------------------------------------------------------

    @property
    def pending(self) -> PendingBlock | PendingChanBlock | None:  # type: ignore[override]
        if self._chan is not None:
            channel, topic, _ = split_tag(self._chan.header)
            return PendingChanBlock(self._chan.start_line, channel, topic)
        return Scanner.pending.fget(self)  # type: ignore[attr-defined,no-any-return]

    # --- feeding --------------------------------------------------------------------------

    def feed(  # type: ignore[override]
        self,
        chunk: str,
        _sigil: str = _SIGIL,
        _every: int = _ACCOUNT_EVERY,
        _trigger: str = TRIGGER,
        _cut: tuple[str, ...] = _TRIGGER_ENDS,
    ) -> list[MessageEvent]:
        # (_sigil, _every, _trigger, _cut: constants as locals, read for every chunk of a stream)
        if (
            self._plain
            and _sigil not in chunk
            and len(chunk) > 1
            and ("=" not in chunk or _trigger not in chunk)
            and (
                chunk[0] not in "string"
                or not chunk.startswith(_cut)
                or _trigger not in self._tail(6) + chunk[:6]
            )
        ):
            # Prose or OPERATOR_CMD text outside a block, holding neither the sigil nor what a tag
            # with a look-alike of it holds. (Two characters or more: what a sigil in the next
            # chunk may follow is then in this one, the last piece taken.)
            pieces = self._unaccounted
            pieces.append(chunk)
            if len(pieces) > _every:
                self._account()
            if "_" not in chunk and not self._armed and not self._backlog:
                # What Scanner.feed does with a chunk that cannot finish a block: queue it.
                self._pieces.append(chunk)
                return []
            return Scanner.feed(self, chunk)  # type: ignore[return-value]
        return self._feed_walking(chunk)

    def _feed_walking(self, chunk: str) -> list[MessageEvent]:
        if self._message_ended:
            raise RuntimeError("feed() after end()")
        if self._first and chunk:
            self._first = False
            chunk = chunk.removeprefix("\ufeff")  # encoding, not text (scanner.py says why)
        if not chunk:
            return []
        text = self._held + chunk if self._held else chunk
        self._held = ""
        events: list[MessageEvent] = []
        self._walk(text, events)
        self._plain = not (self._held or self._chan is not None or self._fragment)
        return events

    def end(self) -> list[MessageEvent]:  # type: ignore[override]
        if self._message_ended:
            return []
        self._plain = False
        events: list[MessageEvent] = []
        held, self._held = self._held, ""
        if self._chan is not None:
            self._inside(held)
            self._close(None, events, fault="unclosed")
        elif held:
            self._outside(held, events)
        events += Scanner.end(self)
        self._message_ended = True
        return events

    # --- the walk -------------------------------------------------------------------------

    def _walk(self, text: str, events: list[MessageEvent]) -> None:
        pos, size = 0, len(text)
        miss = -2  # where the next "=string" is (a tag with a look-alike sigil holds it); -1: none
        if self._chan is None and not self._fragment and text[:1] in _TRIGGER_STARTS:
            tail = self._tail(len(TRIGGER) - 1)
            cut = (tail + text[: len(TRIGGER) - 1]).find(TRIGGER)
            if 0 <= cut < len(tail):  # "=string" begun in the text taken before this chunk
                pos = self._near_miss(text, 0, cut - len(tail), events) or 0
        while pos < size:
            if self._chan is not None:
                pos = self._walk_inside(text, pos, events)
                continue
            if self._fragment:
                brk = _first_break(text, pos, size)
                if brk < 0:
                    self._outside(text[pos:], events)
                    return
                self._outside(text[pos : brk + 1], events)
                pos, self._fragment = brk + 1, False
                continue
            found = text.find(_SIGIL, pos)
            if miss == -2 or 0 <= miss < pos:
                miss = text.find(TRIGGER, pos)
            if miss >= 0 and (found < 0 or miss < found - 1):
                pos = self._at_trigger(text, pos, miss, events)
                continue
            if found < 0:
                self._outside(text[pos:] if pos else text, events)
                return
            pos = self._at_sigil(text, pos, found, events)

    def _at_sigil(self, text: str, pos: int, at: int, events: list[MessageEvent]) -> int:
        """Handle the sigil at `at` (text from `pos` not taken yet); where to go on from."""
        before = text[max(pos, at - 2) : at]
        if len(before) < 2:
            before = (self._tail(2) + text[pos:at])[-2:]
        size = len(text)
        if at + 1 >= size:  # what follows the sigil is in the next chunk
            self._outside(text[pos:at], events)
            self._held = text[at:]
            return size
        after = text[at + 1]
        if before.endswith("<") and after == "=":
            return self._open_tag(text, pos, at, events)
        if before == "</":
            closing = close_miss(text, at - 2) if after != ">" else (at + 2, "")
            if closing == "more":
                return self._hold(text, pos, max(pos, at - 2), events)
            if isinstance(closing, tuple):
                self._outside(text[pos : closing[0]], events)
                if self.pending is None:  # inside an OPERATOR_CMD block it is a value's text
                    self._stray_close(events, closing[1])
                return closing[0]
        ahead = text[at + 1 : at + 4]
        if len(ahead) == 3 and "=" not in ahead and "\uff1d" not in ahead:
            return self._prose(text, pos, at, events)  # the sigil in prose: no "=" follows it
        return self._near_miss(text, pos, at, events) or self._prose(text, pos, at, events)

    def _at_trigger(self, text: str, pos: int, at: int, events: list[MessageEvent]) -> int:
        """At `at` stands "=string" with no sigil before it: a tag with a look-alike of the sigil,
        or prose."""
        return self._near_miss(text, pos, at, events) or self._prose(text, pos, at, events)

    def _prose(self, text: str, pos: int, at: int, events: list[MessageEvent]) -> int:
        self._outside(text[pos : at + 1], events)
        return at + 1

    def _hold(self, text: str, pos: int, at: int, events: list[MessageEvent]) -> int:
        """Keep text[at:] for the next chunk (what stands there cannot be told yet)."""
        self._outside(text[pos:at], events)
        self._held = text[at:]
        return len(text)

    def _near_miss(self, text: str, pos: int, at: int, events: list[MessageEvent]) -> int | None:
        """A near-miss tag around `at` opens a block (answered MALFORMED_TAG): where to go on
        from; None when there is none."""
        # What the tag may begin with can stand in text taken before this chunk (`at` itself
        # may: "=string" cut by the chunk's start).
        lead_size = _LOOK_BACK - at if at < _LOOK_BACK else 0
        lead = self._tail(lead_size + pos)[: -pos or None] if lead_size else ""
        if lead:
            near, here = lead + text[: max(0, at) + 4], len(lead) + at
            before, after = near[max(0, here - _LOOK_BACK) : here], near[here : here + 4]
        else:
            before, after = text[max(0, at - _LOOK_BACK) : at], text[at : at + 4]
        if not plausible(before, after):
            return None
        found = open_miss(text, at, ended=self._message_ended, lead=lead)
        if found is None:
            return None
        if isinstance(found, str):  # "more": the text ends before the tag could
            return self._hold(text, pos, max(pos, at - _LOOK_BACK), events)
        return self._open_miss(text, pos, found, events)

    def _open_miss(self, text: str, pos: int, miss: TagMiss, events: list[MessageEvent]) -> int:
        start = max(pos, miss.start)  # (a tag may begin in text taken already)
        self._outside(text[pos:start], events)
        if self.pending is not None:  # inside an OPERATOR_CMD block: part of a value
            self._outside(text[start : miss.end], events)
            return miss.end
        self._account()
        problem = f"the tag at line {self._at_line} has {miss.problem}"
        self._chan = _OpenChan(self._at_line, miss.header, problem=problem, close=miss.close)
        self._seen_block = True
        self._take(text[start : miss.end])
        return miss.end

    def _open_tag(self, text: str, pos: int, at: int, events: list[MessageEvent]) -> int:
        size = len(text)
        limit = min(size, at + chan.MAX_TAG_CHARS)
        gt = text.find(">", at + 2, limit)
        brk = _first_break(text, at + 2, gt if gt >= 0 else limit)
        if brk >= 0 or (gt < 0 and at + chan.MAX_TAG_CHARS <= size):
            # No ">" on the line: prose with the sigil, or a tag split over two lines.
            missed = self._near_miss(text, pos, at, events)
            if missed is not None:
                return missed
            self._outside(text[pos : at + 2], events)
            return at + 2
        if gt < 0:  # the tag may still close in the next chunk
            self._outside(text[pos:at], events)
            self._held = text[at:]
            return size
        # The text before the tag goes on first: it may finish a line that opens or closes an
        # OPERATOR_CMD block, and inside one the tag is only part of a value.
        self._outside(text[pos:at], events)
        if self.pending is not None:  # no ChanFlow block is open here: the scanner's own
            self._outside(text[at : gt + 1], events)
            return gt + 1
        header = text[at + 2 : gt]
        if header != chan.CHANNEL and not header.startswith(_STRING_HEADS) and _suspicious(header):
            missed = self._near_miss(text, at, at, events)  # "String:", an invisible in it
            if missed is not None:
                return missed
        self._account()
        self._chan = _OpenChan(self._at_line, header)
        self._seen_block = True
        self._take(text[at : gt + 1])
        return gt + 1

    def _walk_inside(self, text: str, pos: int, events: list[MessageEvent]) -> int:
        block = self._chan
        assert block is not None
        while True:
            found = text.find(_CLOSE_HEAD, pos)
            alt = text.find(block.close, pos) if block.close != _CLOSE else -1
            if alt >= 0 and (found < 0 or alt < found):
                return self._closed(text, pos, alt, alt + len(block.close), "", events)
            if found < 0:
                keep = _close_prefix(text, pos, block.close)
                self._inside(text[pos : len(text) - keep])
                if keep:
                    self._held = text[len(text) - keep :]
                return len(text)
            closing = close_miss(text, found)
            if closing == "more":
                self._inside(text[pos:found])
                self._held = text[found:]
                return len(text)
            if isinstance(closing, tuple):
                return self._closed(text, pos, found, closing[0], closing[1], events)
            self._inside(text[pos : found + len(_CLOSE_HEAD)])  # "</𝒞" and more: content
            pos = found + len(_CLOSE_HEAD)

    def _closed(
        self, text: str, pos: int, at: int, end: int, problem: str, events: list[MessageEvent]
    ) -> int:
        """The block's close tag stands at text[at:end] (`problem`: what is wrong with it)."""
        block = self._chan
        assert block is not None
        self._inside(text[pos:at])
        self._take(text[at:end])
        self._account()
        if problem:
            where = f"its close tag at line {self._at_line} has {problem}"
            block.problem = (
                f"{block.problem}; {where}"
                if block.problem
                else f"the block at line {block.start_line}: {where}"
            )
        self._close(self._at_line, events)
        return end

    # --- taking text --------------------------------------------------------------------

    def _take(self, piece: str) -> None:
        """`piece` is the message's next characters: counted and hashed by `_account`."""
        if piece:
            self._unaccounted.append(piece)
            if len(self._unaccounted) > _ACCOUNT_EVERY:
                self._account()

    def _tail(self, size: int) -> str:
        """The last `size` characters taken (what a sigil or a trigger at the start of a chunk
        follows); at most _TAIL."""
        pieces = self._unaccounted
        if pieces and len(pieces[-1]) >= size:  # the usual case: the last piece holds it
            return pieces[-1][-size:]
        tail = "".join(pieces[-size:]) if pieces else ""
        return (self._accounted_tail + tail)[-size:]

    def _account(self) -> None:
        """Count the line breaks of the text taken since the last call and hash it, its line
        breaks made alike ("\r\n" and a lone "\r" hash as "\n")."""
        if not self._unaccounted:
            return
        pieces = self._unaccounted
        text = pieces[0] if len(pieces) == 1 else "".join(pieces)
        self._unaccounted = []
        self._accounted_tail = (self._accounted_tail + text[-_TAIL:])[-_TAIL:]
        breaks = text.count("\n")
        if "\r" in text or self._cr:
            breaks += text.count("\r") - text.count("\r\n")
            if self._cr and text[0] == "\n":  # the "\r" before it was counted as the break
                breaks -= 1
                text = text[1:]
            self._cr = text[-1:] == "\r" if text else self._cr
            text = grammar.with_lf_breaks(text)
        self._hash.update(text.encode("utf-8", "surrogatepass"))
        self._at_line += breaks

    def _outside(self, piece: str, events: list[MessageEvent]) -> None:
        if piece:
            self._take(piece)
            events += Scanner.feed(self, piece)

    def _inside(self, piece: str) -> None:
        block = self._chan
        assert block is not None
        if not piece:
            return
        self._take(piece)
        block.chars += len(piece)
        if block.chars > MAX_PAYLOAD_CHARS:
            block.too_large, block.pieces = True, []
        elif not block.too_large:
            block.pieces.append(piece)

    def _close(
        self, end_line: int | None, events: list[MessageEvent], fault: Fault | None = None
    ) -> None:
        block, self._chan = self._chan, None
        assert block is not None
        # The OPERATOR_CMD scanner gets a space and the block's line breaks in its place.
        self._account()
        events += Scanner.feed(self, " " + "\n" * (self._at_line - block.start_line))
        payload = "".join(block.pieces)
        if block.problem is not None:  # what spoiled it first (and may be why it never closed)
            fault = "malformed"
        elif fault is None and block.too_large:
            fault = "too_large"
        elif fault is None and chan.OPEN in payload:
            fault = "nested"
        channel, topic, attributes = split_tag(block.header)
        events.append(
            ChanBlock(
                start_line=block.start_line,
                end_line=end_line,
                channel=channel,
                topic=topic,
                attributes=attributes,
                payload=trim_payload(payload),
                key=self._hash.copy().hexdigest(),
                fault=fault,
                problem=block.problem,
            )
        )

    def _stray_close(self, events: list[MessageEvent], problem: str = "") -> None:
        """A close tag no block is open for: the end of a block cut by the window, or a tag
        written without its open tag (answered, so the model learns its block did not run)."""
        self._account()
        line = self._at_line
        key = self._hash.copy().hexdigest()
        if self._window_cut and not self._seen_block:
            self._seen_block = True
            header, start = self.cut_open or (chan.CHANNEL, line)
            channel, topic, _ = split_tag(header)
            events.append(
                ChanBlock(start, line, channel, topic, "", "", key, fault="cut", problem=None)
            )
            return
        self._strays += 1
        if self._strays > MAX_STRAY_ANSWERS:  # a flood of them: counted, not answered each
            if self._strays == MAX_STRAY_ANSWERS + 1:
                events.append(
                    ScanWarning(
                        line,
                        f"more than {MAX_STRAY_ANSWERS} close tags from line {line} on close no "
                        "block; only the first were answered",
                    )
                )
            return
        odd = f" (it has {problem})" if problem else ""
        events.append(
            ChanBlock(
                line,
                line,
                chan.CHANNEL,
                None,
                "",
                "",
                key,
                fault="malformed",
                problem=f"a close tag at line {line}{odd} closes no block (no open tag came "
                "before it)",
            )
        )


def _first_break(text: str, start: int, stop: int) -> int:
    newline, cr = text.find("\n", start, stop), text.find("\r", start, stop)
    if newline < 0 or (0 <= cr < newline):
        return cr
    return newline


def _close_prefix(text: str, pos: int, other: str = _CLOSE) -> int:
    """How many characters at the end of text[pos:] could begin a close tag cut by the chunk."""
    for size in (3, 2, 1):
        if len(text) - pos >= size and (
            text.endswith(_CLOSE[:size]) or text.endswith(other[:size])
        ):
            return size
    return 0


def _suspicious(header: str) -> bool:
    """A tag's header that may be a near miss of a String tag: the channel in other case, or an
    invisible or full-width character in it (exact "string:" headers never get here)."""
    channel = header.partition(":")[0].strip()
    return channel.lower().startswith(chan.CHANNEL[:3]) or not header.isascii()


class MessageScan(Struct, frozen=True):
    blocks: tuple[RawBlock | ChanBlock, ...]  # in message order
    warnings: tuple[ScanWarning, ...]
    window_start: int  # character offset where scanning began (0 unless the message was cut)


def windowed_scanner(text: str) -> tuple[MessageScanner, int, ScanWarning | None]:
    """A scanner for the spec's window of `text` (its last WINDOW_CHARS characters), the offset
    the window starts at, and the warning to give when it cuts the text. Feed it text[start:]."""
    scanner, start, cut = windowed_as(MessageScanner, text)
    if start:
        # A block the window cuts is answered: its open tag, before the window, names its topic.
        opened = text.rfind(chan.OPEN, 0, start)
        if opened >= 0 and text.find(_CLOSE, opened, start) < 0:
            gt = text.find(">", opened, opened + chan.MAX_TAG_CHARS)
            if gt >= 0:
                line = 1 + grammar.count_breaks(text, 0, opened)
                scanner.cut_open = (text[opened + len(chan.OPEN) : gt], line)
    return scanner, start, cut


def scan_whole(text: str) -> MessageScan:
    """Scan a whole message: only its last WINDOW_CHARS characters, as the spec says."""
    scanner, start, cut = windowed_scanner(text)
    events = scanner.feed(text[start:] if start else text) + scanner.end()
    blocks = tuple(e for e in events if not isinstance(e, ScanWarning))
    warnings = tuple(e for e in events if isinstance(e, ScanWarning))
    return MessageScan(blocks, ((cut,) if cut else ()) + warnings, start)
