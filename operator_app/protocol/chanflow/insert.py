"""Where Operator's own /insert puts its content (pure): `/insert path:L12` after line 12,
`/insert path#block` after the block's last line, and with `--before` before line 12 or the
block's first line (a heading section's heading). The place is written as /replace writes it,
so a model that knows one knows the other; `:L12` and `#block` alone name the topic's current
document. `--after` (the default, said out loud) and the bare words before/after at either end
are read too, being what a model guesses first."""

from __future__ import annotations

from msgspec import Struct

from .commands import Location, parse_location, usage_error

_POSITIONS = {"--before": True, "--after": False, "before": True, "after": False}


class InsertAt(Struct, frozen=True):
    location: Location  # a :L range or a #block, in a file or the current document
    before: bool  # before the range's first line / the block's first line; else after its last


def read_insert(argument: str) -> InsertAt:
    """/insert's place, or INVALID_PARAMS with the usage."""
    rest = argument.strip()
    positions: list[bool] = []
    for _ in range(2):  # a word at the start, a word at the end
        first, _, tail = rest.partition(" ")
        if first in _POSITIONS and tail.strip():
            positions.append(_POSITIONS[first])
            rest = tail.strip()
        head, _, last = rest.rpartition(" ")
        if last in _POSITIONS and head.strip():
            positions.append(_POSITIONS[last])
            rest = head.strip()
    if len(set(positions)) > 1:
        raise usage_error("insert", "/insert goes either before or after its place, not both")
    if rest.split(" ")[-1].startswith("--"):
        raise usage_error(
            "insert", f"{rest.split(' ')[-1]} is not an option of /insert (--before, --after)"
        )
    location = parse_location("insert", rest)
    if location.version is not None:
        raise usage_error("insert", "a kept version cannot be changed: /open it, then /write")
    if location.lines is None and location.block is None:
        raise usage_error(
            "insert",
            "/insert names the line or block to insert after: /insert path:L12 or "
            "/insert path#block (--before: before it), the content on the next lines",
        )
    return InsertAt(location, before=bool(positions) and positions[0])
