"""The record of a read that showed the model lines of a file (protocol/outcomes.py
`ReadOutcome`): which file, as the workspace resolved it (a file reached through a symlinked
folder is one file under both names), which of its lines, numbered or not, and the hash of the
bytes read. Both dialects' reads make theirs here."""

from __future__ import annotations

import hashlib

from ...protocol.outcomes import ReadOutcome, Span
from .target import Target
from .workspace import Workspace


def viewed(
    ws: Workspace,
    target: Target,
    data: bytes,
    *,
    lines: int,
    shown: tuple[Span, ...],
    numbered: bool,
) -> ReadOutcome:
    return ReadOutcome(
        path=target.rel,
        real=ws.resolved(target).rel,
        lines=lines,
        shown=shown,
        numbered=numbered,
        sha256=hashlib.sha256(data).hexdigest(),
    )


def lines_from(first: int, last: int) -> tuple[Span, ...]:
    """Lines first..last as the spans a record lists: none when there are none."""
    return ((first, last),) if last >= first else ()


def spans(numbers: list[int]) -> tuple[Span, ...]:
    """Line numbers, in order, as runs of consecutive lines: [3, 4, 5, 9] -> (3, 5), (9, 9)."""
    runs: list[Span] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return tuple(runs)
