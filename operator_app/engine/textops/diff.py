"""The preview diff of a change: a unified diff between two texts with "\n" line breaks, as the
person sees it before saying yes and as fs.patch reads it, and the exact line moves the same
comparison found (protocol/outcomes.py `Change`: the change's record carries them, and the
line-number rule reads them there). Pure: text in, text out."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Sequence

from msgspec import Struct

from ...protocol.outcomes import Change, Moves
from .textfile import split_keepends

_DIFF_CONTEXT = 3
# lines per side beyond which the preview falls back to remove-all/add-all
_EXACT_DIFF_LIMIT = 20_000
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, compared 64 KiB at a time by C-level slice equality."""
    limit = min(len(a), len(b))
    pos = 0
    while pos < limit:
        stop = min(pos + 65536, limit)
        if a[pos:stop] != b[pos:stop]:
            lo, hi = pos, stop
            while hi - lo > 32:
                mid = (lo + hi) // 2
                if a[lo:mid] == b[lo:mid]:
                    lo = mid
                else:
                    hi = mid
            while lo < hi and a[lo] == b[lo]:
                lo += 1
            return lo
        pos = stop
    return limit


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix, at most `limit`, compared 64 KiB at a time from the end."""
    la, lb = len(a), len(b)
    pos = 0
    while pos < limit:
        stop = min(pos + 65536, limit)
        if a[la - stop : la - pos] != b[lb - stop : lb - pos]:
            lo, hi = pos, stop  # a[la-lo:] == b[lb-lo:]; the difference lies within (lo, hi]
            while hi - lo > 32:
                mid = (lo + hi) // 2
                if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
                    lo = mid
                else:
                    hi = mid
            while lo < hi and a[la - lo - 1] == b[lb - lo - 1]:
                lo += 1
            return lo
        pos = stop
    return limit


def _changed_span(a: str, b: str) -> tuple[int, int, int]:
    """(start, end in a, end in b): whole lines that hold every difference, plus context."""
    prefix = _common_prefix(a, b)
    suffix = _common_suffix(a, b, min(len(a), len(b)) - prefix)
    start = a.rfind("\n", 0, prefix) + 1
    end_a = len(a) - suffix
    if end_a < len(a) and (end_a == 0 or a[end_a - 1] != "\n"):
        newline = a.find("\n", end_a)
        end_a = len(a) if newline < 0 else newline + 1
    for _ in range(_DIFF_CONTEXT):  # context lines come from the common parts, same in both
        if start > 0:
            start = a.rfind("\n", 0, start - 1) + 1
        if end_a < len(a):
            newline = a.find("\n", end_a)
            end_a = len(a) if newline < 0 else newline + 1
    end_b = len(b) - (len(a) - end_a)
    return start, end_a, end_b


class TextDiff(Struct, frozen=True):
    text: str  # the unified diff ("" when the texts are equal)
    added: int  # lines
    removed: int
    moves: Moves  # the changes it shows, exactly: every replaced, removed or inserted run of lines


def unified_diff(
    old: str, new: str, label: str, *, created: bool = False, deleted: bool = False
) -> tuple[str, int, int]:
    """(diff text, lines added, lines removed): `text_diff` without the moves."""
    diff = text_diff(old, new, label, created=created, deleted=deleted)
    return diff.text, diff.added, diff.removed


def text_diff(
    old: str, new: str, label: str, *, created: bool = False, deleted: bool = False
) -> TextDiff:
    """The diff between two texts with "\n" line breaks. The file a change `created` has
    /dev/null as its old side, and one `deleted` as its new side, as `git diff` and `diff -u`
    write them (and as fs.patch reads them).

    Only the span of whole lines holding the changes (found with C-level comparisons) is split
    and diffed, so a few changed lines in a 2 MB file cost about one pass over the bytes.
    """
    if old == new:
        return TextDiff("", 0, 0, ())
    start, end_a, end_b = _changed_span(old, new)
    offset = old.count("\n", 0, start)
    a_mid, b_mid = split_keepends(old[start:end_a]), split_keepends(new[start:end_b])
    if max(len(a_mid), len(b_mid)) > _EXACT_DIFF_LIMIT:
        body = _coarse(a_mid, b_mid, offset)
        moves: Moves = (Change(offset, offset + len(a_mid), offset, offset + len(b_mid)),)
    else:
        matcher = difflib.SequenceMatcher(None, a_mid, b_mid)
        moves = tuple(
            Change(i1 + offset, i2 + offset, j1 + offset, j2 + offset)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"
        )
        body = list(_hunks(matcher.get_grouped_opcodes(_DIFF_CONTEXT), a_mid, b_mid, offset))
    lines = [
        "--- /dev/null" if created else f"--- a/{label}",
        "+++ /dev/null" if deleted else f"+++ b/{label}",
    ]
    added = removed = 0
    for line in body:
        line = line.rstrip("\n")
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
        lines.append(line)
    return TextDiff("\n".join(lines) + "\n", added, removed, moves)


Opcode = tuple[str, int, int, int, int]


def _hunks(
    groups: Iterable[list[Opcode]], a: Sequence[str], b: Sequence[str], offset: int
) -> Iterator[str]:
    """The hunks of a unified diff, as `difflib.unified_diff` writes them from the same grouped
    opcodes, each header moved down by `offset` lines: one comparison gives both the diff and the
    moves."""
    for group in groups:
        first, last = group[0], group[-1]
        yield _shift(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@", offset)
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib writes it ("5", "5,3", "4,0")."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _shift(line: str, offset: int) -> str:
    match = _HUNK_RE.match(line)
    if not match or not offset:
        return line
    a_start, a_len, b_start, b_len = match.groups()
    a_len = "1" if a_len is None else a_len
    b_len = "1" if b_len is None else b_len
    return f"@@ -{int(a_start) + offset},{a_len} +{int(b_start) + offset},{b_len} @@"


def _coarse(a: list[str], b: list[str], offset: int) -> list[str]:
    header = (
        f"@@ -{offset + 1 if a else offset},{len(a)} +{offset + 1 if b else offset},{len(b)} @@"
    )
    return [header] + ["-" + line for line in a] + ["+" + line for line in b]
