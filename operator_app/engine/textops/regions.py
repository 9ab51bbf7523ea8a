"""Regions: the lines between `<comment> OPERATOR_BEGIN <id>` and `<comment> OPERATOR_END <id>`
marker lines, in the file's comment style. Pure text operations: find, read, replace, empty and
insert regions, with every region error of the spec raised where it applies. Marker lines are
always kept; new markers take the anchor line's indentation. Texts use "\n" line breaks.

Marker lines in another comment style than the one in use (`// OPERATOR_BEGIN a` in a .py file)
are not regions, but every message that would otherwise say "no such region" says where they
are and which override reads them (`comment_line_prefix: //`), and fs.listRegions lists them
among its problems."""

from __future__ import annotations

import difflib
import json
import re

from msgspec import Struct

from ...protocol.comments import CommentStyle
from ...protocol.errors import ErrorCode, OperatorError
from .hints import closest_hint
from .textfile import join_lines, split_lines


class Region(Struct, frozen=True):
    marker_id: str
    begin_line: int
    end_line: int


class RegionScan(Struct, frozen=True):
    regions: tuple[Region, ...]
    problems: tuple[str, ...]


class _Marker(Struct, frozen=True):
    line: int  # 1-based
    kind: str  # BEGIN | END
    marker_id: str


def _marker_re(style: CommentStyle) -> re.Pattern[str]:
    if style.kind == "line":
        return re.compile(
            rf"^\s*{re.escape(style.line_prefix or '')}\s*OPERATOR_(BEGIN|END)\s+(\S+)\s*$"
        )
    return re.compile(
        rf"^\s*{re.escape(style.block_start or '')}\s*OPERATOR_(BEGIN|END)\s+(\S+?)\s*"
        rf"{re.escape(style.block_end or '')}\s*$"
    )


def _markers(lines: list[str], style: CommentStyle) -> list[_Marker]:
    pattern = _marker_re(style)
    found = []
    for number, line in enumerate(lines, start=1):
        if "OPERATOR_" not in line:
            continue
        match = pattern.match(line)
        if match:
            found.append(_Marker(number, match.group(1), match.group(2)))
    return found


# A comment opener or closer: punctuation only (no quotes: a string holding the word is no marker).
_COMMENT_MARK_RE = re.compile(r"[!#%&*+\-./:;<=>?@\[\]^|~{}()]{1,5}")
_FOREIGN_RE = re.compile(r"^\s*(\S*?)\s*OPERATOR_(BEGIN|END)\s+(\S+)\s*(\S*)\s*$")


class _Foreign(Struct, frozen=True):
    line: int
    marker_id: str
    text: str
    override: str  # the command fields that read it


def _foreign(lines: list[str], style: CommentStyle) -> list[_Foreign]:
    """Marker lines written in another comment style than `style`."""
    pattern = _marker_re(style)
    found = []
    for number, line in enumerate(lines, start=1):
        if "OPERATOR_" not in line or pattern.match(line):
            continue
        match = _FOREIGN_RE.match(line)
        if not match or not _COMMENT_MARK_RE.fullmatch(match.group(1)):
            continue
        opener, closer = match.group(1), match.group(4)
        if closer and not _COMMENT_MARK_RE.fullmatch(closer):
            continue
        override = (
            f"comment_block_start: {opener} and comment_block_end: {closer}"
            if closer
            else f"comment_line_prefix: {opener}"
        )
        found.append(_Foreign(number, match.group(3), line.strip(), override))
    return found


def _foreign_hint(
    lines: list[str], style: CommentStyle, marker_id: str | None = None
) -> str | None:
    """Where markers of another comment style are and how to read them (of `marker_id` if any)."""
    found = _foreign(lines, style)
    mine = [f for f in found if f.marker_id == marker_id] or found
    if not mine:
        return None
    first = mine[0]
    if marker_id is not None and first.marker_id == marker_id:
        what, it = f'region "{marker_id}" is marked', "it"
    else:
        what, it = "this file's markers are", "them"
    return (
        f"{what} in another comment style (line {first.line}: "
        f"{json.dumps(first.text)}); pass {first.override} to read {it}"
    )


def _example(style: CommentStyle) -> str:
    if style.kind == "line":
        return f"{style.line_prefix} OPERATOR_BEGIN <id>"
    return f"{style.block_start} OPERATOR_BEGIN <id> {style.block_end}"


def scan_regions(text: str, style: CommentStyle) -> RegionScan:
    lines = split_lines(text)
    markers = _markers(lines, style)
    regions: list[Region] = []
    problems: list[str] = []
    open_begin: _Marker | None = None
    counts: dict[tuple[str, str], int] = {}
    for marker in markers:
        counts[(marker.kind, marker.marker_id)] = counts.get((marker.kind, marker.marker_id), 0) + 1
    for (kind, marker_id), n in sorted(counts.items()):
        if n > 1:
            problems.append(f"OPERATOR_{kind} {marker_id} appears {n} times")
    for marker in markers:
        if marker.kind == "BEGIN":
            if open_begin is not None:
                problems.append(
                    f"OPERATOR_BEGIN {marker.marker_id} at line {marker.line} is inside "
                    f"region {open_begin.marker_id} (opened at line {open_begin.line})"
                )
            open_begin = marker
        elif open_begin is None:
            problems.append(
                f"OPERATOR_END {marker.marker_id} at line "
                f"{marker.line} has no OPERATOR_BEGIN before it"
            )
        elif open_begin.marker_id != marker.marker_id:
            problems.append(
                f"OPERATOR_END {marker.marker_id} at line {marker.line} closes "
                f"region {open_begin.marker_id} (opened at line {open_begin.line})"
            )
            open_begin = None
        else:
            regions.append(Region(marker.marker_id, open_begin.line, marker.line))
            open_begin = None
    if open_begin is not None:
        problems.append(
            f"OPERATOR_BEGIN {open_begin.marker_id} at line {open_begin.line} has no OPERATOR_END"
        )
    foreign = _foreign_hint(lines, style)
    if foreign:
        problems.append(f"marker lines were skipped: {foreign}")
    return RegionScan(tuple(regions), tuple(problems))


def _locate(lines: list[str], style: CommentStyle, marker_id: str, label: str) -> Region:
    """The region `marker_id` marks: one OPERATOR_BEGIN, one OPERATOR_END after it, and no
    other marker between them; otherwise the error that says which of these fails."""
    markers = _markers(lines, style)
    begins = [m for m in markers if m.kind == "BEGIN" and m.marker_id == marker_id]
    ends = [m for m in markers if m.kind == "END" and m.marker_id == marker_id]
    if not begins and not ends:
        raise _not_found(lines, style, markers, marker_id, label)
    begin, end = _one_pair(begins, ends, marker_id, label)
    inside = [m for m in markers if begin.line < m.line < end.line]
    if inside:
        other = inside[0]
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_MISMATCH,
            (
                f'region "{marker_id}" in {label} (lines {begin.line}-{end.line}) '
                f"contains OPERATOR_{other.kind} {other.marker_id} at line "
                f"{other.line}; regions must not nest or overlap"
            ),
        )
    return Region(marker_id, begin.line, end.line)


def _not_found(
    lines: list[str], style: CommentStyle, markers: list[_Marker], marker_id: str, label: str
) -> OperatorError:
    """ERR_REGION_MARKER_NOT_FOUND, with the regions the file has (and the closest name), or the
    markers of another comment style it holds when those are what the model meant."""
    ids = sorted({m.marker_id for m in markers})
    foreign = _foreign_hint(lines, style, marker_id)
    if foreign and (not ids or foreign.startswith("region")):
        return OperatorError(
            ErrorCode.ERR_REGION_MARKER_NOT_FOUND,
            (
                f'region "{marker_id}" not found in {label} with '
                f'markers like "{_example(style)}"; {foreign}'
            ),
        )
    if ids:
        close = difflib.get_close_matches(marker_id, ids, n=1)
        guess = f"did you mean {close[0]}? " if close else ""
        known = f"{guess}regions in this file: {', '.join(ids)}"
    else:
        known = f'this file has no regions (markers look like "{_example(style)}")'
    return OperatorError(
        ErrorCode.ERR_REGION_MARKER_NOT_FOUND,
        (f'region "{marker_id}" not found in {label}; {known}; use fs.listRegions to see them'),
    )


def _one_pair(
    begins: list[_Marker], ends: list[_Marker], marker_id: str, label: str
) -> tuple[_Marker, _Marker]:
    """The region's two markers, when it has one of each and in order."""
    if len(begins) > 1 or len(ends) > 1:
        where = ", ".join(f"OPERATOR_{m.kind} at line {m.line}" for m in begins + ends)
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_NOT_UNIQUE,
            (
                f'region "{marker_id}" is marked more than once in {label} '
                f"({where}); keep one OPERATOR_BEGIN and one OPERATOR_END"
            ),
        )
    if not begins or not ends:
        have = (begins or ends)[0]
        missing = "OPERATOR_END" if begins else "OPERATOR_BEGIN"
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_MISMATCH,
            (
                f'region "{marker_id}" in {label} has OPERATOR_{have.kind} at line '
                f"{have.line} but no {missing}; add the missing marker or remove the other"
            ),
        )
    begin, end = begins[0], ends[0]
    if end.line < begin.line:
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_ORDER,
            (
                f'region "{marker_id}" in {label} has OPERATOR_END at line {end.line} '
                f"before OPERATOR_BEGIN at line {begin.line}; swap the marker lines"
            ),
        )
    return begin, end


def locate_region(text: str, style: CommentStyle, marker_id: str, *, label: str) -> Region:
    return _locate(split_lines(text), style, marker_id, label)


def read_region(text: str, style: CommentStyle, marker_id: str, *, label: str) -> str:
    lines = split_lines(text)
    region = _locate(lines, style, marker_id, label)
    inner = lines[region.begin_line : region.end_line - 1]
    return join_lines(inner, True)


def _content_lines(content: str, style: CommentStyle, marker_id: str) -> list[str]:
    """The region's new lines. A marker line among them would break the file's regions: the
    region's own marker (a model sending the markers along with the content) would mark it twice,
    another one would nest a region in this one; both are refused before anything is written."""
    lines = split_lines(content.replace("\r\n", "\n"))
    for number, marker in ((m.line, m) for m in _markers(lines, style)):
        shown = json.dumps(lines[number - 1].strip())
        if marker.marker_id == marker_id:
            raise OperatorError(
                ErrorCode.ERR_REGION_MARKER_MISMATCH,
                (
                    f"content_b64 line {number} is {shown}, a marker line of "
                    f'region "{marker_id}" itself; send only the lines that go '
                    "between the markers (the marker lines stay as they are)"
                ),
            )
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_MISMATCH,
            (
                f"content_b64 line {number} is {shown}, a marker of region "
                f'"{marker.marker_id}"; regions must not nest, so the content of '
                f'region "{marker_id}" cannot hold marker lines; remove them and resend'
            ),
        )
    return lines


def replace_region(
    text: str, style: CommentStyle, marker_id: str, content: str, *, label: str
) -> str:
    lines = split_lines(text)
    region = _locate(lines, style, marker_id, label)
    new = (
        lines[: region.begin_line]
        + _content_lines(content, style, marker_id)
        + lines[region.end_line - 1 :]
    )
    return join_lines(new, text.endswith("\n"))


def delete_region(text: str, style: CommentStyle, marker_id: str, *, label: str) -> str:
    return replace_region(text, style, marker_id, "", label=label)


def _marker_line(style: CommentStyle, kind: str, marker_id: str, indent: str) -> str:
    if style.kind == "line":
        return f"{indent}{style.line_prefix} OPERATOR_{kind} {marker_id}"
    return f"{indent}{style.block_start} OPERATOR_{kind} {marker_id} {style.block_end}"


def insert_region(
    text: str,
    style: CommentStyle,
    marker_id: str,
    anchor: str,
    content: str,
    *,
    position: str = "after",
    occurrence: int = 1,
    label: str,
) -> str:
    lines = split_lines(text)
    _check_new_name(lines, style, marker_id, label)
    pos = _anchor_at(text, anchor, occurrence, label)
    anchor_index = text.count("\n", 0, pos)  # 0-based line of the anchor's first character
    anchor_line = lines[anchor_index]
    indent = anchor_line[: len(anchor_line) - len(anchor_line.lstrip(" \t"))]
    at = anchor_index + 1 if position == "after" else anchor_index
    if position == "after" and "\n" in anchor:
        # after the line where a multi-line anchor ends
        at = text.count("\n", 0, pos + len(anchor)) + 1
    _check_outside_regions(text, style, at, f"{position} line {anchor_index + 1}", marker_id, label)
    block = [
        _marker_line(style, "BEGIN", marker_id, indent),
        *_content_lines(content, style, marker_id),
        _marker_line(style, "END", marker_id, indent),
    ]
    new = lines[:at] + block + lines[at:]
    return join_lines(new, text.endswith("\n") or not text)


def _check_new_name(lines: list[str], style: CommentStyle, marker_id: str, label: str) -> None:
    """ERR_REGION_MARKER_ALREADY_EXISTS when a marker of the file, in its style or another one,
    has the new region's name."""
    existing = [m for m in _markers(lines, style) if m.marker_id == marker_id]
    if existing:
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_ALREADY_EXISTS,
            (
                f'region "{marker_id}" already exists in {label} '
                f"(OPERATOR_{existing[0].kind} at line {existing[0].line}); "
                "pick a new marker_id, or change it with fs.replaceRegion"
            ),
        )
    elsewhere = [f for f in _foreign(lines, style) if f.marker_id == marker_id]
    if elsewhere:  # a second region of that name, in another style, would make both ambiguous
        raise OperatorError(
            ErrorCode.ERR_REGION_MARKER_ALREADY_EXISTS,
            (
                f'region "{marker_id}" already exists in {label} in another comment style '
                f"(line {elsewhere[0].line}: {json.dumps(elsewhere[0].text)}); pick a new "
                f"marker_id, or change it with fs.replaceRegion and {elsewhere[0].override}"
            ),
        )


def _anchor_at(text: str, anchor: str, occurrence: int, label: str) -> int:
    """Where the anchor's `occurrence` (counted without overlaps) begins in `text`."""
    seen, pos, start = 0, -1, 0
    while seen < occurrence:
        pos = text.find(anchor, start)
        if pos < 0:
            break
        seen += 1
        start = pos + len(anchor)
    if seen == 0:
        raise OperatorError(
            ErrorCode.ERR_ANCHOR_NOT_FOUND,
            (f"anchor {json.dumps(anchor)} not found in {label}{closest_hint(text, anchor)}"),
        )
    if seen < occurrence:
        raise OperatorError(
            ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE,
            (
                f"anchor {json.dumps(anchor)} occurs {seen} time{'s' if seen != 1 else ''} "
                f"in {label}; occurrence {occurrence} is out of range"
            ),
        )
    return pos


def _check_outside_regions(
    text: str, style: CommentStyle, at: int, where: str, marker_id: str, label: str
) -> None:
    """ERR_REGION_MARKER_MISMATCH when the new block, after the first `at` lines, would stand
    between a region's two marker lines: it would nest there and leave the outer region
    unusable."""
    for region in scan_regions(text, style).regions:
        if region.begin_line <= at < region.end_line:
            raise OperatorError(
                ErrorCode.ERR_REGION_MARKER_MISMATCH,
                (
                    f'region "{marker_id}" would go {where} of '
                    f'{label}, inside region "{region.marker_id}" (lines '
                    f"{region.begin_line}-{region.end_line}); regions must not nest; choose "
                    f"an anchor outside lines {region.begin_line}-{region.end_line}, or "
                    f'change region "{region.marker_id}" with fs.replaceRegion'
                ),
            )
