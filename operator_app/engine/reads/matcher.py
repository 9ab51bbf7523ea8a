"""How fs.searchTree finds its query in one file: the lines that hold it, each with where the
match starts, at most one hit per line. A case-sensitive text query is looked for in the file's
bytes (one C search per file, most files having no match); ignore_case on ASCII text searches the
lowered bytes; a regular expression, or ignore_case beyond ASCII, goes through the `regex` module
on the decoded text, with a timeout so one pathological expression cannot outlast the search's
time limit (it raises TimeoutError). A line shown is cut to a window around its match."""

from __future__ import annotations

from typing import Any, NamedTuple

from ...protocol.commands.navigation import compile_query
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
        found = self.pattern.search(_text(data, text), timeout=timeout)
        return found is not None

    def hits(
        self, data: bytes, text: str | None, room: int, timeout: float
    ) -> tuple[list[Hit], bool]:
        """Up to `room` hits in the file, and whether it holds more. `text` is the decoded text of
        a file that is not ASCII (the caller decoded it to check it is UTF-8), else None."""
        if self.needle is not None:
            if not self.contains(data, self.needle):
                return [], False
            return _byte_hits(data, data, self.needle, room)
        if self.lowered is not None and text is None:
            lowered = data.lower()
            if not self.contains(lowered, self.lowered):
                return [], False
            return _byte_hits(data, lowered, self.lowered, room)
        return _text_hits(_text(data, text), self.pattern, room, timeout)


def _text(data: bytes, text: str | None) -> str:
    if text is None:
        text = data.decode("utf-8")
    return text.removeprefix("\ufeff")


def _byte_hits(data: bytes, hay: bytes, needle: bytes, room: int) -> tuple[list[Hit], bool]:
    """Hits of `needle` in `hay` (the file's bytes, or them lowered), shown from `data`."""
    found: list[Hit] = []
    pos = hay.find(needle)
    line_no, counted = 1, 0
    while pos >= 0:
        if len(found) == room:
            return found, True
        line_no += hay.count(b"\n", counted, pos)
        counted = pos
        start = hay.rfind(b"\n", 0, pos) + 1
        end = hay.find(b"\n", pos)
        if end < 0:
            end = len(hay)
        if start == 0 and data.startswith(_BOM):
            start = len(_BOM)
        line = data[start:end].decode("utf-8", errors="replace")
        column = len(data[start:pos].decode("utf-8", errors="replace"))
        found.append(Hit(line_no, line.removesuffix("\r"), column))
        pos = hay.find(needle, end + 1)
    return found, False


def _text_hits(text: str, pattern: Any, room: int, timeout: float) -> tuple[list[Hit], bool]:
    found: list[Hit] = []
    line_no, counted, pos = 1, 0, 0
    while True:
        match = pattern.search(text, pos, timeout=timeout)
        if match is None:
            return found, False
        if len(found) == room:
            return found, True
        at = match.start()
        line_no += text.count("\n", counted, at)
        counted = at
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        found.append(Hit(line_no, text[start:end].removesuffix("\r"), at - start))
        pos = end + 1
        if pos > len(text):
            return found, False


def window(line: str, column: int, width: int) -> str:
    """`line` cut to about `width` characters around `column`, each cut end marked "[...]"."""
    if len(line) <= width:
        return line
    start = max(0, min(column - width // 4, len(line) - width))
    piece = line[start : start + width]
    before = "[...] " if start else ""
    after = " [...]" if start + width < len(line) else ""
    return before + piece + after
