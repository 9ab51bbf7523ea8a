"""How a change moved a file's lines, and what that does to line numbers written before it
(docs/design.md, "the line-number rule"). Pure: a change's moves are what the text transform that
made it computed (textops/diff.py `text_diff`, or one edit's place in the text here); a range of
lines is carried through the changes made after it was written, which says whether they touched
lines above it or inside it (then its numbers no longer mean what they meant) and where those
lines are now."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from ...protocol.outcomes import Change, Moves

__all__ = ["MOVES_SHOWN", "Carried", "Change", "Step", "carry", "change_of_span", "moves_clause"]

MOVES_SHOWN = 3  # places a "lines after N moved" clause names; more are counted


Step = Moves  # one write's changes, in order, none overlapping


def change_of_span(
    text: str, begin: int, end: int, inserted: str, *, start_line: int | None = None
) -> Change:
    """The change of lines that replacing text[begin:end] with `inserted` makes (an insertion
    when begin == end). The lines the span touches count as changed; lines before and after it
    keep their text and only move. `start_line`: the 0-based line `begin` is on, when known."""
    start = text.count("\n", 0, begin) if start_line is None else start_line
    at_line_start = begin == 0 or text[begin - 1] == "\n"
    removed = text.count("\n", begin, end)
    added = inserted.count("\n")
    whole_lines = at_line_start and (end == begin or text[end - 1] == "\n")
    if whole_lines and (not inserted or inserted.endswith("\n")):
        return Change(start, start + removed, start, start + added)
    # Part of a line (or a span ending inside one): that line changes with it.
    return Change(start, start + removed + 1, start, start + added + 1)


class Carried(Struct, frozen=True):
    first: int  # 1-based, inclusive, in the numbering after every step
    last: int
    touched_by: tuple[int, ...]  # the steps that moved the range or changed lines inside it


def carry(first: int, last: int, steps: Sequence[Step]) -> Carried:
    """Lines first..last (1-based, inclusive), written for the text before `steps`: where they are
    after them, and which steps moved them or changed lines inside them. A step that changed only
    lines below the range, or lines above it without changing how many there are, leaves its
    numbers naming the same lines."""
    low, high = first - 1, last  # 0-based, half-open
    touched: list[int] = []
    for index, step in enumerate(steps):
        new_low = _new_line(low, step, last=False)
        if new_low != low or any(_inside(change, low, high) for change in step):
            touched.append(index)
        high = max(_new_line(high - 1, step, last=True) + 1, new_low + 1)
        low = new_low
    return Carried(low + 1, high, tuple(touched))


def _inside(change: Change, low: int, high: int) -> bool:
    """Whether `change` replaced a line of [low, high) or inserted lines between two of them."""
    if change.start == change.end:
        return low < change.start < high
    return change.start < high and change.end > low


def _new_line(line: int, step: Step, *, last: bool) -> int:
    """Where 0-based line `line` is after the step. A line inside a changed run has no place of
    its own: it is the run's first new line, or for the `last` line of a range its last one."""
    offset = 0
    for change in step:
        if change.end <= line:  # before it (lines inserted right before it push it down too)
            offset += change.delta
        elif change.start <= line:
            if last and change.new_end > change.new_start:
                return change.new_end - 1
            return change.new_start
        else:
            break
    return line + offset


def moves_clause(step: Step, old_lines: int | None = None) -> str | None:
    """How the lines after each change moved, as an answer says it: "lines after 286 moved +2",
    "lines after 120 moved +1, after 286 +3" (counted from the lines before the change); None
    when no line moved. `old_lines`: the line count before it (no line follows a change at the
    end, so lines added there move nothing)."""
    moves: list[tuple[int, int]] = []
    total = 0
    for change in step:
        if old_lines is not None and change.end >= old_lines:
            break
        if change.delta:
            total += change.delta
            moves.append((change.end, total))
    if not moves:
        return None
    parts: list[str] = []
    for end, moved in moves[:MOVES_SHOWN]:
        if not parts:
            where = "all lines" if end == 0 else f"lines after {end}"
            parts.append(f"{where} moved {moved:+d}")
        else:
            parts.append(f"after {end} {moved:+d}")
    more = len(moves) - MOVES_SHOWN
    if more > 0:
        parts.append(f"and at {more} more place{'s' if more != 1 else ''} below")
    return ", ".join(parts)
