"""The preview diff of a change: a unified diff between two texts with "\n" line breaks, as the
person sees it before saying yes and as fs.patch reads it. Pure: text in, text out."""

from __future__ import annotations

import difflib
import re

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


def unified_diff(
    old: str, new: str, label: str, *, created: bool = False, deleted: bool = False
) -> tuple[str, int, int]:
    """(diff text, lines added, lines removed) between two texts with "\n" line breaks. The file
    a change `created` has /dev/null as its old side, and one `deleted` as its new side, as
    `git diff` and `diff -u` write them (and as fs.patch reads them).

    Only the span of whole lines holding the changes (found with C-level comparisons) is split
    and diffed, so a few changed lines in a 2 MB file cost about one pass over the bytes.
    """
    if old == new:
        return "", 0, 0
    start, end_a, end_b = _changed_span(old, new)
    offset = old.count("\n", 0, start)
    a_mid, b_mid = split_keepends(old[start:end_a]), split_keepends(new[start:end_b])
    if max(len(a_mid), len(b_mid)) > _EXACT_DIFF_LIMIT:
        body = _coarse(a_mid, b_mid, offset)
    else:
        body = [
            _shift(line, offset)
            for line in list(difflib.unified_diff(a_mid, b_mid, n=_DIFF_CONTEXT, lineterm=""))[2:]
        ]
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
    return "\n".join(lines) + "\n", added, removed


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
