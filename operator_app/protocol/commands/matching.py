"""How the two searches read their query (fs.search in one file, fs.searchTree under a folder):
as text, or with regex: true as a regular expression of the `regex` module (Python `re` syntax)
in which ^ and $ match at the start and end of every line, as grep's do, and with ignore_case
regardless of case. Declared once for both, so the fields, their spec wording and the pattern's
checks cannot differ between them."""

# No "from __future__ import annotations": see base.py.

from functools import lru_cache
from typing import Any

from pydantic import field_validator

from ..errors import ErrorCode, OperatorError
from ..regex_cost import MATCH_TIME_LIMIT_S, MAX_FUZZY_ERRORS, MAX_REGEX_CHARS, MAX_UNROLLED
from .base import QueryFields, spec_field, true_or_false

REGEX_NOTES = (
    "regex: true reads query as a regular expression (Python re syntax, the regex module; a bad "
    "one is ERR_INVALID_PATTERN);",
    "^ and $ match at the start and end of each line (a CRLF line's too), as grep's do.",
    f"Limits (ERR_PATTERN_TOO_COSTLY, nothing searched): a regex over {MAX_REGEX_CHARS} "
    f"characters, counted repeats that multiply past {MAX_UNROLLED:,} ((?:a{{100}}){{100}}),",
    "(?R) or (?1) recursion, fuzzy matching without a bound of at most "
    f"{MAX_FUZZY_ERRORS} errors, or one search of one file taking over "
    f"{MATCH_TIME_LIMIT_S:g} s.",
)


class MatchFields(QueryFields):
    """A query, and how it is matched: as text or as a regular expression, with case or not."""

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

    @field_validator("regex", "ignore_case", mode="before")
    @classmethod
    def _flag(cls, value: Any, info: Any) -> bool:
        return true_or_false(value, field=info.field_name, code=ErrorCode.ERR_INVALID_FLAG)

    def _check_match(self) -> None:
        """For a model validator: the query is there, and a regex one compiles at a bounded
        cost (refused here, before anything runs)."""
        self._check_query()
        if self.regex:
            compile_query(self.text, ignore_case=self.ignore_case)


@lru_cache(maxsize=8)
def compile_query(text: str, *, ignore_case: bool) -> Any:
    """The `regex` pattern of a regex: true query (^ and $ at each line: MULTILINE), or
    ERR_INVALID_PATTERN saying where it is wrong, or ERR_PATTERN_TOO_COSTLY when compiling or
    matching it could take too much (protocol/regex_cost.py). Kept: the check runs when the
    command is read, the search after."""
    import regex

    from ..regex_cost import check_regex_cost

    # MULTILINE changes only what ^ and $ mean, and costs a pattern without them time.
    lines = regex.MULTILINE if "^" in text or "$" in text else 0
    flags = lines | (regex.IGNORECASE if ignore_case else 0)
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
