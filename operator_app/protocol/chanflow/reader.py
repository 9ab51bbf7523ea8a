"""String's reader (sans-IO): finds `<𝒞=channel:topic>payload</𝒞>` blocks for the message
scanner, a span reader (protocol/message/reader.py). It looks where the sigil stands, and where
"=string" stands without it (a tag with a look-alike of the sigil: near_miss.py); an open tag
claims the text up to its close tag, so an OPERATOR_CMD marker inside a `/write`'s content is
content. An open tag inside an OPERATOR_CMD block is part of that block (a value), never a
ChanFlow block. A close tag that closes nothing is answered (MALFORMED_TAG), up to
MAX_STRAY_ANSWERS a message.

Cost is linear: outside blocks the text is searched for the sigil and "=string" with str.find,
inside a block for the close tag; a near-miss tag is read over a window of one tag's length."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from msgspec import Struct, field

from .. import grammar as cmd_grammar
from ..blocks import ScanWarning
from . import grammar as chan
from .blocks import ChanBlock, Fault, PendingChanBlock, trim_payload
from .near_miss import TRIGGER, TagMiss, close_miss, open_miss, plausible

if TYPE_CHECKING:
    from ..message.reader import Opening, Walk

_SIGIL = chan.SIGIL
_CLOSE = chan.CLOSE
_CLOSE_HEAD = _CLOSE[:-1]  # "</𝒞": a close tag, exact or with a space before its ">"
_TRIGGER_STARTS = frozenset(TRIGGER[1:])  # what a chunk may start with that ends a cut TRIGGER
_TRIGGER_ENDS = tuple(TRIGGER[cut:] for cut in range(1, len(TRIGGER)))  # "string", ..., "g"
# A block's payload beyond this is refused, not kept growing: a whole message is only read in its
# last WINDOW_CHARS characters, so a larger block could never run pasted; streamed, it does not
# either (decision 4).
MAX_PAYLOAD_CHARS = cmd_grammar.WINDOW_CHARS
MAX_STRAY_ANSWERS = 100  # close tags without a block answered in one message; more are counted
_LOOK_BACK = 4  # characters before a sigil or "=string" where a near-miss tag may begin
_STRING_HEADS = (chan.CHANNEL + ":", chan.CHANNEL + " ", chan.CHANNEL + "\t")
_SIGIL_AT, _TRIGGER_AT = 0, 1  # what `next_at` found


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


class ChanReader:
    spans: ClassVar[bool] = True

    def __init__(self, opening: Opening) -> None:
        self._window_cut = opening.window_cut
        self._open: _OpenChan | None = None  # the block being read
        self._seen_block = False
        self._strays = 0  # close tags that closed no block, so far
        # The window cut the message inside a block: its open tag as it stood before the window
        # (header, line), for the answer the block gets (before_window).
        self.cut_open: tuple[str, int] | None = None
        # Where the next "=string" stands in the piece being read (-2: not searched yet in it).
        self._miss = -2
        self._found = _SIGIL_AT

    @property
    def pending(self) -> PendingChanBlock | None:
        block = self._open
        if block is None:
            return None
        channel, topic, _ = split_tag(block.header)
        return PendingChanBlock(block.start_line, channel, topic)

    def before_window(self, text: str, start: int) -> None:
        # A block the window cuts is answered: its open tag, before the window, names its topic.
        opened = text.rfind(chan.OPEN, 0, start)
        if opened >= 0 and text.find(_CLOSE, opened, start) < 0:
            gt = text.find(">", opened, opened + chan.MAX_TAG_CHARS)
            if gt >= 0:
                line = 1 + cmd_grammar.count_breaks(text, 0, opened)
                self.cut_open = (text[opened + len(chan.OPEN) : gt], line)

    # --- outside blocks ---------------------------------------------------------------------

    def quiet(
        self,
        chunk: str,
        walk: Walk,
        _sigil: str = _SIGIL,
        _trigger: str = TRIGGER,
        _cut: tuple[str, ...] = _TRIGGER_ENDS,
    ) -> bool:
        # (_sigil, _trigger, _cut: constants as locals, read for every chunk of a stream)
        # Prose or OPERATOR_CMD text holding neither the sigil nor what a tag with a look-alike
        # of it holds, nor the end of "=string" begun in the text before it.
        return (
            _sigil not in chunk
            and ("=" not in chunk or _trigger not in chunk)
            and (
                chunk[0] not in "string"
                or not chunk.startswith(_cut)
                or _trigger not in walk.tail(6) + chunk[:6]
            )
        )

    def resume(self, text: str, pos: int, walk: Walk) -> int:
        self._miss = -2
        if walk.claimed is not None or walk.fragment or text[pos : pos + 1] not in _TRIGGER_STARTS:
            return pos
        tail = walk.tail(len(TRIGGER) - 1)
        cut = (tail + text[pos : pos + len(TRIGGER) - 1]).find(TRIGGER)
        if 0 <= cut < len(tail):  # "=string" begun in the text taken before this chunk
            return self._near_miss(text, pos, pos + cut - len(tail), walk) or pos
        return pos

    def next_at(self, text: str, pos: int) -> int:
        found = text.find(_SIGIL, pos)
        miss = self._miss
        if miss == -2 or 0 <= miss < pos:
            miss = self._miss = text.find(TRIGGER, pos)
        if miss >= 0 and (found < 0 or miss < found - 1):
            self._found = _TRIGGER_AT
            return miss
        self._found = _SIGIL_AT
        return found

    def look(self, text: str, pos: int, at: int, walk: Walk) -> int:
        if self._found == _TRIGGER_AT:
            # "=string" with no sigil before it: a tag with a look-alike of the sigil, or prose.
            return self._near_miss(text, pos, at, walk) or _prose(text, pos, at, walk)
        return self._at_sigil(text, pos, at, walk)

    def _at_sigil(self, text: str, pos: int, at: int, walk: Walk) -> int:
        """Handle the sigil at `at` (text from `pos` not taken yet); where to go on from."""
        before = text[max(pos, at - 2) : at]
        if len(before) < 2:
            before = (walk.tail(2) + text[pos:at])[-2:]
        if at + 1 >= len(text):  # what follows the sigil is in the next chunk
            walk.outside(text[pos:at])
            walk.hold(text, at)
            return len(text)
        after = text[at + 1]
        if before.endswith("<") and after == "=":
            return self._open_tag(text, pos, at, walk)
        if before == "</":
            closing = close_miss(text, at - 2) if after != ">" else (at + 2, "")
            if closing == "more":
                return _hold(text, pos, max(pos, at - 2), walk)
            if isinstance(closing, tuple):
                walk.outside(text[pos : closing[0]])
                if not walk.others_open():  # inside an OPERATOR_CMD block it is a value's text
                    self._stray_close(walk, closing[1])
                return closing[0]
        ahead = text[at + 1 : at + 4]
        if len(ahead) == 3 and "=" not in ahead and "\uff1d" not in ahead:
            return _prose(text, pos, at, walk)  # the sigil in prose: no "=" follows it
        return self._near_miss(text, pos, at, walk) or _prose(text, pos, at, walk)

    def _near_miss(self, text: str, pos: int, at: int, walk: Walk) -> int | None:
        """A near-miss tag around `at` opens a block (answered MALFORMED_TAG): where to go on
        from; None when there is none."""
        # What the tag may begin with can stand in text taken before this chunk (`at` itself
        # may: "=string" cut by the chunk's start).
        lead_size = _LOOK_BACK - at if at < _LOOK_BACK else 0
        lead = walk.tail(lead_size + pos)[: -pos or None] if lead_size else ""
        if lead:
            near, here = lead + text[: max(0, at) + 4], len(lead) + at
            before, after = near[max(0, here - _LOOK_BACK) : here], near[here : here + 4]
        else:
            before, after = text[max(0, at - _LOOK_BACK) : at], text[at : at + 4]
        if not plausible(before, after):
            return None
        found = open_miss(text, at, ended=walk.ended, lead=lead)
        if found is None:
            return None
        if isinstance(found, str):  # "more": the text ends before the tag could
            return _hold(text, pos, max(pos, at - _LOOK_BACK), walk)
        return self._open_miss(text, pos, found, walk)

    def _open_miss(self, text: str, pos: int, miss: TagMiss, walk: Walk) -> int:
        start = max(pos, miss.start)  # (a tag may begin in text taken already)
        walk.outside(text[pos:start])
        if walk.others_open():  # inside an OPERATOR_CMD block: part of a value
            walk.outside(text[start : miss.end])
            return miss.end
        line = walk.line()
        problem = f"the tag at line {line} has {miss.problem}"
        self._opened(_OpenChan(line, miss.header, problem=problem, close=miss.close), walk)
        walk.take(text[start : miss.end])
        return miss.end

    def _open_tag(self, text: str, pos: int, at: int, walk: Walk) -> int:
        size = len(text)
        limit = min(size, at + chan.MAX_TAG_CHARS)
        gt = text.find(">", at + 2, limit)
        brk = cmd_grammar.first_break(text, at + 2, gt if gt >= 0 else limit)
        if brk >= 0 or (gt < 0 and at + chan.MAX_TAG_CHARS <= size):
            # No ">" on the line: prose with the sigil, or a tag split over two lines.
            missed = self._near_miss(text, pos, at, walk)
            if missed is not None:
                return missed
            walk.outside(text[pos : at + 2])
            return at + 2
        if gt < 0:  # the tag may still close in the next chunk
            walk.outside(text[pos:at])
            walk.hold(text, at)
            return size
        # The text before the tag goes on first: it may finish a line that opens or closes an
        # OPERATOR_CMD block, and inside one the tag is only part of a value.
        walk.outside(text[pos:at])
        if walk.others_open():  # no ChanFlow block is open here: the scanner's own
            walk.outside(text[at : gt + 1])
            return gt + 1
        header = text[at + 2 : gt]
        if header != chan.CHANNEL and not header.startswith(_STRING_HEADS) and _suspicious(header):
            missed = self._near_miss(text, at, at, walk)  # "String:", an invisible in it
            if missed is not None:
                return missed
        self._opened(_OpenChan(walk.line(), header), walk)
        walk.take(text[at : gt + 1])
        return gt + 1

    def _opened(self, block: _OpenChan, walk: Walk) -> None:
        self._open = block
        self._seen_block = True
        walk.claim(self)

    # --- inside a block ---------------------------------------------------------------------

    def inside(self, text: str, pos: int, walk: Walk) -> int:
        block = self._open
        assert block is not None
        while True:
            found = text.find(_CLOSE_HEAD, pos)
            alt = text.find(block.close, pos) if block.close != _CLOSE else -1
            if alt >= 0 and (found < 0 or alt < found):
                return self._closed(text, pos, alt, alt + len(block.close), "", walk)
            if found < 0:
                keep = _close_prefix(text, pos, block.close)
                self._content(text[pos : len(text) - keep], walk)
                if keep:
                    walk.hold(text, len(text) - keep)
                return len(text)
            closing = close_miss(text, found)
            if closing == "more":
                self._content(text[pos:found], walk)
                walk.hold(text, found)
                return len(text)
            if isinstance(closing, tuple):
                return self._closed(text, pos, found, closing[0], closing[1], walk)
            self._content(text[pos : found + len(_CLOSE_HEAD)], walk)  # "</𝒞" and more: content
            pos = found + len(_CLOSE_HEAD)

    def finish(self, held: str, walk: Walk) -> None:
        self._content(held, walk)
        self._close(None, walk, fault="unclosed")

    def _content(self, piece: str, walk: Walk) -> None:
        block = self._open
        assert block is not None
        if not piece:
            return
        walk.take(piece)
        block.chars += len(piece)
        if block.chars > MAX_PAYLOAD_CHARS:
            block.too_large, block.pieces = True, []
        elif not block.too_large:
            block.pieces.append(piece)

    def _closed(self, text: str, pos: int, at: int, end: int, problem: str, walk: Walk) -> int:
        """The block's close tag stands at text[at:end] (`problem`: what is wrong with it)."""
        block = self._open
        assert block is not None
        self._content(text[pos:at], walk)
        walk.take(text[at:end])
        line = walk.line()
        if problem:
            where = f"its close tag at line {line} has {problem}"
            block.problem = (
                f"{block.problem}; {where}"
                if block.problem
                else f"the block at line {block.start_line}: {where}"
            )
        self._close(line, walk)
        return end

    def _close(self, end_line: int | None, walk: Walk, fault: Fault | None = None) -> None:
        block, self._open = self._open, None
        assert block is not None
        walk.release(block.start_line)
        payload = "".join(block.pieces)
        if block.problem is not None:  # what spoiled it first (and may be why it never closed)
            fault = "malformed"
        elif fault is None and block.too_large:
            fault = "too_large"
        elif fault is None and chan.OPEN in payload:
            fault = "nested"
        channel, topic, attributes = split_tag(block.header)
        walk.emit(
            ChanBlock(
                start_line=block.start_line,
                end_line=end_line,
                channel=channel,
                topic=topic,
                attributes=attributes,
                payload=trim_payload(payload),
                key=walk.key(),
                fault=fault,
                problem=block.problem,
            )
        )

    # --- a close tag with no block ----------------------------------------------------------

    def _stray_close(self, walk: Walk, problem: str = "") -> None:
        """A close tag no block is open for: the end of a block cut by the window, or a tag
        written without its open tag (answered, so the model learns its block did not run)."""
        line, key = walk.line(), walk.key()
        if self._window_cut and not self._seen_block:
            self._seen_block = True
            header, start = self.cut_open or (chan.CHANNEL, line)
            channel, topic, _ = split_tag(header)
            walk.emit(ChanBlock(start, line, channel, topic, "", "", key, fault="cut"))
            return
        self._strays += 1
        if self._strays > MAX_STRAY_ANSWERS:  # a flood of them: counted, not answered each
            if self._strays == MAX_STRAY_ANSWERS + 1:
                walk.emit(
                    ScanWarning(
                        line,
                        f"more than {MAX_STRAY_ANSWERS} close tags from line {line} on close no "
                        "block; only the first were answered",
                    )
                )
            return
        odd = f" (it has {problem})" if problem else ""
        walk.emit(
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


def _prose(text: str, pos: int, at: int, walk: Walk) -> int:
    walk.outside(text[pos : at + 1])
    return at + 1


def _hold(text: str, pos: int, at: int, walk: Walk) -> int:
    """Keep text[at:] for the next chunk (what stands there cannot be told yet)."""
    walk.outside(text[pos:at])
    walk.hold(text, at)
    return len(text)


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
