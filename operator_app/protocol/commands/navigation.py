"""The actions that find their way around a folder tree and change nothing: fs.searchTree (the
text in every file under a folder), fs.find (entries by a glob on their path) and fs.tree (the
folder's outline). All three walk the whole tree under their path with the same skip rules and
cap what they return, not what they read; a walk that runs into its time limit stops and says
how far it got."""

# No "from __future__ import annotations": see base.py.

from typing import Any, ClassVar, Literal, Self

from pydantic import field_validator, model_validator

from ..errors import ErrorCode, OperatorError
from ..glob_match import MAX_GLOB_CHARS
from ..globs import MAX_GLOBS, MAX_LIST_CHARS
from .base import FsCommand, decode_query, spec_field, whole_number
from .matching import REGEX_NOTES, MatchFields

IGNORED = "Leaves out .git and what .gitignore files ignore (each relative to its own folder)"
TIME_LIMIT_S = 5  # seconds a walk of fs.searchTree, fs.find or fs.tree may take


def _globs(value: Any, field: str) -> str | None:
    if value is None:
        return None
    from ..globs import glob_list

    glob_list(str(value), field)  # refused here, before anything runs, when it cannot be used
    return str(value)


class FsSearchTree(MatchFields):
    ACTION = "fs.searchTree"
    BRIEF = '"path:line: text" of each match under a folder (at most 200)'
    MAX_MATCHES: ClassVar[int] = 200
    MAX_FILE_BYTES: ClassVar[int] = 500_000
    LINE_CHARS: ClassVar[int] = 200
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus matches in the form '
        '"<path>:<line>: <text>",',
        "one per matching line, in path order (paths relative to the workspace root).",
        f"Every file under path is searched; at most {MAX_MATCHES} matches are returned (the "
        'header then says "(truncated)" and how many',
        f"files match in all), each line cut to about {LINE_CHARS} characters around the match. "
        f"A search stops after {TIME_LIMIT_S} s",
        'with a "# truncated:" header naming the last file searched; narrow path or use include '
        "then.",
        f"{IGNORED}, and skips symlinks (never followed), binary and non-UTF-8 files and files "
        f"over {MAX_FILE_BYTES} bytes;",
        "the header counts each kind skipped. include/exclude globs are matched against the path "
        "relative to path:",
        "*.py matches at any depth, src/**/*.ts and /top.txt are anchored to path, docs/ matches a "
        "folder; exclude wins.",
        *REGEX_NOTES,
        f"A glob over {MAX_GLOB_CHARS} characters, or over {MAX_GLOBS} globs or "
        f"{MAX_LIST_CHARS} characters in one field, is ERR_PATTERN_TOO_COSTLY too.",
    )
    action: Literal["fs.searchTree"]
    include: str | None = spec_field(
        None,
        doc="globs, comma-separated: search only the files they match",
        code=ErrorCode.ERR_INVALID_PATTERN,
    )
    exclude: str | None = spec_field(
        None,
        doc="globs, comma-separated: leave out the files and folders they match",
        code=ErrorCode.ERR_INVALID_PATTERN,
    )

    _decode = field_validator("query_b64")(decode_query)

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _glob_list(cls, value: Any, info: Any) -> str | None:
        return _globs(value, info.field_name)

    @model_validator(mode="after")
    def _query(self) -> Self:
        self._check_match()
        return self


class FsFind(FsCommand):
    ACTION = "fs.find"
    BRIEF = "the entries under a folder whose path matches a glob"
    MAX_RESULTS: ClassVar[int] = 300
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus the entries whose path '
        "matches, one per line,",
        'in path order, relative to the workspace root; folders end with "/", symlinks with "@".',
        "pattern is a glob on the path relative to path: *.py matches at any depth, ** any "
        "number of folders,",
        "src/*.py and /top.txt are anchored to path; several globs separated by commas match "
        "any of them.",
        f"At most {MAX_RESULTS} entries are returned (the header says how many match in all). "
        f"{IGNORED};",
        f"symlinks are listed, never followed. A walk stops after {TIME_LIMIT_S} s and says so.",
    )
    action: Literal["fs.find"]
    pattern: str = spec_field(
        doc="a glob such as *.py, **/test_*.py or src/**/config.*",
        code=ErrorCode.ERR_MISSING_PATTERN,
    )

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if not value:
            raise OperatorError(
                ErrorCode.ERR_MISSING_PATTERN,
                "pattern is empty; give a glob such as *.py or src/**/config.*",
            )
        from ..globs import find_globs

        find_globs(value)
        return value


class FsTree(FsCommand):
    ACTION = "fs.tree"
    BRIEF = "a folder's outline to a depth, files with sizes"
    MAX_ENTRIES: ClassVar[int] = 500
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus one path per line, '
        "relative to the workspace root:",
        'each folder ("name/") before its files, its subfolders first, files with their size '
        '("src/app.py (1204 bytes)");',
        'a folder at the depth limit shows how many entries it holds ("src/deep/ (14 entries)"); '
        'symlinks end with "@".',
        f"At most {MAX_ENTRIES} entries: when more lie within depth, the tree is shown to the "
        "deepest level that fits,",
        f"and the header says so. {IGNORED};",
        f"symlinks are listed, never followed. A walk stops after {TIME_LIMIT_S} s and says so.",
    )
    action: Literal["fs.tree"]
    depth: int = spec_field(
        3,
        doc="levels of folders to show, default 3 (1: the folder's own entries)",
        code=ErrorCode.ERR_INVALID_DEPTH,
    )

    @field_validator("depth", mode="before")
    @classmethod
    def _depth(cls, value: Any) -> int:
        return whole_number(str(value), field="depth", code=ErrorCode.ERR_INVALID_DEPTH)


MODELS = (FsSearchTree, FsFind, FsTree)
