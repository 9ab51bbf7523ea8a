"""What every read action is handed (the workspace, where a long read reports how far it got, and
the paths that look like secrets) and the line matching fs.search and fs.searchTree share."""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from ..boundary.secrets import OPERATORS_OWN, SecretPaths
from ..boundary.workspace import Workspace

MATCH_DISPLAY_LIMIT = 500  # characters of a matching line shown

Progress = Callable[[str], None]


class ReadContext(Struct):
    workspace: Workspace
    progress: Progress | None = None
    secrets: SecretPaths = OPERATORS_OWN  # files a tree search leaves out (they look like secrets)


def matching_lines(text: str, query: str, limit: int) -> tuple[list[tuple[int, str]], int]:
    """Up to `limit` (line number, line) pairs holding `query`, and how many lines hold it in all.
    Jumps from match to match with str.find so a 2 MB file with few matches costs one pass."""
    found: list[tuple[int, str]] = []
    total = 0
    line_no = 1
    counted_to = 0
    pos = text.find(query)
    while pos >= 0:
        line_no += text.count("\n", counted_to, pos)
        counted_to = pos
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        total += 1
        if len(found) < limit:
            found.append((line_no, text[start:end]))
        pos = text.find(query, end)
    return found, total
