"""How much text one answer may carry: a listing or a range of lines is capped as a whole read is
(fs.read's 200,000 bytes), and the answer says where it stopped and how to get the rest, so a
folder of 100,000 entries or a read of 37,000 lines cannot put megabytes in front of the model.
Pure: no I/O."""

from __future__ import annotations

SHOWN_MAX_BYTES = 200_000  # fs.read's limit: the most text any one answer shows


def cap_lines(lines: list[str], limit: int = SHOWN_MAX_BYTES) -> tuple[list[str], int]:
    """The first of `lines` whose UTF-8 bytes (each with its line break) fit in `limit`, and how
    many were left out. At least one line is kept, cut to the limit if it alone is over it."""
    used = 0
    for index, line in enumerate(lines):
        used += len(line.encode("utf-8", errors="replace")) + 1
        if used > limit:
            if index == 0:
                cut = line.encode("utf-8", errors="replace")[: limit - 1]
                return [cut.decode("utf-8", errors="ignore")], len(lines) - 1
            return lines[:index], len(lines) - index
    return lines, 0
