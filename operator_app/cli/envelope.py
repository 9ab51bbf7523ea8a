"""The ResponseEnvelope of `--json` output (docs/design.md, "The --json envelope"): ok, data,
error, warnings and meta are
always present; `ok` is derived from the exit code by `respond()`, the only constructor; command
handlers never build an envelope themselves."""

from __future__ import annotations

import time
from typing import Any

from msgspec import Struct

from ..protocol import encodable

SCHEMA_VERSION = "1.0"

# Exit codes: documented in the README and `operator-app --help`.
EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_WORKSPACE = 3
EXIT_MESSAGE = 4
EXIT_STATE = 5
EXIT_NOTHING = 6
EXIT_OUTPUT = 7  # stdout could not be written; the results are in the session all the same

EXIT_RETRYABLE = {
    EXIT_USAGE: True,
    EXIT_STATE: True,
    EXIT_INTERNAL: False,
    EXIT_WORKSPACE: False,
    EXIT_MESSAGE: False,
    EXIT_NOTHING: False,
    EXIT_OUTPUT: False,
}


class ErrorDetail(Struct, frozen=True):
    code: str
    message: str
    phase: str = "validation"  # "validation" guarantees zero side effects
    suggestion: str | None = None
    detail: str | None = None

    def to_json(self, exit_code: int) -> dict[str, Any]:
        # The error carries code, message, retryable, phase and suggestion: all five always.
        out: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "retryable": EXIT_RETRYABLE.get(exit_code, False),
            "phase": self.phase,
            "suggestion": self.suggestion or "see operator-app --help",
        }
        if self.detail:
            out["detail"] = self.detail
        return out


class CommandFailed(Exception):
    """Raised by a command handler to end with a non-zero exit code and an error."""

    def __init__(self, exit_code: int, error: ErrorDetail) -> None:
        super().__init__(error.message)
        self.exit_code = exit_code
        self.error = error


def respond(
    *,
    exit_code: int,
    started: float,
    data: Any = None,
    error: ErrorDetail | None = None,
    warnings: list[str] | None = None,
    not_modified: bool = False,
    truncated: bool = False,
) -> dict[str, Any]:
    if exit_code != EXIT_OK and error is None:
        raise ValueError("a non-zero exit code needs an error")
    if exit_code == EXIT_OK and error is not None:
        raise ValueError("a successful response carries no error")
    if data is None and error is None and not not_modified:
        raise ValueError("data and error are both null outside a not-modified response")
    meta: dict[str, Any] = {
        "duration_ms": int((time.perf_counter() - started) * 1000),
        "schema_version": SCHEMA_VERSION,
    }
    if truncated:
        meta["truncated"] = True
    if not_modified:
        meta["not_modified"] = True
    envelope: dict[str, Any] = _encodable(
        {
            "ok": exit_code == EXIT_OK,
            "data": None if exit_code != EXIT_OK else data,
            "error": None if error is None else error.to_json(exit_code),
            "warnings": list(warnings or []),
            "meta": meta,
        }
    )
    return envelope


def _encodable(value: Any) -> Any:
    """Every string made writable as UTF-8: a workspace path that is not UTF-8 reaches us as lone
    surrogates, which would otherwise put invalid UTF-8 (or a crash) into the JSON output."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {key: _encodable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_encodable(item) for item in value]
    return value
