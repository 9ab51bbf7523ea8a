"""The actions that read one file or folder and change nothing: fs.list, fs.read, fs.readSlice,
fs.search and fs.stat, with the size and match limits the spec states for each (the walks of a
whole tree are navigation.py's)."""

# No "from __future__ import annotations": see base.py.

from typing import Any, ClassVar, Literal, Self

from pydantic import field_validator, model_validator

from ..errors import ErrorCode
from ..grammar import LARGE_READ_MAX_BYTES
from .base import FsCommand, decode_query, spec_field, whole_number
from .matching import REGEX_NOTES, MatchFields


class FsList(FsCommand):
    ACTION = "fs.list"
    BRIEF = "a folder's entries, folders ending with /"
    NOTES = (
        "Result: details_b64 contains directory entries, one per line, sorted by name;",
        'folders end with "/", symlinks with "@", FIFOs, sockets and devices with " (special '
        'file)" (path "." lists the workspace root).',
        "At most 200000 bytes of entries are listed; the summary then says how many of how many "
        "(truncated).",
    )
    action: Literal["fs.list"]


class FsRead(FsCommand):
    ACTION = "fs.read"
    BRIEF = "a whole file's exact text, line endings kept (up to 200000 bytes)"
    MAX_BYTES: ClassVar[int] = 200_000
    NOTES = (
        "Result: details_b64 contains full file content (base64 UTF-8), exactly as stored: line",
        "endings (CRLF too) and a missing final newline as they are; a UTF-8 BOM is left out, and",
        "the summary names it (and CRLF line endings, and no newline at end of file).",
        f"Size limit: {MAX_BYTES} bytes.",
        "If file exceeds size limits, returns ok:false with summary:",
        '"File too large for fs.read (<bytes> bytes). Use fs.readSlice."',
    )
    action: Literal["fs.read"]


class FsReadSlice(FsCommand):
    ACTION = "fs.readSlice"
    BRIEF = "numbered lines of a file (lines at most 400)"
    MAX_BYTES: ClassVar[int] = LARGE_READ_MAX_BYTES
    MAX_LINES: ClassVar[int] = 400
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus numbered lines ("<line>: '
        '<text>")',
        f"lines above {MAX_LINES} are clamped to {MAX_LINES} and the header says so.",
        "A start past the last line returns ERR_INVALID_READSLICE_PARAMS with the file's line "
        "count.",
        f"Size limit: {MAX_BYTES} bytes.",
        "If file exceeds size limits, returns ERR_FILE_TOO_LARGE.",
    )
    action: Literal["fs.readSlice"]
    start: int = spec_field(
        1,
        doc="1-based line, default 1",
        code=ErrorCode.ERR_INVALID_READSLICE_PARAMS,
        aliases=("line", "from"),
    )
    lines: int = spec_field(
        120,
        doc="default 120, max 400",
        code=ErrorCode.ERR_INVALID_READSLICE_PARAMS,
        aliases=("count", "len"),
    )

    @field_validator("start", "lines", mode="before")
    @classmethod
    def _number(cls, value: Any, info: Any) -> int:
        return whole_number(
            str(value), field=info.field_name, code=ErrorCode.ERR_INVALID_READSLICE_PARAMS
        )


class FsSearch(MatchFields):
    ACTION = "fs.search"
    BRIEF = "one file's lines holding the text (at most 50)"
    MAX_BYTES: ClassVar[int] = LARGE_READ_MAX_BYTES
    MAX_MATCHES: ClassVar[int] = 50
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus matching lines with line '
        'numbers ("<line>: <text>")',
        f'Results are capped at {MAX_MATCHES} matches; header includes "(truncated)" when clipped.',
        "The match is a case-sensitive substring (query_b64 keeps spaces at its ends) unless "
        "regex or ignore_case says otherwise.",
        *REGEX_NOTES,
        "A folder path returns ERR_SEARCH_PATH_IS_DIR (search a folder with fs.searchTree).",
        f"Size limit: {MAX_BYTES} bytes.",
        "If file exceeds size limits, returns ERR_FILE_TOO_LARGE.",
    )
    action: Literal["fs.search"]

    _decode = field_validator("query_b64")(decode_query)

    @model_validator(mode="after")
    def _query(self) -> Self:
        self._check_match()
        return self


class FsStat(FsCommand):
    ACTION = "fs.stat"
    BRIEF = "size, kind and times of an entry, as JSON"
    NOTES = (
        "Result: details_b64 contains JSON: {path,size,isFile,isDir,mtimeMs,ctimeMs}",
        "A symlink that stays inside the workspace is followed: the keys describe what it points "
        "to.",
    )
    action: Literal["fs.stat"]


MODELS = (FsList, FsRead, FsReadSlice, FsSearch, FsStat)
