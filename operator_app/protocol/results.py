"""Command results and their OPERATOR_RESULT text: one block per command, single-line summary,
single-line details_b64. The decoded details stay on the result for display and --json."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from .chanflow.responses import Response
from .codec import encode_b64_text
from .errors import OperatorError
from .escapes import escape_controls
from .grammar import RESULT_END, RESULT_START

Status = Literal["ok", "failed", "invalid", "rejected", "conflict"]
Dialect = Literal["operator", "string"]

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
    """`text` as one printable line: line breaks become spaces, other control characters escapes
    (protocol/escapes.py; a tab stays)."""
    # lone surrogates from odd file names
    text = text.encode("utf-8", errors="replace").decode("utf-8")
    return escape_controls(_LINE_BREAKS_RE.sub(" ", text).strip())


@dataclass(frozen=True)
class CommandResult:
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
    # A String block's result is rendered as its response block: the dialect, and what the
    # response needs besides the id, summary (its system message) and details (what follows it).
    dialect: Dialect = "operator"
    topic: str | None = None  # "file:notes"
    request: str | None = None  # the block's command line, as written
    at: str | None = None  # when it was answered (ISO 8601, the response's time="...")

    def __post_init__(self) -> None:
        for name in ("summary", "details", "path", "diff"):
            value = getattr(self, name)
            if value is not None and _SURROGATE_RE.search(value):
                object.__setattr__(self, name, encodable(value))

    @property
    def shown_id(self) -> str:
        """The id as the result block gives it: verbatim (rule 9) except for control characters,
        which only the id of a block refused for holding one can have; escaped, they can neither
        forge a line nor drive a terminal."""
        return escape_controls(self.id.encode("utf-8", errors="replace").decode("utf-8"))

    def render(self) -> str:
        if self.dialect == "string":
            return Response(
                topic=self.topic or "file:main",
                time=self.at or "",
                request_id=self.shown_id,
                request=self.request or "",
                message=self.summary,
                rest=self.details,
            ).render()
        lines = [
            RESULT_START,
            f"id: {self.shown_id}",
            f"ok: {'true' if self.ok else 'false'}",
            f"summary: {one_line(self.summary)}",
        ]
        if self.details is not None and self.details != "":
            lines.append(f"details_b64: {encode_b64_text(self.details)}")
        lines.append(RESULT_END)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        # Not dataclasses.asdict: it deep-copies every value, a tenth of what recording a cheap
        # command cost. The fields are strings, numbers and `extra`'s flat JSON values.
        data = {name: getattr(self, name) for name in _FIELD_NAMES}
        data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CommandResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def with_line(self, line: int | None) -> CommandResult:
        if line == self.line:
            return self
        # A copy with only `line` changed, without dataclasses.replace re-running __init__ and the
        # surrogate checks of __post_init__ on values already checked: every result passes here.
        copy = object.__new__(CommandResult)
        copy.__dict__.update(self.__dict__)
        object.__setattr__(copy, "line", line)
        return copy


_FIELD_NAMES = tuple(f.name for f in fields(CommandResult))


def render_results(results: list[CommandResult] | tuple[CommandResult, ...]) -> str:
    """The copy-back text: exactly what `operator-app exec` prints and the TUI copies."""
    if not results:
        return ""
    return "\n\n".join(r.render() for r in results) + "\n"


def repeated(
    result: CommandResult, message: int, line: int | None, current: int | None = None
) -> CommandResult:
    """The answer to a block that already ran (the same id, the same content): its result from
    then, ok or not as it was, details and all, its summary saying where it ran. `current` is the
    number of the message being run when that is where it ran (a block given twice in one
    message). Nothing runs again."""
    if message != current:
        where = f"already ran in message {message}"
    elif result.line:
        where = f"already ran in this message (line {result.line})"
    else:
        where = "already ran earlier in this message"
    return replace(
        result,
        summary=f"{where}: {result.summary}",
        line=line,
        extra={**result.extra, "repeat_of": message},
    )


def invalid_summary(error: OperatorError) -> str:
    return f"Invalid OPERATOR_CMD ({error.code.value}): {error.message}"


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
    )


def operator_error(
    result_id: str, error: OperatorError, *, related_id: str | None, line: int | None
) -> CommandResult:
    """The spec's operator.error result, for a block whose id could not be read."""
    message = invalid_summary(error) + (f" ({error.context})" if error.context else "")
    details = json.dumps({"message": message, "related_id": related_id})
    return CommandResult(
        id=result_id,
        ok=False,
        summary=invalid_summary(error),
        details=details,
        action="operator.error",
        error_code=error.code.value,
        status="invalid",
        line=line,
    )
