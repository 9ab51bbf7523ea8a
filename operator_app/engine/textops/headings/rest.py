"""reStructuredText's section titles, as docutils reads them: a line of text under a blank line
(or at the top), underlined, and maybe overlined too, by one punctuation character repeated at
least as long as the text (or four times); each style (character, overlined or not) is a level,
in the order the document first uses it. A title is never indented (an overlined one may be
inset), so the indented lines of a literal block (after `::`), a directive (`.. code-block::`)
or a quote are never titles; nor are the lines of a quoted literal block (unindented lines each
starting with the same punctuation, after a `::` paragraph)."""

from __future__ import annotations

import re

_ADORNMENT_RE = re.compile(r"([!-/:-@\[-`{-~])\1*[ \t]*")

Heading = tuple[int, int, str]  # (line, level, title), the line 1-based


def rest_headings(lines: list[str]) -> list[Heading]:
    """Every section title of a reST document, in order."""
    found: list[Heading] = []
    styles: list[tuple[str, bool]] = []  # the order styles first appear in: their levels
    quoted = False  # inside a quoted literal block
    fresh = True  # a title may start here: the first line, or after a blank line or a title
    index = 0
    while index < len(lines):
        if quoted:
            quoted, index = _after_quoted(lines, index)
            continue
        title = _title_at(lines, index) if fresh else None
        if title is not None:
            style, text, taken = title
            if style not in styles:
                styles.append(style)
            found.append((index + 1, styles.index(style) + 1, text))
            index += taken
            continue
        quoted = _opens_quoted(lines, index)
        fresh = not lines[index].strip()
        index += 1
    return found


def _title_at(lines: list[str], index: int) -> tuple[tuple[str, bool], str, int] | None:
    """The title starting at `index` (its style, its text, how many lines it takes), if one
    does: a line of text, then an underline; an overline before it makes a three-line title."""
    over = _adornment(lines[index])
    if over is not None and index + 2 < len(lines):
        text, under = lines[index + 1], _adornment(lines[index + 2])
        long_enough = len(lines[index + 2].rstrip()) >= len(text.rstrip())
        if under == over and text.strip() and _adornment(text) is None and long_enough:
            return (over, True), text.strip(), 3
    if index + 1 >= len(lines):
        return None
    text, under = lines[index], _adornment(lines[index + 1])
    if under is None or not text.strip() or text[0] in " \t" or over is not None:
        return None
    width, length = len(text.rstrip()), len(lines[index + 1].rstrip())
    if length >= width or length >= 4:
        return (under, False), text.strip(), 2
    return None


def _adornment(line: str) -> str | None:
    """The character a line of adornment repeats (at least twice), or None."""
    match = _ADORNMENT_RE.fullmatch(line)
    if match is None or len(line.rstrip()) < 2:
        return None
    return match.group(1)


def _opens_quoted(lines: list[str], index: int) -> bool:
    """Whether a quoted literal block starts after line `index`: it ends a paragraph with `::`,
    and the next line after the blank ones is unindented punctuation."""
    if not lines[index].rstrip().endswith("::"):
        return False
    following = index + 1
    while following < len(lines) and not lines[following].strip():
        following += 1
    if following == index + 1 or following >= len(lines):
        return False
    first = lines[following][:1]
    return bool(first) and first not in " \t" and not first.isalnum() and first.isascii()


def _after_quoted(lines: list[str], index: int) -> tuple[bool, int]:
    """Past the quoted literal block at `index` (blank lines, then lines starting with the first
    one's character): (inside one no more, the index after it)."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines):
        return False, index
    mark = lines[index][0]
    while index < len(lines) and lines[index][:1] == mark:
        index += 1
    return False, index
