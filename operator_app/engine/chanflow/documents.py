"""Reading the documents String commands name, through the workspace boundary: a file as bytes
(their hash is what CONFLICT compares) and as text with its conventions, the place a location
names in it (the current document when no path is given), a block by its id, and a range of
lines, each with the error String gives when it is not there (spec/string.txt lists them)."""

from __future__ import annotations

import hashlib

from msgspec import Struct

from ...protocol.chanflow.commands import Location, usage_error
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.comments import LANGUAGES, language_for_path
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.escapes import escape_name as shown_name
from ...protocol.grammar import LARGE_READ_MAX_BYTES
from ..boundary.target import Target
from ..changes.secret_read import read_plan, secret_pattern
from ..textops.doc_blocks import DocBlock, find_blocks, heading_syntax
from ..textops.textfile import TextDoc, split_lines
from .context import Call
from .mapping import check_path, not_approved_in_string, told_in_string

SHOW_MAX_BYTES = 200_000  # a whole document shown by /open (fs.read's limit); parts may be larger
# Lines of a file are read from a file up to this size (a whole document, a block: up to
# LARGE_READ_MAX_BYTES), so the advice for a large file, "open some lines", works.
LINES_READ_MAX_BYTES = 32_000_000


class Doc(Struct, frozen=True):
    target: Target
    shown: str  # the location as the model wrote it
    data: bytes
    text: TextDoc

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text.text)


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def short(sha: str | None) -> str:
    return "none (the file is gone)" if sha is None else f"hash {sha[:8]}"


def target_of(call: Call, location: Location) -> tuple[Target, str]:
    """The checked file a location names and how to show it: its path, or with none the topic's
    current document."""
    if location.path is not None:
        target = check_path(call.ws, location.path)
        if not location.quoted and any(ch.isspace() for ch in location.path):
            _refuse_words_after_path(call, target, location.path)
        return target, location.shown()
    current = call.topic.current
    if current is None:
        raise usage_error(
            call.request.name, "no document is open in this topic: name a path (~/notes.md)"
        )
    target = check_path(call.ws, current.rel)
    return target, current.shown + location.shown()


def _refuse_words_after_path(call: Call, target: Target, path: str) -> None:
    """A path with spaces, unquoted, that names nothing: most likely a path and then words meant
    as content ("/write notes/x.md hello world")."""
    if call.ws.lstat(target) is not None:
        return  # a name with spaces that exists: it is what the model meant
    first, _, rest = path.partition(" ")
    name = call.request.name
    content = (
        f"the content goes on the lines after the command line: /{name} {first}, then the text"
        if name in _TAKES_CONTENT
        else ""
    )
    whole = path.replace('"', "")  # quoted whole, not in parts (~/"my docs/a.md")
    raise StringError(
        StringCode.INVALID_PARAMS,
        f"/{name} takes one path, and {rest.strip()!r} follows {first} on the command line",
        content,
        f'a path with spaces is written in quotes, whole: /{name} "{whole}"',
    )


_TAKES_CONTENT = frozenset({"write", "append", "replace", "edit"})


def read_bytes(
    call: Call,
    target: Target,
    *,
    limit: int = LARGE_READ_MAX_BYTES,
    writing: bool = False,
    shown: bool = True,
) -> bytes | None:
    """The file's bytes, None when it does not exist; String's error for anything else (for a
    change, WRITE_FAILED: the file cannot be rewritten). Read to be `shown` to the model (not for
    a change), a file that looks like a secret is read only once the person says yes."""
    if call.ws.lstat(target) is None:
        return None
    if shown and not writing:
        ask_first(call, target)
    try:
        return call.ws.read_file(target, max_bytes=limit)
    except OperatorError as error:
        if error.code is ErrorCode.ERR_FILE_TOO_LARGE and writing:
            raise StringError(
                StringCode.WRITE_FAILED,
                f"{target.rel} is over the {limit:,}-byte limit of a file Operator rewrites; "
                "nothing was changed",
                "ask the person to change a file this large",
            ) from None
        if error.code is ErrorCode.ERR_FILE_TOO_LARGE:
            raise too_large(call, target, limit) from None
        raise told_in_string(error, writing=writing) from None


def too_large(call: Call, target: Target, limit: int) -> StringError:
    """LOAD_ERROR for a file over what this reading of it takes, with advice that works: lines
    of it (with its line count, when it can be counted), or the person."""
    size = call.ws.file_size(target)
    where = "~/" + target.rel
    facts = (
        f"{where} is {size:,} bytes, over the {limit:,}-byte limit of a whole /{call.request.name}"
    )
    if size > LINES_READ_MAX_BYTES:
        return StringError(
            StringCode.LOAD_ERROR,
            facts,
            f"Operator reads lines of files up to {LINES_READ_MAX_BYTES:,} bytes; ask the person",
        )
    try:
        data = call.ws.read_file(target, max_bytes=LINES_READ_MAX_BYTES)
        total = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        counted = f" (it has {total:,} line{'s' if total != 1 else ''})"
    except OperatorError:
        counted = ""
    return StringError(
        StringCode.LOAD_ERROR,
        facts,
        f"open some lines of it: /open {where}:L1-L400{counted}",
    )


def ask_first(call: Call, target: Target) -> None:
    """Secrets ask first (changes/secret_read.py), in String's words: SECRET_DECLINED when the
    person says no; once they say yes, the response says why it waited."""
    pattern = secret_pattern(call.context.secrets, call.ws, target)
    if pattern is None:
        return
    shown = f"~/{target.rel}"
    plan = read_plan(call.command, call.request_id, target, pattern)
    if not call.context.consent(plan):
        if call.context.nobody_to_ask:
            raise not_approved_in_string(f"{call.command} of {shown}", reading=True)
        raise StringError(
            StringCode.SECRET_DECLINED,
            f"{call.command} of {shown} was not approved: it looks like a secret ({pattern})",
            "Operator asked the person first; nothing was read",
            "do without it, or ask the person to share what you need",
        )
    call.notes.append(
        f"note: {shown} looks like a secret ({pattern}): read only once approved in Operator, "
        "which asked first"
    )


def load(call: Call, target: Target, shown: str, *, limit: int = LARGE_READ_MAX_BYTES) -> Doc:
    data = read_bytes(call, target, limit=limit)
    if data is None:
        raise missing(call, target, shown)
    return Doc(target, shown, data, decode(target, data))


def decode(target: Target, data: bytes) -> TextDoc:
    try:
        return TextDoc.decode(data, label=target.rel)
    except OperatorError as error:
        raise told_in_string(error) from None


def missing(call: Call, target: Target, shown: str) -> StringError:
    close = call.ws.close_names(target)
    hint = (
        (f"close names: {', '.join('~/' + shown_name(name) for name in close)}",) if close else ()
    )
    return StringError(StringCode.NOT_FOUND, "file not found", f"path: {shown}", *hint)


def blocks_of(doc: Doc) -> list[DocBlock]:
    language = language_for_path(doc.target.rel)
    style = LANGUAGES[language] if language else None
    # Markdown, plain text, reST and AsciiDoc have headings; in code a # line is a comment.
    return find_blocks(doc.lines, style, headings=heading_syntax(doc.target.rel))


def block_of(doc: Doc, block_id: str) -> DocBlock:
    blocks = blocks_of(doc)
    for block in blocks:
        if block.id == block_id:
            return block
    where = doc.shown.split("#")[0]
    available = (
        ", ".join(f"#{b.id}" for b in blocks) if blocks else "(none: this file has no blocks)"
    )
    raise StringError(
        StringCode.BLOCK_NOT_FOUND,
        f"block #{block_id} not found in {where}",
        f"available blocks: {available}",
    )


def check_lines(doc: Doc, lines: tuple[int, int]) -> tuple[int, int]:
    total = len(doc.lines)
    first, last = lines
    if last > total or first > total:
        bad = first if first > total else last
        where = doc.shown.split(":L")[0]
        raise StringError(
            StringCode.LINE_OUT_OF_RANGE,
            f"line {bad} does not exist",
            f"{where} has {total} line{'s' if total != 1 else ''}",
        )
    return first, last


def numbered(lines: list[str], first: int) -> str:
    """Lines with their numbers, as /edit shows a source: "12 │ text"."""
    if not lines:
        return ""
    width = len(str(first + len(lines) - 1))
    rows = (
        f"{str(first + offset).rjust(width)} \u2502 {line}" for offset, line in enumerate(lines)
    )
    return "\n".join(row.rstrip(" ") if row.endswith("\u2502 ") else row for row in rows)


def part(doc: Doc, location: Location) -> tuple[int, int] | None:
    """The (first, last) lines a location names in the document, None for the whole of it."""
    if location.block is not None:
        block = block_of(doc, location.block)
        return block.first, block.last
    if location.lines is not None:
        return check_lines(doc, location.lines)
    return None
