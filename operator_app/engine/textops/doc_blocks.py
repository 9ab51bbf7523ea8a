"""The blocks of a document that String's `#id` names (pure): the text between `<!-- #id -->` and
`<!-- /id -->`, an OPERATOR_BEGIN id / OPERATOR_END id region (in the file's comment style), and
a Markdown heading's section by its slug (`## Decisions` is `#decisions`, up to the next heading
of the same or a higher level, blank lines before that heading left out) in Markdown and plain
text. Headings inside code fences are not headings. Where two blocks share an id, the marked one
wins: comment block, then region, then heading."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from msgspec import Struct

from ...protocol.comments import CommentStyle
from .regions import scan_regions

Kind = Literal["comment", "region", "heading"]
_COMMENT_OPEN_RE = re.compile(r"\s*<!--\s*#([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*-->\s*")
_COMMENT_CLOSE_RE = re.compile(r"\s*<!--\s*/([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*-->\s*")
_HEADING_RE = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})")
_KIND_ORDER: dict[Kind, int] = {"comment": 0, "region": 1, "heading": 2}


class DocBlock(Struct, frozen=True):
    id: str
    kind: Kind
    first: int  # first line of the block's content, 1-based
    last: int  # its last line (first - 1 when the block is empty)
    marker_line: int  # the line that opens it (the heading line itself, for a heading)


def slug(title: str) -> str:
    """A heading's id as Markdown renderers make it: lower case, letters, digits, - and _ kept,
    spaces become -, the rest dropped ("## What's next?" -> "whats-next")."""
    text = unicodedata.normalize("NFKC", title).strip().lower()
    kept = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def find_blocks(
    lines: list[str], style: CommentStyle | None, *, headings: bool = True
) -> list[DocBlock]:
    """Every block of the document, in the order they start; an id taken by a marked block is
    not given to a heading. `headings`: whether "# ..." lines are Markdown headings (in code they
    are comments)."""
    found = _comment_blocks(lines) + _region_blocks(lines, style)
    if headings:
        found += _heading_blocks(lines)
    found.sort(key=lambda block: (_KIND_ORDER[block.kind], block.marker_line))
    chosen: dict[str, DocBlock] = {}
    for block in found:
        chosen.setdefault(block.id, block)
    return sorted(chosen.values(), key=lambda block: block.marker_line)


def _comment_blocks(lines: list[str]) -> list[DocBlock]:
    opened: dict[str, int] = {}
    blocks = []
    for number, line in enumerate(lines, start=1):
        match = _COMMENT_OPEN_RE.fullmatch(line)
        if match:
            opened.setdefault(match.group(1), number)
            continue
        match = _COMMENT_CLOSE_RE.fullmatch(line)
        if match and match.group(1) in opened:
            start = opened.pop(match.group(1))
            blocks.append(DocBlock(match.group(1), "comment", start + 1, number - 1, start))
    return blocks


def _region_blocks(lines: list[str], style: CommentStyle | None) -> list[DocBlock]:
    if style is None:
        return []
    scan = scan_regions("\n".join(lines), style)
    return [
        DocBlock(r.marker_id, "region", r.begin_line + 1, r.end_line - 1, r.begin_line)
        for r in scan.regions
    ]


def _heading_blocks(lines: list[str]) -> list[DocBlock]:
    headings = _headings(lines)
    blocks = []
    seen: dict[str, int] = {}
    for index, (number, _, name) in enumerate(headings):
        count = seen.get(name, 0)
        seen[name] = count + 1
        # A second "## Notes" is #notes-1, as Markdown renderers number repeated slugs.
        block_id = name if count == 0 else f"{name}-{count}"
        if block_id:
            blocks.append(
                DocBlock(block_id, "heading", number, _section_end(lines, headings, index), number)
            )
    return blocks


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line, level, slug) of each Markdown heading outside a code fence."""
    headings: list[tuple[int, int, str]] = []
    fence: str | None = None  # the fence open, as its character repeated to its length
    for number, line in enumerate(lines, start=1):
        match = _FENCE_RE.match(line)
        if match:
            fence = _fence_after(fence, match.group(1))
            continue
        if fence is not None:
            continue
        match = _HEADING_RE.fullmatch(line)
        if match and match.group(2):
            headings.append((number, len(match.group(1)), slug(match.group(2))))
    return headings


def _fence_after(fence: str | None, mark: str) -> str | None:
    """The fence open after a fence line `mark`: it opens one, or closes the one open (same
    character, at least as long), or is text inside it."""
    if fence is None:
        return mark[0] * len(mark)
    if mark[0] == fence[0] and len(mark) >= len(fence):
        return None
    return fence


def _section_end(lines: list[str], headings: list[tuple[int, int, str]], index: int) -> int:
    """The last line of heading `index`'s section: before the next heading of its level or
    above (or the end), less the blank lines that end it."""
    number, level, _ = headings[index]
    end = len(lines)
    for later, later_level, _ in headings[index + 1 :]:
        if later_level <= level:
            end = later - 1
            break
    while end > number and not lines[end - 1].strip():
        end -= 1
    return end
