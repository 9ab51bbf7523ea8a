"""A write before it happens: the bytes it will leave, the diff the person approves, and the hash
of what was read, which the commit checks again so a file changed behind our back is never
clobbered. Planning touches nothing on disk."""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

from .workspace import Target

PlanKind = Literal["create", "modify", "delete", "noop"]
_DIFF_CONTEXT = 3
_EXACT_DIFF_LIMIT = 20_000  # lines per side beyond which the preview falls back to remove-all/add-all
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class WritePlan:
    action: str
    command_id: str
    target: Target
    kind: PlanKind
    base_hash: str | None  # of the bytes the plan was made from; None when nothing existed
    new_bytes: bytes | None  # None for a delete
    diff: str
    added: int
    removed: int
    summary: str  # the ok result's one line, once committed
    is_dir: bool = False
    file_count: int = 0  # for deleting a folder
    notes: tuple[str, ...] = field(default_factory=tuple)  # shown in the consent dialog

    def counts(self) -> dict[str, int]:
        return {"added": self.added, "removed": self.removed}


def split_keepends(text: str) -> list[str]:
    """Lines with their "\n" (split on "\n" only; see design.md on str.splitlines)."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def unified_diff(old: str, new: str, label: str) -> tuple[str, int, int]:
    """(diff text, lines added, lines removed) between two texts with "\n" line breaks.

    The unchanged head and tail are cut off first, so a few changed lines in a 2 MB file cost
    two linear scans, not a SequenceMatcher over the whole file.
    """
    a, b = split_keepends(old), split_keepends(new)
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    if head == len(a) == len(b):
        return "", 0, 0
    start = max(0, head - _DIFF_CONTEXT)
    a_mid = a[start : len(a) - max(0, tail - _DIFF_CONTEXT)]
    b_mid = b[start : len(b) - max(0, tail - _DIFF_CONTEXT)]
    if max(len(a_mid), len(b_mid)) > _EXACT_DIFF_LIMIT:
        body = _coarse(a_mid, b_mid, start)
    else:
        body = list(difflib.unified_diff(a_mid, b_mid, n=_DIFF_CONTEXT, lineterm=""))[2:]
        body = [_shift(line, start) for line in body]
    lines = [f"--- a/{label}", f"+++ b/{label}"]
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
    header = f"@@ -{offset + 1 if a else offset},{len(a)} +{offset + 1 if b else offset},{len(b)} @@"
    return [header] + ["-" + line for line in a] + ["+" + line for line in b]


def describe_bytes(data: bytes) -> str:
    return f"{len(data)} bytes"
