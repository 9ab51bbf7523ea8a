"""The "closest line" hint of not-found messages: which line of the file looks most like the text
the model expected, so it can fix its anchor in one round trip (`def mian(` -> line 12,
`def main(argv: list[str]) -> int:`).

Bounded work whatever the input: only the first MAX_TARGET characters of the needle's first line
count; candidate lines are found with C-level searches for at most MAX_PIECES pieces of it (its
words and their three-letter pieces, so a typo inside a word still leaves pieces that match),
at most MAX_HITS occurrences in all, rarest pieces first; at most MAX_CANDIDATES lines (and
COMPARE_BUDGET characters) are then compared, best candidates first, each by its best-matching
stretch (not the whole line: a short anchor is a small part of a long line). `work` counts the
characters compared, for tests that prove the bound.
"""

from __future__ import annotations

import difflib
import json
import re

from msgspec import Struct

MAX_TARGET = 120  # characters of the needle compared (what the hint shows of a line, too)
MAX_PIECES = 20  # distinct substrings searched for
MAX_HITS = 20_000  # occurrences of them looked at, in all
MAX_CANDIDATES = 60  # lines compared with SequenceMatcher, at most
MAX_WINDOW = 400  # characters of a long line compared, around where its pieces matched
COMPARE_BUDGET = 16_000  # characters of candidate lines compared, in all
MIN_RATIO = 0.6
_WORD_RE = re.compile(r"\w{3,}")


class Work(Struct):
    """Characters handed to the comparisons (for tests; not a timing)."""

    compared: int = 0


work = Work()


def _pieces(target: str) -> list[str]:
    words = list(dict.fromkeys(_WORD_RE.findall(target)))
    words.sort(key=len, reverse=True)
    pieces = list(words)
    for word in words:
        pieces.extend(word[k : k + 3] for k in range(len(word) - 2))
    if not pieces and len(target) >= 3:
        pieces.append(target[:3])
    return list(dict.fromkeys(pieces))[:MAX_PIECES]


def _candidates(text: str, target: str) -> list[tuple[int, int]]:
    """(line start offset, first matching offset in that line) of the lines that most of the
    pieces hit (by length), best first."""
    pieces = _pieces(target)
    hits: list[tuple[int, int]] = []  # (offset, piece index)
    for occurrences, index in sorted(
        (text.count(piece), index) for index, piece in enumerate(pieces)
    ):
        if not occurrences:
            continue
        pos = text.find(pieces[index])
        while pos >= 0 and len(hits) < MAX_HITS:
            hits.append((pos, index))
            pos = text.find(pieces[index], pos + 1)
        if len(hits) >= MAX_HITS:
            break
    # Offsets to lines in one sorted pass: each rfind stays within the gap since the last hit.
    lines: dict[int, tuple[set[int], int]] = {}  # line start -> (pieces seen, first hit)
    line_start, previous = 0, 0
    for pos, index in sorted(hits):
        newline = text.rfind("\n", previous, pos)
        if newline >= 0:
            line_start = newline + 1
        previous = pos
        lines.setdefault(line_start, (set(), pos))[0].add(index)

    def score(item: tuple[int, tuple[set[int], int]]) -> tuple[int, int]:
        return -sum(len(pieces[k]) for k in item[1][0]), item[0]

    return [
        (start, first) for start, (_, first) in sorted(lines.items(), key=score)[:MAX_CANDIDATES]
    ]


def _stretch_ratio(line: str, target: str, matcher: difflib.SequenceMatcher[str]) -> float:
    """How alike `target` is to the stretch of `line` that matches it best: 2M / (len(target) +
    length of the stretch spanned by the matching blocks)."""
    matcher.set_seq1(line)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return 0.0
    matched = sum(b.size for b in blocks)
    span = blocks[-1].a + blocks[-1].size - blocks[0].a
    # A stretch is at least as long as the target's own matched span, else a missing tail would
    # count for nothing.
    span = max(span, blocks[-1].b + blocks[-1].size - blocks[0].b)
    return 2 * matched / (len(target) + span)


def closest_line(text: str, needle: str) -> tuple[int, str] | None:
    """(1-based number, line) of the line most like the needle's first line, or None."""
    target = next((line.strip() for line in needle.split("\n") if line.strip()), "")[:MAX_TARGET]
    if not target:
        return None
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    best: tuple[float, int, int] | None = None  # ratio, then shorter line, then earlier line
    best_start = 0
    budget = COMPARE_BUDGET
    for start, hit in _candidates(text, target):
        if budget <= 0:
            break
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if end - start > MAX_WINDOW:  # a long line: the part around where it matched
            lo = max(start, hit - MAX_WINDOW // 2)
            line = text[lo : min(end, lo + MAX_WINDOW)]
        stripped = line.strip()
        work.compared += len(stripped)
        budget -= max(len(stripped), 1)
        ratio = _stretch_ratio(stripped, target, matcher)
        key = (ratio, start - end, -start)
        if ratio >= MIN_RATIO and (best is None or key > best):
            best, best_start = key, start
    if best is None:
        return None
    end = text.find("\n", best_start)
    return text.count("\n", 0, best_start) + 1, text[best_start : len(text) if end < 0 else end]


def closest_hint(text: str, needle: str) -> str:
    found = closest_line(text, needle)
    if found is None:
        return ""
    number, line = found
    shown = line.strip()
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    return f"; closest line {number}: {json.dumps(shown)}"
