"""The actions that find their way around a folder tree and change nothing: fs.searchTree (the
text in every file under a folder), fs.find (entries by a glob on their path) and fs.tree (the
folder's outline). All three walk the whole tree under their path with the same skip rules and
cap what they return, not what they read; a walk that runs into its time limit stops and says
how far it got."""

# No "from __future__ import annotations": see base.py.

from functools import lru_cache
from typing import Any, ClassVar, Literal, Self

from pydantic import field_validator, model_validator

from ..errors import ErrorCode, OperatorError
from ..glob_match import MAX_GLOB_CHARS
from ..globs import MAX_GLOBS, MAX_LIST_CHARS
from ..regex_cost import MATCH_TIME_LIMIT_S, MAX_FUZZY_ERRORS, MAX_REGEX_CHARS, MAX_UNROLLED
from .base import FsCommand, QueryFields, decode_query, spec_field, true_or_false, whole_number

IGNORED = "Leaves out .git and what .gitignore files ignore (each relative to its own folder)"
TIME_LIMIT_S = 5  # seconds a walk of fs.searchTree, fs.find or fs.tree may take


def _globs(value: Any, field: str) -> str | None:
    if value is None:
        return None
    from ..globs import glob_list

    glob_list(str(value), field)  # refused here, before anything runs, when it cannot be used
    return str(value)


class FsSearchTree(QueryFields):
    ACTION = "fs.searchTree"
    BRIEF = 'every file under a folder searched: "path:line: text" lines (at most 200)'
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
        "regex: true reads query as a regular expression (Python syntax, the regex module; a bad "
        "one is ERR_INVALID_PATTERN).",
        f"Limits (ERR_PATTERN_TOO_COSTLY, nothing searched): a regex over {MAX_REGEX_CHARS} "
        f"characters, counted repeats that multiply past {MAX_UNROLLED:,} ((?:a{{100}}){{100}}),",
        "(?R) or (?1) recursion, fuzzy matching without a bound of at most "
        f"{MAX_FUZZY_ERRORS} errors, or one search of one file taking over "
        f"{MATCH_TIME_LIMIT_S:g} s;",
        f"a glob over {MAX_GLOB_CHARS} characters, or over {MAX_GLOBS} globs or "
        f"{MAX_LIST_CHARS} characters in one field.",
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
    regex: bool = spec_field(
        False,
        doc="true|false (default false): query is a regular expression",
        code=ErrorCode.ERR_INVALID_FLAG,
    )
    ignore_case: bool = spec_field(
        False,
        doc="true|false (default false): match regardless of case",
        code=ErrorCode.ERR_INVALID_FLAG,
    )

    _decode = field_validator("query_b64")(decode_query)

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _glob_list(cls, value: Any, info: Any) -> str | None:
        return _globs(value, info.field_name)

    @field_validator("regex", "ignore_case", mode="before")
    @classmethod
    def _flag(cls, value: Any, info: Any) -> bool:
        return true_or_false(value, field=info.field_name, code=ErrorCode.ERR_INVALID_FLAG)

    @model_validator(mode="after")
    def _query(self) -> Self:
        self._check_query()
        if self.regex:
            compile_query(self.text, ignore_case=self.ignore_case)
        return self


@lru_cache(maxsize=8)
def compile_query(text: str, *, ignore_case: bool) -> Any:
    """The `regex` pattern of a regex: true query, or ERR_INVALID_PATTERN saying where it is
    wrong, or ERR_PATTERN_TOO_COSTLY when compiling or matching it could take too much
    (protocol/regex_cost.py). Kept: the check runs when the command is read, the search after."""
    import regex

    from ..regex_cost import check_regex_cost

    flags = regex.IGNORECASE if ignore_case else 0
    check_regex_cost(text, flags)
    try:
        return regex.compile(text, flags)
    except regex.error as error:
        where = f" at position {error.pos + 1}" if error.pos is not None else ""
        raise OperatorError(
            ErrorCode.ERR_INVALID_PATTERN,
            f"query is not a valid regular expression: {error.msg}{where}; fix it, or send "
            "regex: false to search for the text as it is",
        ) from None


class FsFind(FsCommand):
    ACTION = "fs.find"
    BRIEF = "the entries under a folder whose path matches a glob (*.py at any depth, src/**/*.ts)"
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
    BRIEF = "a folder's outline to a depth, subfolders first, files with their size"
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
