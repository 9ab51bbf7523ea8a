"""AsciiDoc's section titles, as Asciidoctor reads them: `= Document title` (level 0) and
`== Section` to `====== Section` (levels 1 to 5), or the same with `#`, at the start of a line,
never inside a delimited block: listing `----`, literal `....`, passthrough `++++`, comment
`////`, example `====`, sidebar `****`, quote `____`, open `--`, a table `|===`, or a fenced
``` block (a block closes at the same line that opened it)."""

from __future__ import annotations

import re

_TITLE_RE = re.compile(r"(={1,6}|#{1,6})[ \t]+(\S.*?)[ \t]*")
_DELIMITER_RE = re.compile(r"(-{4,}|\.{4,}|\+{4,}|/{4,}|={4,}|\*{4,}|_{4,}|--|\|={3,}|`{3,}).*")

Heading = tuple[int, int, str]  # (line, level, title), the line 1-based


def asciidoc_headings(lines: list[str]) -> list[Heading]:
    """Every section title of an AsciiDoc document, in order."""
    found: list[Heading] = []
    block: str | None = None  # the delimiter line of the block open
    for number, line in enumerate(lines, start=1):
        delimiter = _delimiter(line)
        if block is not None:
            if delimiter == block:
                block = None
            continue
        if delimiter is not None:
            block = delimiter
            continue
        title = _TITLE_RE.fullmatch(line)
        if title:
            found.append((number, len(title.group(1)) - 1, title.group(2)))
    return found


def _delimiter(line: str) -> str | None:
    """The block delimiter a line is (a fence keeps only its backticks: ```ruby opens what ```
    closes), or None."""
    text = line.rstrip()
    match = _DELIMITER_RE.fullmatch(text)
    if match is None:
        return None
    mark = match.group(1)
    if mark.startswith("`"):
        return mark
    return text if text == mark else None
