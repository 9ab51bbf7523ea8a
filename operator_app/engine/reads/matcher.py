"""How fs.searchTree and fs.search find their query in one file: the lines that hold it, each with
where the match starts, at most one hit per line. A case-sensitive text query is looked for in the
file's bytes (one C search per file, most files having no match); ignore_case on ASCII text
searches the lowered bytes; a regular expression, or ignore_case beyond ASCII, goes through the
`regex` module on the decoded text (^ and $ at each line's start and end, CRLF lines included),
with a timeout so one pathological expression cannot outlast the search's time limit (it raises
TimeoutError). A line shown is cut to a window around its match."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, NamedTuple

from ...protocol.commands.matching import compile_query
from ...protocol.regex_cost import MATCH_TIME_LIMIT_S
from .fastfind import contains_function

_BOM = b"\xef\xbb\xbf"


class Hit(NamedTuple):
    line: int  # 1-based
    text: str  # the whole line, without its line break
    column: int  # where the match starts in `text`


class Matcher:
    def __init__(self, query: str, *, regex: bool, ignore_case: bool) -> None:
        self.contains = contains_function()
        self.needle: bytes | None = None  # searched in the bytes as they are
        self.lowered: bytes | None = None  # searched in the lowered bytes of an ASCII file
        self.pattern: Any = None  # searched in the decoded text
        # Only a $ tells a CRLF line break from an LF one: for a pattern with one, CRLF becomes
        # LF before the search (a pass over the text that other patterns are spared).
        self.lf_only = regex and "$" in query
        if regex:
            self.pattern = compile_query(query, ignore_case=ignore_case)
        elif ignore_case:
            import regex as regex_module

            if query.isascii():
                self.lowered = query.lower().encode("ascii")
            self.pattern = regex_module.compile(regex_module.escape(query), regex_module.IGNORECASE)
        else:
            self.needle = query.encode("utf-8")

    def found_in(self, data: bytes, text: str | None, timeout: float) -> bool:
        """Whether the file holds a match at all (`text`: its decoded text, when already made)."""
        if self.needle is not None:
            return self.contains(data, self.needle)
        if self.lowered is not None and text is None:
            return self.contains(data.lower(), self.lowered)
        searched = _text(data, text, lf_only=self.lf_only)
        return next(_text_lines(searched, self.pattern, timeout), None) is not None

    def hits(
        self, data: bytes, text: str | None, room: int, timeout: float
    ) -> tuple[list[Hit], bool]:
        """Up to `room` hits in the file, and whether it holds more. `text` is the decoded text of
        a file that is not ASCII (the caller decoded it to check it is UTF-8), else None."""
        found, total = self._lines(data, text, room, timeout, count_all=False)
        return found, total > len(found)

    def counted_hits(self, data: bytes, text: str | None, room: int) -> tuple[list[Hit], int]:
        """Up to `room` hits in the file, and how many lines match in all (fs.search's header);
        a regex search that takes over MATCH_TIME_LIMIT_S raises TimeoutError."""
        return self._lines(data, text, room, MATCH_TIME_LIMIT_S, count_all=True)

    def _lines(
        self, data: bytes, text: str | None, room: int, timeout: float, *, count_all: bool
    ) -> tuple[list[Hit], int]:
        if self.needle is not None:
            if not self.contains(data, self.needle):
                return [], 0
            return _collect(_byte_lines(data, self.needle), data, room, count_all)
        if self.lowered is not None and text is None:
            lowered = data.lower()
            if not self.contains(lowered, self.lowered):
                return [], 0
            return _collect(_byte_lines(lowered, self.lowered), data, room, count_all)
        searched = _text(data, text, lf_only=self.lf_only)
        return _collect(_text_lines(searched, self.pattern, timeout), searched, room, count_all)


def _text(data: bytes, text: str | None, *, lf_only: bool) -> str:
    """The text a pattern is searched in: without its BOM, and with `lf_only` each CRLF line
    break made "\n", so that $ matches at the end of a CRLF file's lines as at an LF file's
    (lines and columns are the same in both: the "\r" a CRLF line ends with is never shown)."""
    if text is None:
        text = data.decode("utf-8")
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n") if lf_only and "\r\n" in text else text


# Where a matching line is: (its number, where it starts, where it ends, where the match starts),
# offsets into what was searched (the file's bytes, or its text).
Span = tuple[int, int, int, int]


def _collect(
    spans: Iterator[Span], source: bytes | str, room: int, count_all: bool
) -> tuple[list[Hit], int]:
    """The first `room` matching lines as hits, shown from `source` (the file's bytes, or the
    text searched), and how many lines matched: all of them with `count_all`, else one more than
    `room` at most (enough to tell there are more)."""
    found: list[Hit] = []
    total = 0
    for line_no, start, end, at in spans:
        total += 1
        if len(found) < room:
            found.append(_hit(source, line_no, start, end, at))
        elif not count_all:
            break
    return found, total


def _hit(source: bytes | str, line_no: int, start: int, end: int, at: int) -> Hit:
    if isinstance(source, str):
        return Hit(line_no, source[start:end].removesuffix("\r"), at - start)
    if start == 0 and source.startswith(_BOM):
        start = len(_BOM)
    line = source[start:end].decode("utf-8", errors="replace")
    column = len(source[start:at].decode("utf-8", errors="replace"))
    return Hit(line_no, line.removesuffix("\r"), column)


def _byte_lines(hay: bytes, needle: bytes) -> Iterator[Span]:
    """The lines of `hay` (the file's bytes, or them lowered) holding `needle`."""
    pos = hay.find(needle)
    line_no, counted = 1, 0
    while pos >= 0:
        line_no += hay.count(b"\n", counted, pos)
        counted = pos
        start = hay.rfind(b"\n", 0, pos) + 1
        end = hay.find(b"\n", pos)
        if end < 0:
            end = len(hay)
        yield line_no, start, end, pos
        pos = hay.find(needle, end + 1)


def _text_lines(text: str, pattern: Any, timeout: float) -> Iterator[Span]:
    """The lines of `text` where `pattern` finds a match (the line it starts on). A file's last
    line break ends its last line: an empty match after it ($, ^, ^$) is on no line, as in grep.
    `timeout` bounds all the searches of the file together (one per matching line), not each:
    TimeoutError past it."""
    deadline = time.monotonic() + timeout
    line_no, counted, pos = 1, 0, 0
    while pos <= len(text):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the search of this file took over its time limit")
        match = pattern.search(text, pos, timeout=left)
        if match is None:
            return
        at = match.start()
        if at == len(text) and (not text or text[-1] == "\n"):
            return
        line_no += text.count("\n", counted, at)
        counted = at
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        yield line_no, start, end, at
        pos = end + 1


def window(line: str, column: int, width: int) -> str:
    """`line` cut to about `width` characters around `column`, each cut end marked "[...]"."""
    if len(line) <= width:
        return line
    start = max(0, min(column - width // 4, len(line) - width))
    piece = line[start : start + width]
    before = "[...] " if start else ""
    after = " [...]" if start + width < len(line) else ""
    return before + piece + after
