"""Command results, of every dialect: what a command did, for the model (summary, details), the
person (diff, status) and the session's records. A result names the dialect that answers it;
that dialect renders it (protocol/dialects.py `render_results`: an OPERATOR_RESULT block, a String
response), and what its form needs beyond the common fields travels in `frame`, which only the
dialect reads. What the action did is its `outcome`, the record the engine made of it
(protocol/outcomes.py): what reads a result learns facts there, never from its text; a failed
one carries its error's code and message as fields too."""

from __future__ import annotations

import re
from copy import copy
from typing import Any, Literal

from msgspec import Struct, ValidationError, convert, field, to_builtins
from msgspec.json import encode as json_encode
from msgspec.structs import force_setattr, replace

from .chanflow.tag_escape import escape_tags
from .errors import OperatorError
from .escapes import escape_controls
from .outcomes import Outcome

Status = Literal["ok", "failed", "invalid", "rejected", "conflict"]

# Everything str.splitlines() (and so many viewers) treats as a line break.
_LINE_BREAKS_RE = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")
# Lone surrogates: how Python hands over a file name that is not UTF-8 (os.fsdecode's
# surrogateescape). They cannot be encoded, so a result holding one would crash the session
# record, the JSON envelope and the copy-back text; they are shown as the bytes they stand for.
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def encodable(text: str) -> str:
    """`text` with lone surrogates written as escapes ("\\xe9"); unchanged (and cheap) otherwise."""
    return _SURROGATE_RE.sub(_escape_surrogate, text) if _SURROGATE_RE.search(text) else text


def count(n: int, noun: str) -> str:
    """ "1 line", "3 lines", "2 unreadable entries": summaries are read by a model that copies
    what it sees."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural(noun)}"


def plural(noun: str) -> str:
    """English plural of the nouns Operator counts: "entry" -> "entries", "file" -> "files"."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def one_line(text: str) -> str:
    """`text` as one printable line that opens no block: line breaks become spaces, other control
    characters escapes (protocol/escapes.py; a tab stays), and a String tag in it, from a file's
    name say, gets the backslash a String response gives it (chanflow/tag_escape.py), so a result
    a model quotes back cannot open a String block."""
    # lone surrogates from odd file names
    text = text.encode("utf-8", errors="replace").decode("utf-8")
    return escape_tags(escape_controls(_LINE_BREAKS_RE.sub(" ", text).strip()))


class CommandResult(Struct, frozen=True):
    id: str
    ok: bool
    summary: str
    details: str | None = None
    action: str | None = None
    path: str | None = None
    error_code: str | None = None
    status: Status = "ok"
    line: int | None = None  # where the block starts in its message
    diff: str | None = None  # the preview of a write, for the person (never sent to the model)
    truncated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. added/removed counts of a write
    dialect: str = "operator"  # the dialect that answers it (protocol/dialects.py)
    # What the dialect's form needs besides id, summary and details (a String response: its
    # topic, command line and time); read by that dialect alone.
    frame: dict[str, str] = field(default_factory=dict)
    # What the action did, as the engine recorded it (None: nothing it did is recorded, as for an
    # invalid block or a write that was declined; results kept before records were made).
    outcome: Outcome | None = None
    error_message: str | None = None  # a failure: its error's message, without the code
    # The answer to a block that already ran: the message it ran in, whose answer this is.
    repeat_of: int | None = None

    def __post_init__(self) -> None:
        for name in ("summary", "details", "path", "diff", "error_message"):
            value = getattr(self, name)
            if value is not None and _SURROGATE_RE.search(value):
                force_setattr(self, name, encodable(value))
        if self.outcome is not None and not _encodes(self.outcome):
            force_setattr(self, "outcome", _encodable_record(self.outcome))

    @property
    def shown_id(self) -> str:
        """The id as the result block gives it: verbatim (rule 9) except for control characters,
        which only the id of a block refused for holding one can have; escaped, they can neither
        forge a line nor drive a terminal."""
        return escape_controls(self.id.encode("utf-8", errors="replace").decode("utf-8"))

    def to_json(self) -> dict[str, Any]:
        # Not a deep copy (msgspec.to_builtins, or dataclasses.asdict before): that was a tenth of
        # what recording a cheap command cost. The fields are strings, numbers and `extra`'s flat
        # JSON values.
        data = {name: getattr(self, name) for name in _FIELD_NAMES}
        data["extra"] = dict(self.extra)
        data["frame"] = dict(self.frame)
        if self.outcome is not None:
            data["outcome"] = to_builtins(self.outcome)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CommandResult:
        known = {k: v for k, v in data.items() if k in _FIELD_SET}
        # Sessions recorded before results had a frame kept a String response's parts as fields.
        legacy = {k: data[k] for k in _LEGACY_FRAME if data.get(k) is not None}
        if legacy and "frame" not in data:
            known["frame"] = {_LEGACY_FRAME[k]: str(v) for k, v in legacy.items()}
        known["outcome"] = outcome_of(data.get("outcome"))
        # Sessions recorded before a repeat said so in a field kept it in `extra`.
        earlier = dict(data.get("extra") or {}).get("repeat_of")
        if "repeat_of" not in data and isinstance(earlier, int):
            known["repeat_of"] = earlier
        return cls(**known)

    def outcome_json(self) -> dict[str, Any] | None:
        """The record as plain JSON values (`--json`), with its type under "type"."""
        return None if self.outcome is None else dict(to_builtins(self.outcome))

    def with_line(self, line: int | None) -> CommandResult:
        if line == self.line:
            return self
        # A copy with only `line` changed, without replace() re-running the surrogate checks of
        # __post_init__ on values already checked: every result passes here.
        moved = copy(self)
        force_setattr(moved, "line", line)
        return moved


_FIELD_NAMES: tuple[str, ...] = CommandResult.__struct_fields__
_FIELD_SET = frozenset(_FIELD_NAMES)
_LEGACY_FRAME = {"topic": "topic", "request": "request", "at": "time"}


def _encodes(record: Outcome) -> bool:
    """Whether the record can be written as UTF-8 (a file's name that is not UTF-8 reaches it as
    lone surrogates, as it reaches a summary); checked by msgspec's encoder, in C."""
    try:
        json_encode(record)
    except UnicodeEncodeError:
        return False
    return True


def _encodable_record(record: Outcome) -> Outcome | None:
    """The record with every lone surrogate in its text written as an escape (`encodable`)."""

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return encodable(value)
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(item) for item in value]
        return value

    return outcome_of(clean(to_builtins(record)))


def outcome_of(data: object) -> Outcome | None:
    """A stored record read back; None for a result kept without one (a session recorded before
    results had records) or with one this version cannot read: the result itself still loads."""
    if data is None:
        return None
    try:
        return convert({"outcome": data}, _Stored).outcome
    except ValidationError:
        return None


class _Stored(Struct, frozen=True):
    outcome: Outcome


def repeated(result: CommandResult, message: int, line: int | None) -> CommandResult:
    """The answer to a block that already ran in an earlier message (the same id, the same
    content): its result from then, ok or not as it was, details and all, its summary saying where
    it ran and how to run it again. Nothing runs again."""
    return replace(
        result,
        summary=(
            f"already ran in message {message}: {result.summary} (not run again; to run it again, "
            "send it with a new id)"
        ),
        line=line,
        repeat_of=message,
    )


def failed(
    command_id: str,
    error: OperatorError,
    *,
    action: str | None,
    path: str | None,
    status: Status = "failed",
    summary: str | None = None,
    line: int | None = None,
) -> CommandResult:
    return CommandResult(
        id=command_id,
        ok=False,
        summary=summary or str(error),
        details=error.context,
        action=action,
        path=path,
        error_code=error.code.value,
        status=status,
        line=line,
        error_message=error.message,
    )
