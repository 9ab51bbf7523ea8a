"""What every command model shares: the frozen `Command` base (version, id, action), `FsCommand`
(a path relative to the workspace), `spec_field()` for declaring a field once with its spec
wording, error code and aliases, and the validators several actions attach to their fields.

Field metadata lives in `json_schema_extra`: `code` (the ERR code for a missing or bad value),
`aliases`, and `doc` (the spec's wording). Models declare `defer_build=True`: pydantic builds a
model's validator the first time a command of that action is validated, not at import.
"""

# No "from __future__ import annotations" in the model modules: pydantic would then compile and
# eval every field annotation of every model when it is declared.

import re
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..codec import decode_b64_text
from ..errors import ErrorCode, OperatorError

# How the engine runs a command (engine/executor.py dispatches on it, one handler per kind): a
# read at once; a write planned, asked about and committed; a run asked about, run, and what it
# changed asked about as a change-set.
CommandKind = Literal["read", "write", "run"]

_WHOLE_NUMBER_RE = re.compile(r"[0-9]+")
# Any size of number is taken ("lines: 99999999999" is clamped, a huge start is past the end) and
# shown back as written; only beyond the interpreter's limit on digit strings (4300) is it capped.
_MAX_DIGITS = 4000
_HUGE_NUMBER = 10**_MAX_DIGITS


def spec_field(
    default: Any = ...,
    *,
    doc: str,
    code: ErrorCode | None = None,
    aliases: tuple[str, ...] = (),
) -> Any:
    return Field(
        default, description=doc, json_schema_extra={"code": code, "aliases": list(aliases)}
    )


def whole_number(value: str, *, field: str, code: ErrorCode) -> int:
    digits = value.lstrip("0")
    if not _WHOLE_NUMBER_RE.fullmatch(value) or not digits:
        raise OperatorError(code, f"{field} must be a whole number >= 1, got {value!r}")
    return int(digits) if len(digits) <= _MAX_DIGITS else _HUGE_NUMBER


# Validators shared by several actions: plain functions, attached with field_validator(...)(fn).


def resolve_language(cls: type, value: str | None) -> str | None:
    if value is None:
        return None
    from ..comments import resolve_language as resolve

    return resolve(value)


def required(code: ErrorCode, message: str) -> Callable[[type, str], str]:
    """A validator for a text field that must not be empty (`anchor:` with nothing after it):
    refused with the code the field is declared with, and a message saying what to put there."""

    def not_empty(cls: type, value: str) -> str:
        if not value:
            raise OperatorError(code, message)
        return value

    return not_empty


def decode_content(cls: type, value: str) -> str:
    return decode_b64_text(value, field="content_b64")


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    ACTION: ClassVar[str] = ""
    WRITES: ClassVar[bool] = False  # needs the person's consent before it changes anything
    # runs a program (shell.run): asked about, run, and its changes reviewed (engine/shell)
    RUNS: ClassVar[bool] = False
    NOTES: ClassVar[tuple[str, ...]] = ()  # spec lines after the fields: result, behaviour, limits
    BRIEF: ClassVar[str] = ""  # what it does in a few words, for the compact prompt
    # Optional fields of which exactly one must be given (content_b64 or content)
    ONE_OF: ClassVar[tuple[str, ...]] = ()

    version: str
    id: str
    action: str

    @property
    def kind(self) -> CommandKind:
        """How the engine runs it: a command that runs a program is a "run" (it writes too: the
        person is asked first), one that otherwise changes anything a "write", the rest reads."""
        if self.RUNS:
            return "run"
        return "write" if self.WRITES else "read"

    @property
    def path_or_none(self) -> str | None:
        # A model's fields are in its __dict__; getattr of one it lacks goes through pydantic's
        # __getattr__ and an AttributeError, several microseconds for every command.
        path = self.__dict__.get("path")
        return path if isinstance(path, str) else None


class FsCommand(Command):
    path: str = spec_field(
        doc="path relative to the workspace root", code=ErrorCode.ERR_ACTION_REQUIRES_PATH
    )


def true_or_false(value: Any, *, field: str, code: ErrorCode) -> bool:
    word = str(value).lower()
    if word not in ("true", "false"):
        raise OperatorError(code, f"{field} must be true or false, got {value!r}")
    return word == "true"


class QueryFields(FsCommand):
    """The text to look for, as a plain value (trimmed, like every value) or base64-encoded, for a
    query whose leading or trailing spaces matter ("add ")."""

    ONE_OF = ("query", "query_b64")

    query: str | None = spec_field(
        None,
        doc="the text to find (required, or query_b64 instead)",
        code=ErrorCode.ERR_MISSING_QUERY,
        aliases=("q",),
    )
    query_b64: str | None = spec_field(
        None,
        doc="the query as base64 UTF-8, when its leading or trailing spaces matter",
        code=ErrorCode.ERR_MISSING_QUERY,
    )

    @property
    def text(self) -> str:
        """The query to look for, decoded."""
        return self.query if self.query is not None else self.query_b64 or ""

    def _check_query(self) -> None:
        """For a model validator: exactly one of query and query_b64, and not empty."""
        if self.query is not None and self.query_b64 is not None:
            raise OperatorError(
                ErrorCode.ERR_DUPLICATE_FIELD,
                "give query or query_b64, not both; keep query_b64 when spaces at its ends matter",
            )
        if not self.text:
            if self.query_b64 is not None:
                given = "query_b64 decodes to nothing"
            elif self.query is not None:
                given = "query is empty"
            else:
                given = f"{self.ACTION} requires query"
            raise OperatorError(
                ErrorCode.ERR_MISSING_QUERY,
                f'{given}; add the line "query: <the text to find>" (or q), or query_b64: '
                "<base64> when spaces at its ends matter",
            )


def decode_query(cls: type, value: str | None) -> str | None:
    return None if value is None else decode_b64_text(value, field="query_b64")
