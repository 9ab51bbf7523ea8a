"""Strict application of parsed unified-diff hunks to a file's lines (the half of fs.patch that
knows nothing about diff syntax). Pure: lines in, lines out, or an OperatorError.

Every hunk applies at exactly the old line its header states; its context and removed lines must
equal the file's lines; "\\ No newline at end of file" on the old side must agree with the file,
and on the new side decides how the result ends. Hunks come in file order without overlap.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence

from msgspec import Struct

from ...protocol.errors import ErrorCode, OperatorError
from .textfile import lines_and_final_newline

MAX_SUGGESTIONS = 3
_QUOTE_LIMIT = 160
_CONTEXT_RADIUS = 3
_RETRY = "read the lines again with fs.readSlice and resend the patch"


class Hunk(Struct, frozen=True, kw_only=True):
    number: int  # 1-based, for messages
    # as the header states: the first old line, or the line after which to insert when old is empty
    old_start: int
    new_start: int
    old: tuple[str, ...]  # context and removed lines, in order
    new: tuple[str, ...]  # context and added lines, in order
    old_no_newline: bool = False
    new_no_newline: bool = False

    @property
    def header(self) -> str:
        return _header(self.old_start, len(self.old), self.new_start, len(self.new))

    @property
    def index(self) -> int:
        """0-based index of the first file line the hunk covers (or inserts before)."""
        return self.old_start - 1 if self.old else self.old_start


def _header(old_start: int, old_len: int, new_start: int, new_len: int) -> str:
    return f"@@ -{old_start},{old_len} +{new_start},{new_len} @@"


def quote(line: str) -> str:
    """One-line, unambiguous rendering of a line for a message."""
    if len(line) > _QUOTE_LIMIT:
        line = line[: _QUOTE_LIMIT - 10] + "..."
    text = json.dumps(line, ensure_ascii=False)
    # json leaves these raw with ensure_ascii=False: some renderers break lines on the first three,
    # and a byte order mark is invisible (a line starting with one looked like the line without).
    return (
        text.replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
        .replace("\x85", "\\u0085")
        .replace("\ufeff", "\\ufeff")
    )


def _invalid(message: str) -> OperatorError:
    return OperatorError(ErrorCode.ERR_INVALID_PATCH, message)


def _mismatch(message: str, context: str | None = None) -> OperatorError:
    return OperatorError(ErrorCode.ERR_PATCH_MISMATCH, message, context)


def lines_word(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def check_order(hunks: Sequence[Hunk]) -> None:
    """Header-only checks, before any content is compared: valid starts, file order, no overlap."""
    previous: Hunk | None = None
    cursor = 0
    for hunk in hunks:
        if not hunk.old and not hunk.new:
            raise _invalid(f"hunk {hunk.number} ({hunk.header}) has no lines; remove it")
        if hunk.old and hunk.old_start == 0:
            raise _invalid(
                f"hunk {hunk.number} ({hunk.header}) starts at old "
                "line 0 but has old lines; lines are numbered from 1"
            )
        start = hunk.index
        if previous is not None and (
            start < cursor or (start == cursor and previous.new_no_newline)
        ):
            raise _invalid(
                f"hunk {hunk.number} ({hunk.header}) starts before hunk "
                f"{previous.number} ({previous.header}) ends; put the hunks "
                "in file order without overlap, or merge them into one hunk"
            )
        previous = hunk
        cursor = start + len(hunk.old)


def find_matches(
    lines: Sequence[str], old: Sequence[str], limit: int = MAX_SUGGESTIONS + 1
) -> list[int]:
    """0-based starts where `old` occurs in `lines` (overlapping places too), at most `limit`.

    The lines are joined once and the hunk searched as one string, by str.find (linear in the
    worst case: CPython switches to the two-way algorithm for long needles), so a 5,000-line hunk
    of context on a repetitive 8 MB file costs a few passes over the bytes, not n * len(old).
    Lines never hold "\n", so a match that starts right after one is a match of whole lines."""
    if not old or len(old) > len(lines):
        return []
    joined = "\n" + "\n".join(lines) + "\n"
    needle = "\n" + "\n".join(old) + "\n"
    found: list[int] = []
    line, counted_to = 0, 0
    pos = joined.find(needle)
    while pos >= 0 and len(found) < limit:
        line += joined.count("\n", counted_to, pos)  # the "\n" at pos ends line `line - 1`
        counted_to = pos
        found.append(line)
        pos = joined.find(needle, pos + 1)
    return found


def _elsewhere(lines: Sequence[str], hunk: Hunk) -> str:
    places = find_matches(lines, hunk.old)
    if not places:
        return ""
    shift = hunk.new_start - hunk.old_start
    floor = 1 if hunk.new else 0
    headers = [
        _header(p + 1, len(hunk.old), max(floor, p + 1 + shift), len(hunk.new))
        for p in places[:MAX_SUGGESTIONS]
    ]
    if len(places) == 1:
        return f"; the hunk's lines match at line {places[0] + 1}: use {headers[0]}"
    starts = ", ".join(str(p + 1) for p in places[:MAX_SUGGESTIONS])
    more = " and more places" if len(places) > MAX_SUGGESTIONS else ""
    return f"; the hunk's lines match at lines {starts}{more}: use {' or '.join(headers)}"


def _context(lines: Sequence[str], hunk: Hunk, at: int, label: str) -> str:
    """Expected (hunk old side) and found (file) lines around hunk offset `at`, by file line."""
    start = hunk.index
    lo = max(0, at - _CONTEXT_RADIUS)
    hi = min(len(hunk.old), at + _CONTEXT_RADIUS + 1)
    width = len(str(start + hi))

    def row(offset: int, text: str) -> str:
        mark = ">" if offset == at else " "
        return f"{mark} {start + offset + 1:>{width}} | {text}"

    expected = [row(k, hunk.old[k]) for k in range(lo, hi)]
    found = [row(k, lines[start + k]) for k in range(lo, hi) if start + k < len(lines)]
    if start + hi > len(lines):
        found.append(f"  (end of {label}: it has {lines_word(len(lines))})")
    return "\n".join(
        [
            f"hunk {hunk.number} {hunk.header} expects (old side):",
            *expected,
            f"{label} has:",
            *found,
        ]
    )


def _check_content(lines: Sequence[str], hunk: Hunk, label: str) -> None:
    start = hunk.index
    total = len(lines)
    if (hunk.old and start >= total) or start > total:
        tail = [f"  {n + 1} | {lines[n]}" for n in range(max(0, total - _CONTEXT_RADIUS), total)]
        raise _mismatch(
            f"hunk {hunk.number} ({hunk.header}) starts at line {hunk.old_start} but "
            f"{label} has only {lines_word(total)}{_elsewhere(lines, hunk)}; {_RETRY}",
            "\n".join([f"the last lines of {label}:", *tail]) if tail else f"{label} is empty",
        )
    # Slice equality runs in C; the per-line loop only runs to locate a mismatch.
    if list(lines[start : start + len(hunk.old)]) == list(hunk.old):
        return
    for offset, expected in enumerate(hunk.old):
        number = start + offset + 1
        if start + offset >= total:
            raise _mismatch(
                f"hunk {hunk.number} ({hunk.header}) runs past the end of {label} "
                f"at line {number}: expected {quote(expected)}, but the file has "
                f"only {lines_word(total)}{_elsewhere(lines, hunk)}; {_RETRY}",
                _context(lines, hunk, offset, label),
            )
        actual = lines[start + offset]
        if actual != expected:
            if expected.rstrip("\r") == actual.rstrip("\r"):
                spaces = (
                    " (they differ only in a carriage return at the end: "
                    "the patch and the file disagree on CRLF line breaks)"
                )
            elif expected.split() == actual.split():
                spaces = " (they differ only in whitespace)"
            else:
                spaces = ""
            raise _mismatch(
                f"hunk {hunk.number} ({hunk.header}) does not match {label} "
                f"at line {number}: expected {quote(expected)}, found "
                f"{quote(actual)}{spaces}{_elsewhere(lines, hunk)}; {_RETRY}",
                _context(lines, hunk, offset, label),
            )


def _check_final_newline(lines: Sequence[str], final_newline: bool, hunk: Hunk, label: str) -> None:
    total = len(lines)
    at_end = hunk.index + len(hunk.old) == total
    marker = '"\\ No newline at end of file"'
    if hunk.old_no_newline and not (at_end and hunk.old):
        raise _mismatch(
            f"hunk {hunk.number} ({hunk.header}) marks its last old line "
            f"(line {hunk.index + len(hunk.old)}) with {marker}, but {label} "
            f"has {lines_word(total)}, so that is not its last line; {_RETRY}"
        )
    if at_end and hunk.old and hunk.old_no_newline == final_newline:
        if final_newline:
            detail = f"says {label} has no newline at its end ({marker}), but it has one"
            fix = "remove that marker after the last old line"
        else:
            detail = (
                f"treats line {total} as ending with a newline, "
                f"but {label} has no newline at its end"
            )
            fix = f"put {marker} right after that line in the hunk"
        raise _mismatch(f"hunk {hunk.number} ({hunk.header}) {detail}; {fix} and resend the patch")
    if at_end and not hunk.old and total and not final_newline:
        raise _mismatch(
            f"hunk {hunk.number} ({hunk.header}) appends after line {total}, the "
            f"last line of {label}, which has no newline at its end; include that "
            f"line in the hunk (as - and + lines, the - side followed by {marker})"
        )
    if hunk.new_no_newline and not at_end:
        raise _mismatch(
            f"hunk {hunk.number} ({hunk.header}) ends its new lines with {marker}, but it "
            f"stops at line {hunk.index + len(hunk.old)} of the {lines_word(total)} in "
            f"{label}; that marker belongs only to a hunk that reaches the end of the file"
        )


def _skip_lines(text: str, offset: int, count: int) -> int:
    """The offset just past the `count`-th "\n" at or after `offset`, or -1 when the text has
    fewer. Newlines are counted by str.count over shrinking spans (C speed), so walking to line
    25,000 of a 2 MB text costs a few dozen calls, not a split of the whole text."""
    end = len(text)
    while count:
        span_end = min(end, offset + 65536)
        found = text.count("\n", offset, span_end)
        if found < count:
            if span_end == end:
                return -1
            count -= found
            offset = span_end
            continue
        while span_end - offset > 512:  # the count-th newline lies in [offset, span_end)
            middle = (offset + span_end) // 2
            found = text.count("\n", offset, middle)
            if found >= count:
                span_end = middle
            else:
                count -= found
                offset = middle
        for _ in range(count):
            offset = text.index("\n", offset) + 1
        return offset
    return offset


class LineIndex:
    """Where lines of one text start, found on demand and remembered, so that applying a patch
    and then checking it against the same text count the text's newlines once, not twice."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._known: list[tuple[int, int]] = [(0, 0)]  # (line index, offset), sorted

    def offset(self, line: int) -> int:
        """The offset where line `line` (0-based) starts, or -1 past the text's last newline."""
        at = bisect.bisect_right(self._known, (line, len(self.text) + 1)) - 1
        known_line, known_offset = self._known[at]
        found = _skip_lines(self.text, known_offset, line - known_line)
        if found >= 0 and known_line != line:
            self._known.insert(at + 1, (line, found))
        return found


_MISMATCH = object()  # _in_place: a hunk's old lines differ from the text where it states


def _in_place(index: LineIndex, hunks: Sequence[Hunk], build: bool) -> str | object | None:
    """The patched text ("" when not `build`), _MISMATCH, or None when the hunks reach the end
    of the file or carry a no-newline marker, which only the line-by-line path decides."""
    text = index.text
    pieces: list[str] = []
    offset = 0
    for hunk in hunks:
        if hunk.old_no_newline or hunk.new_no_newline:
            return None
        start = hunk.index
        start_offset = index.offset(start)
        end_offset = index.offset(start + len(hunk.old)) if start_offset >= 0 else -1
        # -1: the hunk runs to a last line without "\n", or past the end; len(text): it covers
        # the last line. Either way the final-newline rules are involved: not for this path.
        if end_offset < 0 or end_offset >= len(text):
            return None
        if hunk.old and text[start_offset:end_offset] != "\n".join(hunk.old) + "\n":
            return _MISMATCH
        if build:
            pieces.append(text[offset:start_offset])
            if hunk.new:
                pieces.append("\n".join(hunk.new) + "\n")
        offset = end_offset
    if not build:
        return ""
    pieces.append(text[offset:])
    return "".join(pieces)


def apply_in_place(text: str, hunks: Sequence[Hunk], index: LineIndex | None = None) -> str | None:
    """The patched text, computed without splitting the whole file into lines, when every hunk
    matches exactly at its stated line and stops before the file's last line (so no rule about
    the final newline is involved). None otherwise: then `apply_hunks` decides, and explains.
    `check_order` must have passed. The result is what `apply_hunks` would give."""
    result = _in_place(index or LineIndex(text), hunks, True)
    return result if isinstance(result, str) else None


def reverse(hunks: Sequence[Hunk]) -> list[Hunk]:
    """The hunks that undo `hunks`: what a patch looks like from the patched file."""
    return [
        Hunk(
            number=h.number,
            old_start=h.new_start,
            new_start=h.old_start,
            old=h.new,
            new=h.old,
            old_no_newline=h.new_no_newline,
            new_no_newline=h.old_no_newline,
        )
        for h in hunks
    ]


def applies(text: str, hunks: Sequence[Hunk], index: LineIndex | None = None) -> bool:
    """Whether every hunk matches `text` strictly (order, content, final-newline claims)."""
    try:
        check_order(hunks)
        quick = _in_place(index or LineIndex(text), hunks, False)
        if quick is not None:
            return quick is not _MISMATCH  # the line-by-line path would compare the same lines
        apply_hunks(*lines_and_final_newline(text), hunks, label="")
    except OperatorError:
        return False
    return True


def apply_hunks(
    lines: Sequence[str], final_newline: bool, hunks: Sequence[Hunk], *, label: str
) -> tuple[list[str], bool]:
    """The new lines and whether the result ends with a newline; raises before changing anything."""
    check_order(hunks)
    total = len(lines)
    out: list[str] = []
    cursor = 0
    ends_with_newline = final_newline
    for hunk in hunks:
        _check_content(lines, hunk, label)
        _check_final_newline(lines, final_newline, hunk, label)
        start = hunk.index
        out.extend(lines[cursor:start])
        out.extend(hunk.new)
        cursor = start + len(hunk.old)
        if cursor == total:
            # With no new lines here, what now ends the file was an inner line: it has a newline.
            ends_with_newline = not hunk.new_no_newline if hunk.new else True
    out.extend(lines[cursor:])
    return out, ends_with_newline
