"""Finds OPERATOR_CMD blocks in an assistant message, whole or streamed (sans-IO).

`Scanner.feed(chunk)` returns the events that chunk completed; `Scanner.end()` closes the
message. A block is emitted the moment its END marker arrives, so it can run at once; a trailing
open block is only `pending` until `end()`, which turns it into ERR_MISSING_END_MARKER. Feeding a
text whole or in any chunking yields the same events. `scan_message()` applies the 200,000
character window of the spec to a whole message; `windowed()` gives a scanner set up for that
window, for a stream that opens on more text than it.

Cost is linear in the input: outside blocks the scanner jumps from one "OPERATOR_" occurrence to
the next with str.find instead of visiting every line, and text held back for an unfinished line
is kept as pieces, never re-concatenated or walked again per chunk, even when `pending` is asked
after every chunk.
"""

from __future__ import annotations

from typing import ClassVar

from msgspec import Struct

from . import grammar
from .blocks import (
    OpenBlock,
    PendingBlock,
    RawBlock,
    ScanEvent,
    ScanWarning,
    classify,
    fence_lines,
    not_alone_message,
)
from .errors import ErrorCode, OperatorError
from .message.window import message_window

__all__ = [
    "PendingBlock",
    "RawBlock",
    "ScanEvent",
    "ScanResult",
    "ScanWarning",
    "Scanner",
    "scan_message",
    "windowed",
]

_END_TOKEN = "END_OPERATOR_"
_TOKEN_HEAD = len(_END_TOKEN) - 1  # how much of the token can come before the chunk that ends it


class Scanner:
    """OPERATOR_CMD's reader: a line reader (protocol/message/reader.py), given every line of the
    message outside other dialects' blocks."""

    spans: ClassVar[bool] = False

    def __init__(
        self, *, first_line: int = 1, skip_first_fragment: bool = False, window_cut: bool = False
    ) -> None:
        self._pieces: list[str] = []  # text not yet consumed (an unfinished line, mostly)
        self._line_no = first_line  # number of the line that starts the unconsumed text
        self._skip_fragment = skip_first_fragment
        self._window_cut = window_cut
        self._seen_start = False
        self._block: OpenBlock | None = None
        self._in_result: int | None = None  # start line of an open OPERATOR_RESULT block
        self._fences = [0, 0]  # fence lines of ``` and of ~~~ so far: an odd count is an open fence
        self._breaks: tuple[str, ...] = ("\n", "\r")  # in the text being walked (fewer to count)
        self._tildes = True  # the text being walked holds "~~~"
        self._result_alone = True  # its marker was alone on its line (else: it may have been prose)
        self._ended = False
        self._armed = False  # queued text holds "OPERATOR_": a complete line of it needs work
        self._backlog: list[ScanEvent] = []  # events found early by `pending`
        # What `pending` knows of the queue without walking it, so asking after every chunk costs
        # only the new text: the walked rest is an unfinished line (a trailing "\r" aside, which
        # may be half of "\r\n"), and a walk can only change the answer when a line is complete
        # and it may open a block (a marker needs "OPERATOR_") or give an open block its id.
        self._looked = 0  # pieces looked at since the last walk
        self._held_cr = False  # the walked rest ends with a "\r" waiting for its "\n"
        self._queue_break = False  # a line break in the looked-at text completes a line
        self._queue_token = False  # "OPERATOR_" in the looked-at text
        self.walked_chars = (
            0  # characters handed to the line walk, in all (a work counter for tests)
        )
        # The next chunk opens the message (and may start with a BOM), or end() was called.
        self._first_or_ended = first_line == 1 and not skip_first_fragment

    @property
    def pending(self) -> PendingBlock | None:
        # lines held back may open a block or hold its id: look at them now
        if self._worth_a_walk():
            self._backlog += self._consume(final=False)
            self._armed = _END_TOKEN in self._pieces[-1]
        if self._block is None:
            return None
        return PendingBlock(self._block.start_line, self._block.id_hint)

    def _worth_a_walk(self) -> bool:
        """Whether walking the queue now may change what `pending` says. Only text queued since
        the last question is looked at, so a long unfinished line or a long stretch of prose
        costs nothing more per question; the walk itself waits for text that matters."""
        pieces = self._pieces
        looked = self._looked
        if looked < len(pieces):
            fresh = pieces[looked] if looked == len(pieces) - 1 else "".join(pieces[looked:])
            if self._held_cr or "\n" in fresh or "\r" in fresh:
                self._queue_break = True
            if not self._queue_token:
                self._queue_token = (
                    "OPERATOR_" in fresh or "OPERATOR_" in self._text_before(looked, 8) + fresh[:8]
                )
            self._looked = len(pieces)
        if not self._queue_break:
            return False
        return self._queue_token or (self._block is not None and self._block.id_hint is None)

    def feed(self, chunk: str) -> list[ScanEvent]:
        """Take the next piece of the message; return the blocks (and warnings) it completed.

        Blocks are only ever completed by a line holding "END_OPERATOR_", so text is merely
        queued until such a line is complete; the work then happens once, in `_consume`.
        This keeps a stream of small chunks about as cheap as one feed of the whole text: a
        chunk of prose without "_" costs the tests below and an append, no call.
        """
        if self._first_or_ended:  # one test on the hot path for two rare cases
            chunk = self._opening(chunk)
        if not chunk:
            return []
        self._pieces.append(chunk)
        if not self._armed:
            # Nothing is emitted before an END marker's line is complete, so only
            # "END_OPERATOR_" arms the scanner. Most prose has no "_" at all, which one quick
            # test settles.
            if "_" not in chunk or not self._arms(chunk):
                return self._take_backlog([]) if self._backlog else []
            self._armed = True
        if not self._completes_line(chunk):
            return self._take_backlog([]) if self._backlog else []
        events = self._consume(final=False)
        self._armed = _END_TOKEN in self._pieces[-1]
        return self._take_backlog(events) if self._backlog else events

    def _opening(self, chunk: str) -> str:
        """The first chunk (or one after end(), refused): without the byte order mark it may
        open with."""
        if self._ended:
            raise RuntimeError("feed() after end()")
        if chunk:
            self._first_or_ended = False
            # A byte order mark opening the message (a file saved by Windows Notepad) is
            # encoding, not text: left in, it would hide a marker on the first line.
            chunk = chunk.removeprefix("\ufeff")
        return chunk

    def _arms(self, chunk: str) -> bool:
        """Whether `chunk` (which holds "_") completes "END_OPERATOR_": a token split across
        chunks ends in this chunk's first 13 characters, and every suffix of the token holds
        "_"; only then is the text queued before it (over as many chunks as it takes) worth a
        look."""
        return _END_TOKEN in chunk or (
            chunk.find("_", 0, 13) >= 0
            and _END_TOKEN in self._text_before(len(self._pieces) - 1, _TOKEN_HEAD) + chunk[:13]
        )

    def _completes_line(self, chunk: str) -> bool:
        """Whether `chunk` completes a line: it holds a break, or the "\r" that ended the text
        before it (held as maybe half of "\r\n") is a line's end now that it does not start
        with "\n" (an END line, in CR-only text)."""
        return (
            "\n" in chunk
            or "\r" in chunk
            or (len(self._pieces) > 1 and self._pieces[-2].endswith("\r"))
        )

    def _text_before(self, index: int, size: int) -> str:
        """The last `size` characters queued before piece `index`. Text already walked ended at a
        line break, which no token spans, so the queue holds all of the line a token could start
        in."""
        pieces = self._pieces
        tail = ""
        index -= 1
        while index >= 0 and len(tail) < size:
            tail = pieces[index][-size:] + tail
            index -= 1
        return tail[-size:]

    def _take_backlog(self, events: list[ScanEvent]) -> list[ScanEvent]:
        if not self._backlog:
            return events
        backlog, self._backlog = self._backlog, []
        return backlog + events

    def end(self) -> list[ScanEvent]:
        if self._ended:
            return []
        events = self._take_backlog(self._consume(final=True))
        self._ended = self._first_or_ended = True
        if self._block is not None:
            block, self._block = self._block, None
            if not block.suspect:  # a suspect block already carries ERR_MARKER_NOT_ALONE
                block.fail(
                    ErrorCode.ERR_MISSING_END_MARKER,
                    f"OPERATOR_CMD at line {block.start_line} has no END_OPERATOR_CMD before the "
                    "message ends; close the block with END_OPERATOR_CMD alone on its line",
                )
            events.append(self._emit(block, None))
        if self._in_result is not None:
            events.append(
                ScanWarning(
                    self._in_result, f"OPERATOR_RESULT at line {self._in_result} is never closed"
                )
            )
            self._in_result = None
        return events

    # --- the line walk -------------------------------------------------------------------

    def _consume(self, *, final: bool) -> list[ScanEvent]:
        text = "".join(self._pieces)
        self._pieces.clear()
        self._breaks = ("\n", "\r") if "\r" in text else ("\n",)
        self._tildes = "~~~" in text
        self.walked_chars += len(text)
        # A "\r" at the very end may be the first half of "\r\n": wait for the next chunk.
        hold_cr = not final and text.endswith("\r")
        limit = len(text) - 1 if hold_cr else len(text)
        events: list[ScanEvent] = []
        pos = 0
        while pos < limit:
            if self._block is None and not self._skip_fragment:  # only marker lines matter here
                found = text.find("OPERATOR_", pos, limit)
                if found < 0:
                    last_break = max(text.rfind("\n", pos, limit), text.rfind("\r", pos, limit))
                    if last_break < 0:
                        break
                    self._advance_lines(text, pos, last_break + 1)
                    pos = last_break + 1
                    continue
                line_start = max(text.rfind("\n", pos, found), text.rfind("\r", pos, found)) + 1
                line_start = max(line_start, pos)
                self._advance_lines(text, pos, line_start)
                pos = line_start
            brk = grammar.LINE_BREAK_RE.search(text, pos, limit)
            if brk is None:
                if not final:
                    break
                line, pos, ending = text[pos:limit], limit, ""
            else:
                line, pos, ending = text[pos : brk.start()], brk.end(), brk.group()
            line_no = self._line_no
            self._line_no += 1
            if self._skip_fragment:
                self._skip_fragment = False  # the window began inside this line: it is a fragment
                continue
            self._line(line_no, line, events)
            if self._block is not None:  # the block's opening line or one of its own
                self._block.note_break(line_no, ending)
        rest = text[pos:]
        self._pieces.append(rest)
        self._looked, self._held_cr, self._queue_break = 1, hold_cr, False
        self._queue_token = "OPERATOR_" in rest
        return events

    def _advance_lines(self, text: str, start: int, stop: int) -> None:
        if stop > start:
            self._count_fences(text, start, stop)
            self._line_no += grammar.count_breaks(text, start, stop)

    def _line(self, line_no: int, line: str, events: list[ScanEvent]) -> None:
        marker = classify(line)
        if self._in_result is not None:
            self._line_in_result(line_no, line, marker, events)
        elif self._block is not None:
            self._line_in_block(line_no, line, marker, events)
        elif marker is not None:
            self._line_outside(line_no, line, marker, events)
        elif "```" in line or "~~~" in line:
            backticks, tildes = fence_lines(line, 0, len(line))
            self._fences[0] += backticks
            self._fences[1] += tildes

    def _count_fences(self, text: str, start: int, stop: int) -> None:
        backticks, tildes = fence_lines(text, start, stop, self._breaks, self._tildes)
        self._fences[0] += backticks
        self._fences[1] += tildes

    def _line_outside(
        self, line_no: int, line: str, marker: tuple[str, bool], events: list[ScanEvent]
    ) -> None:
        token, alone = marker
        if token == grammar.CMD_START:
            self._seen_start = True
            self._block = OpenBlock(
                line_no,
                suspect=not alone,
                markers_indented=line.startswith((" ", "\t")),
                fenced=self._fences[0] % 2 == 1 or self._fences[1] % 2 == 1,
            )
            if not alone:
                self._block.fail(
                    ErrorCode.ERR_MARKER_NOT_ALONE, not_alone_message(token, line_no, line)
                )
        elif token == grammar.RESULT_START:
            self._in_result, self._result_alone = line_no, alone
            if not alone:
                events.append(
                    ScanWarning(
                        line_no, f"OPERATOR_RESULT at line {line_no} is not alone on its line"
                    )
                )
        elif token == grammar.CMD_END:
            if self._window_cut and not self._seen_start:
                # Answered, not passed over: the model learns the command never ran.
                self._seen_start = True
                events.append(
                    RawBlock(
                        line_no,
                        line_no,
                        (),
                        OperatorError(
                            ErrorCode.ERR_BLOCK_TOO_LARGE,
                            (
                                f"the block ending at line {line_no} starts before the last "
                                f"{grammar.WINDOW_CHARS} characters of the message, which are "
                                "all Operator reads, so nothing in it was run; send it again "
                                "near the end of a message, under 200 lines and 50000 "
                                "characters (split a large content over several commands)"
                            ),
                        ),
                    )
                )
            elif alone:
                events.append(
                    ScanWarning(
                        line_no, f"END_OPERATOR_CMD at line {line_no} has no OPERATOR_CMD before it"
                    )
                )
            else:
                events.append(
                    RawBlock(
                        line_no,
                        line_no,
                        (),
                        OperatorError(
                            ErrorCode.ERR_MARKER_NOT_ALONE,
                            not_alone_message(token, line_no, line)
                            + "; no OPERATOR_CMD opened this block, so nothing in it was run",
                        ),
                    )
                )
        # A stray END_OPERATOR_RESULT outside any result block carries no command: nothing to do.

    def _line_in_result(
        self, line_no: int, line: str, marker: tuple[str, bool] | None, events: list[ScanEvent]
    ) -> None:
        if marker is None:
            return
        token, _alone = marker
        if token == grammar.RESULT_END:
            self._in_result = None
        elif token == grammar.CMD_START:
            # Nothing inside an OPERATOR_RESULT block is ever run, so this command is reported, not
            # executed (a model that imagines a result holding a command must not get it run).
            # Result blocks only hold id/ok/summary/details lines, so the result is most likely
            # unclosed: treat it as closed here rather than swallow every later command.
            # A result opened by a line that only starts with the token may have been prose: still
            # not run (running is the unsafe guess), but the message says what opened the result.
            result_line, self._in_result = self._in_result, None
            opened = (
                ""
                if self._result_alone
                else " (a line starting with OPERATOR_RESULT opens one, even in prose)"
            )
            self._line_outside(line_no, line, marker, events)
            assert self._block is not None
            self._block.fail(
                ErrorCode.ERR_NESTED_BLOCK,
                (
                    f"OPERATOR_CMD at line {line_no} is inside the OPERATOR_RESULT block opened at "
                    f"line {result_line}{opened}, so it was not run; OPERATOR_RESULT blocks come "
                    "from Operator: do not write them, and send the command on its own"
                ),
            )

    def _line_in_block(
        self, line_no: int, line: str, marker: tuple[str, bool] | None, events: list[ScanEvent]
    ) -> None:
        block = self._block
        assert block is not None
        if marker is None:
            block.add(line_no, line)
            return
        token, alone = marker
        if token == grammar.CMD_END:
            if not alone:
                block.fail(ErrorCode.ERR_MARKER_NOT_ALONE, not_alone_message(token, line_no, line))
            block.markers_indented = block.markers_indented or line.startswith((" ", "\t"))
            self._block = None
            events.append(self._emit(block, line_no))
            return
        if block.suspect and token == grammar.CMD_START and alone:
            # The "OPERATOR_CMD ..." line that opened this block was most likely prose: report it
            # and let this well-formed marker start the real block.
            events.append(self._emit(block, None))
            self._block = None
            self._line_outside(line_no, line, marker, events)
            return
        if token == grammar.CMD_START and alone:
            block.fail(
                ErrorCode.ERR_NESTED_BLOCK,
                (
                    f"OPERATOR_CMD at line {line_no} starts before the block opened at line "
                    f"{block.start_line} is closed; neither was run; end each block with "
                    "END_OPERATOR_CMD before the next OPERATOR_CMD"
                ),
            )
        elif alone:
            block.fail(
                ErrorCode.ERR_NESTED_BLOCK,
                (
                    f"{token} at line {line_no} is inside the OPERATOR_CMD block opened at line "
                    f"{block.start_line}; close the command with END_OPERATOR_CMD first"
                ),
            )
        else:
            block.fail(ErrorCode.ERR_MARKER_NOT_ALONE, not_alone_message(token, line_no, line))
        block.add(line_no, line)

    def _emit(self, block: OpenBlock, end_line: int | None) -> RawBlock:
        return RawBlock(
            block.start_line,
            end_line,
            tuple(block.lines),
            block.error,
            block.id_hint,
            block.markers_indented,
            block.fenced,
        )


class ScanResult(Struct, frozen=True):
    blocks: tuple[RawBlock, ...]
    warnings: tuple[ScanWarning, ...]
    window_start: int  # character offset where scanning began (0 unless the message was cut)


def windowed(text: str) -> tuple[Scanner, int, ScanWarning | None]:
    """An OPERATOR_CMD scanner for the spec's window of `text` (its last WINDOW_CHARS
    characters), the offset the window starts at, and the warning to give when it cuts the text.
    Feed it text[start:]."""
    window = message_window(text)
    if window is None:
        return Scanner(), 0, None
    scanner = Scanner(
        first_line=window.first_line, skip_first_fragment=window.fragment, window_cut=True
    )
    return scanner, window.start, window.warning


def scan_message(text: str) -> ScanResult:
    """Scan a whole message: only its last WINDOW_CHARS characters, as the spec says."""
    scanner, start, cut = windowed(text)
    events = scanner.feed(text[start:]) if start else scanner.feed(text)
    events += scanner.end()
    blocks = tuple(e for e in events if isinstance(e, RawBlock))
    warnings = [e for e in events if isinstance(e, ScanWarning)]
    if cut is not None:
        warnings.insert(0, cut)
    return ScanResult(blocks, tuple(warnings), start)
