"""The blocks of a document that String's `#id` names (pure): the text between `<!-- #id -->` and
`<!-- /id -->`, an OPERATOR_BEGIN id / OPERATOR_END id region (in the file's comment style), and
a heading's section by its slug (`## Decisions` is `#decisions`, up to the next heading of the
same or a higher level, blank lines before that heading left out): Markdown's headings in
Markdown and plain text, reStructuredText's titles in .rst files, AsciiDoc's in .adoc files
(headings/), never a line of a code sample. Where two blocks share an id, the marked one wins:
comment block, then region, then heading."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from msgspec import Struct

from ...protocol.comments import CommentStyle, language_for_path
from .headings.asciidoc import asciidoc_headings
from .headings.markdown import markdown_headings
from .headings.rest import rest_headings
from .regions import scan_regions

Kind = Literal["comment", "region", "heading"]
Syntax = Literal["markdown", "rest", "asciidoc"]  # how a document writes its headings
_HEADINGS = {"markdown": markdown_headings, "rest": rest_headings, "asciidoc": asciidoc_headings}
_SYNTAX_OF_SUFFIX: dict[str, Syntax] = {
    ".rst": "rest",
    ".rest": "rest",
    ".adoc": "asciidoc",
    ".asciidoc": "asciidoc",
    ".asc": "asciidoc",
}
_COMMENT_OPEN_RE = re.compile(r"\s*<!--\s*#([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*-->\s*")
_COMMENT_CLOSE_RE = re.compile(r"\s*<!--\s*/([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*-->\s*")
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


def heading_syntax(path: str) -> Syntax | None:
    """How the document at `path` writes its headings: reST and AsciiDoc by their extension,
    Markdown for Markdown and plain text; None for code, where a `#` line is a comment."""
    name = path.rsplit("/", 1)[-1].lower()
    suffix = name[name.rfind(".") :] if "." in name.lstrip(".") else ""
    if suffix in _SYNTAX_OF_SUFFIX:
        return _SYNTAX_OF_SUFFIX[suffix]
    return "markdown" if language_for_path(path) in (None, "markdown") else None


def find_blocks(
    lines: list[str], style: CommentStyle | None, *, headings: Syntax | None = "markdown"
) -> list[DocBlock]:
    """Every block of the document, in the order they start; an id taken by a marked block is
    not given to a heading. `headings`: how the document writes its headings (None: it has none,
    as code, where "# ..." lines are comments)."""
    found = _comment_blocks(lines) + _region_blocks(lines, style)
    if headings is not None:
        found += _heading_blocks(lines, headings)
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


def _heading_blocks(lines: list[str], syntax: Syntax) -> list[DocBlock]:
    headings = [(line, level, slug(title)) for line, level, title in _HEADINGS[syntax](lines)]
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
