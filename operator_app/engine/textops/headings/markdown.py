"""Markdown's headings, as CommonMark reads them: `## Title` (at most three spaces before it,
the closing #s dropped) and a paragraph underlined with `===` (level 1) or `---` (level 2), never
inside a fenced code block (``` or ~~~, closed by a fence of the same character, at least as
long, with nothing after it) nor in the YAML front matter a file may open with."""

from __future__ import annotations

import re

_HEADING_RE = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*")
_EMPTY_HEADING_RE = re.compile(r" {0,3}#{1,6}[ \t]*")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_UNDERLINE_RE = re.compile(r" {0,3}(=+|-+)[ \t]*")
# Lines that are not paragraph text, so a `---` under one is a thematic break (or a table's,
# a list's), not a heading's underline.
_NOT_TEXT_RE = re.compile(r" {0,3}(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)|[>|<])|.*\|| {4}|\t")
_THEMATIC_RE = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})")

Heading = tuple[int, int, str]  # (line, level, title), the line 1-based


def markdown_headings(lines: list[str]) -> list[Heading]:
    """Every heading of a Markdown document, in order."""
    found: list[Heading] = []
    fence: str | None = None  # the fence open, as its character repeated to its length
    paragraph: list[str] = []  # the paragraph's lines so far, for an underline below them
    start = _front_matter_end(lines)
    for number, line in enumerate(lines[start:], start=start + 1):
        if fence is not None:
            fence = _still_open(fence, line)
            continue
        opening = _FENCE_RE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence, paragraph = opening.group(1), []
            continue
        heading = _HEADING_RE.fullmatch(line)
        if heading and heading.group(2):
            found.append((number, len(heading.group(1)), heading.group(2)))
            paragraph = []
        elif paragraph and _UNDERLINE_RE.fullmatch(line):
            level = 1 if line.strip()[0] == "=" else 2
            found.append((number - len(paragraph), level, " ".join(paragraph)))
            paragraph = []
        elif not line.strip() or _is_not_text(line):
            paragraph = []
        else:
            paragraph.append(line.strip())
    return found


def _is_not_text(line: str) -> bool:
    return bool(
        _NOT_TEXT_RE.match(line)
        or _THEMATIC_RE.fullmatch(line)
        or _EMPTY_HEADING_RE.fullmatch(line)
    )


def _still_open(fence: str, line: str) -> str | None:
    """The fence after `line` inside it: None when the line closes it (the same character, at
    least as long, nothing after it but spaces), else the fence still open."""
    closing = _FENCE_RE.fullmatch(line)
    if closing is None or closing.group(2).strip():
        return fence
    mark = closing.group(1)
    return None if mark[0] == fence[0] and len(mark) >= len(fence) else fence


def _front_matter_end(lines: list[str]) -> int:
    """How many lines the YAML front matter takes (`---` on the first line to the next `---` or
    `...`): none when the file does not open with one."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1
    return 0
