"""The protocol's grammar as data: markers, limits, and the line rules, each beside the spec
sentence (or docs/design.md decision) it enforces. Nothing here does I/O."""

from __future__ import annotations

import re

# "Marker lines MUST be alone on their own line (surrounding whitespace allowed)"
CMD_START = "OPERATOR_CMD"
CMD_END = "END_OPERATOR_CMD"
RESULT_START = "OPERATOR_RESULT"
RESULT_END = "END_OPERATOR_RESULT"
MARKERS = frozenset({CMD_START, CMD_END, RESULT_START, RESULT_END})

# docs/design.md, decision 1: a marker token at the start of a line (after markdown punctuation
# only) followed by other text is ERR_MARKER_NOT_ALONE; the word inside prose is nothing. The token
# must not run on into an identifier ("OPERATOR_CMDS" is prose), and the longest token wins so
# "OPERATOR_RESULT" is never read as "OPERATOR_CMD"-something.
# Markdown punctuation includes an ordered-list number ("1. OPERATOR_CMD", "2) ..."), tag and
# bracket openers ("<OPERATOR_CMD>", "[OPERATOR_CMD]", "// OPERATOR_CMD") and the invisible
# format characters chat UIs leave behind (zero-width space/joiners, word joiner, BOM): str.strip()
# keeps those, and without them here such a marker would be silently taken for prose, its
# command dropped with no result to tell the model.
INVISIBLE_CHARS = "\u200b-\u200f\u2060\ufeff"
MARKDOWN_LEAD = rf"(?:[\s`>*#+~_|\-<\[(/{INVISIBLE_CHARS}]|[0-9]{{1,3}}[.)])*"
MARKER_NOT_ALONE_RE = re.compile(
    rf"^{MARKDOWN_LEAD}(END_OPERATOR_CMD|END_OPERATOR_RESULT|OPERATOR_CMD|OPERATOR_RESULT)(?![A-Za-z0-9_])"
)

# "Only the last 200,000 chars are scanned."
WINDOW_CHARS = 200_000
# "max 200 lines and 50,000 chars inside a block."
MAX_BLOCK_LINES = 200
MAX_BLOCK_CHARS = 50_000

# "Size limit: 2000000 bytes" of fs.readSlice and fs.search; the region actions read through it too.
LARGE_READ_MAX_BYTES = 2_000_000

# Operator's own limit (the spec has none): the largest file a write-type action will rewrite.
WRITE_MAX_BYTES = 8_000_000

# "Every OPERATOR_CMD MUST include: version: 1, id: <string>, action: <string>."
REQUIRED_FIELDS = ("version", "id", "action")
SUPPORTED_VERSION = "1"

# "Inside OPERATOR_CMD blocks, ONLY lines of the form "key: value" are allowed (... keys are
# case-sensitive)". docs/design.md, decision 2: split at the first colon, the key is an identifier,
# the value is trimmed.
KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# "Use ASCII only inside OPERATOR_CMD blocks."
NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")
# Control characters are ASCII too, but no "key: value" line needs one (tab aside), and echoed
# in a result they could forge a line (\f, \v split lines for str.splitlines()) or drive the
# terminal (ESC sequences). Line breaks never reach a line; the rest is
# ERR_CONTROL_CHARACTER_IN_CMD.
CONTROL_CHAR_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")

# "only A-Z a-z 0-9 + / = are allowed, and padding must be correct."
BASE64_ALPHABET_RE = re.compile(r"[^A-Za-z0-9+/=]")
BASE64_FIELDS = ("content_b64", "patch_b64", "edits_b64")

# Rule 11: "Do NOT include workspace/workspaceRoot (or any equivalent) as a command field."
WORKSPACE_FIELDS = frozenset(
    {
        "workspace",
        "workspaceRoot",
        "workspace_root",
        "workspaceDir",
        "workspace_dir",
        "root",
        "cwd",
        "rootDir",
        "root_dir",
    }
)

# "operator.error ... LLMs MUST NOT emit operator.error"
RESERVED_ACTIONS = frozenset({"operator.error"})
FS_PREFIX = "fs."

# docs/design.md, decision 13: a message's lines end at "\n", "\r\n" or a lone "\r".
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")


def count_breaks(text: str, start: int = 0, stop: int | None = None) -> int:
    """The line breaks of a message in text[start:stop], "\r\n" counted once."""
    stop = len(text) if stop is None else stop
    return (
        text.count("\n", start, stop)
        + text.count("\r", start, stop)
        - text.count("\r\n", start, stop)
    )


def first_break(text: str, start: int, stop: int) -> int:
    """Where the first line break of text[start:stop] stands, -1 when it has none."""
    newline, cr = text.find("\n", start, stop), text.find("\r", start, stop)
    if newline < 0 or (0 <= cr < newline):
        return cr
    return newline


def with_lf_breaks(text: str) -> str:
    """A message's text with each of its line breaks written "\n"."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
