"""Reading the documents String commands name, through the workspace boundary: a file as bytes
(their hash is what CONFLICT compares) and as text with its conventions, the place a location
names in it (the current document when no path is given), a block by its id, and a range of
lines, each with the error String gives when it is not there (spec/string.txt lists them)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ...protocol.chanflow.commands import Location, usage_error
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.responses import shown_name
from ...protocol.comments import LANGUAGES, language_for_path
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.grammar import LARGE_READ_MAX_BYTES
from ..boundary.target import Target
from ..textops.doc_blocks import DocBlock, find_blocks
from ..textops.textfile import TextDoc, split_lines
from .context import Call
from .mapping import check_path, told_in_string

SHOW_MAX_BYTES = 200_000  # a whole document shown by /open (fs.read's limit); parts may be larger


@dataclass(frozen=True)
class Doc:
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
        return check_path(call.ws, location.path), location.shown()
    current = call.topic.current
    if current is None:
        raise usage_error(
            call.request.name, "no document is open in this topic: name a path (~/notes.md)"
        )
    target = check_path(call.ws, current.rel)
    return target, current.shown + location.shown()


def read_bytes(
    call: Call, target: Target, *, limit: int = LARGE_READ_MAX_BYTES, writing: bool = False
) -> bytes | None:
    """The file's bytes, None when it does not exist; String's error for anything else (for a
    change, WRITE_FAILED: the file cannot be rewritten)."""
    if call.ws.lstat(target) is None:
        return None
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
            raise StringError(
                StringCode.LOAD_ERROR,
                f"{target.rel} is over the {limit:,}-byte limit of /{call.request.name}",
                "open a block (#id) or some lines (:L1-L400) of it, or ask the person",
            ) from None
        raise told_in_string(error, writing=writing) from None


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
    # Markdown and plain text have headings; in code a line starting with # is a comment.
    return find_blocks(doc.lines, style, headings=language in (None, "markdown"))


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
