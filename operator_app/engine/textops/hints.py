"""The "closest line" hint of not-found messages: which line of the file looks most like the text
the model expected, so it can fix its anchor in one round trip. Bounded cost on large files."""

from __future__ import annotations

import difflib
import json

MAX_CANDIDATES = 2000  # lines compared in full after the cheap filter
MAX_LINE = 500


def closest_line(text: str, needle: str, *, max_lines: int = 200_000) -> tuple[int, str] | None:
    target = needle.strip().split("\n", 1)[0].strip()
    if not target:
        return None
    words = {w for w in target.replace("(", " ").replace(")", " ").split() if len(w) > 2}
    candidates: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n", max_lines)[:max_lines], start=1):
        stripped = line.strip()
        if not stripped or len(stripped) > MAX_LINE:
            continue
        if words and not any(w in stripped for w in words) and target[:4] not in stripped:
            continue
        candidates.append((number, line))
        if len(candidates) >= MAX_CANDIDATES:
            break
    best: tuple[float, int, str] | None = None
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    for number, line in candidates:
        matcher.set_seq1(line.strip())
        if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
            continue
        ratio = matcher.ratio()
        if ratio >= 0.5 and (best is None or ratio > best[0]):
            best = (ratio, number, line)
    return None if best is None else (best[1], best[2])


def closest_hint(text: str, needle: str) -> str:
    found = closest_line(text, needle)
    if found is None:
        return ""
    number, line = found
    shown = line.strip()
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    return f"; closest line {number}: {json.dumps(shown)}"
