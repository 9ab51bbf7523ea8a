"""What the scanner finds, and the block it is collecting (sans-IO): a `RawBlock` is one
OPERATOR_CMD block's inner lines as found, or the structural error that spoils it (the first
one, which is the one worth fixing first), with the first readable id for the result of a broken
block; the block limits of the spec are enforced as lines are added. `classify()` tells a marker
line from any other, and whether the marker is alone on it (docs/design.md, decision 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import grammar
from .errors import ErrorCode, OperatorError

_ID_LINE_RE = re.compile(r"\s*id\s*:(.*)")


@dataclass(frozen=True)
class RawBlock:
    """One OPERATOR_CMD block as found: its inner lines, or the structural error that spoils it."""

    start_line: int
    end_line: int | None
    lines: tuple[tuple[int, str], ...]  # (message line number, text) between the markers
    error: OperatorError | None = None
    id_hint: str | None = None  # the first readable "id:" value, for results of broken blocks

    @property
    def content_key(self) -> str:
        """What "identical content" means for duplicate ids: the inner lines, trimmed."""
        return "\n".join(text.strip() for _, text in self.lines)


@dataclass(frozen=True)
class ScanWarning:
    line: int
    message: str


ScanEvent = RawBlock | ScanWarning


@dataclass(frozen=True)
class PendingBlock:
    start_line: int
    id_hint: str | None


@dataclass
class OpenBlock:
    start_line: int
    lines: list[tuple[int, str]] = field(default_factory=list)
    chars: int = 0
    error: OperatorError | None = None
    id_hint: str | None = None
    suspect: bool = False  # opened by a marker that was not alone: may have been prose

    def fail(self, code: ErrorCode, message: str) -> None:
        if self.error is None:  # the first structural problem is the one worth fixing first
            self.error = OperatorError(code, message)

    def add(self, line_no: int, text: str) -> None:
        self.chars += len(text) + 1
        if self.id_hint is None:
            match = _ID_LINE_RE.fullmatch(text)
            if match and match.group(1).strip():
                self.id_hint = match.group(1).strip()
        if len(self.lines) < grammar.MAX_BLOCK_LINES and self.chars <= grammar.MAX_BLOCK_CHARS:
            self.lines.append((line_no, text))
        else:
            # Name the limit that was crossed: the fix differs (fewer lines vs a smaller payload).
            crossed = (
                f"more than {grammar.MAX_BLOCK_LINES} lines"
                if len(self.lines) >= grammar.MAX_BLOCK_LINES
                else f"more than {grammar.MAX_BLOCK_CHARS} characters"
            )
            self.fail(
                ErrorCode.ERR_BLOCK_TOO_LARGE,
                f"the block at line {self.start_line} has {crossed} between its markers (limits: "
                f"{grammar.MAX_BLOCK_LINES} lines, {grammar.MAX_BLOCK_CHARS} characters); nothing "
                "was run; split the payload over several commands",
            )


def classify(line: str) -> tuple[str, bool] | None:
    """(marker token, alone?) for a marker line, None for any other line."""
    stripped = line.strip()
    if stripped in grammar.MARKERS:
        return stripped, True
    match = grammar.MARKER_NOT_ALONE_RE.match(line)
    if match:
        return match.group(1), False
    return None


_INVISIBLE_RE = re.compile(f"[{grammar.INVISIBLE_CHARS}]")


def not_alone_message(token: str, line_no: int, line: str) -> str:
    # An invisible character is the one thing the model cannot see in its own text: name it.
    invisible = _INVISIBLE_RE.search(line)
    unseen = f" (the invisible character U+{ord(invisible.group()):04X})" if invisible else ""
    return (
        f"{token} at line {line_no} shares its line with other text{unseen}; put the marker alone "
        "on its own line with no markdown, code fences or prose around it"
    )
