"""Between the two dialects: a String path checked by the workspace boundary exactly as an
OPERATOR_CMD path is (`~/` is the root), and an engine error told in String's terms: the String
code that fits (docs/design.md, "The String dialect"), the engine's message kept, and context
lines that say what to do (the workspace and the path asked for, a file's line count)."""

from __future__ import annotations

from ...protocol.chanflow.commands import leaves_workspace, workspace_relative
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.errors import HOW_TO_APPROVE, ErrorCode, OperatorError
from ..boundary.target import Target
from ..boundary.workspace import Workspace

# Engine codes -> String's. What is not here is a write that could not be made: WRITE_FAILED.
_CODES: dict[ErrorCode, StringCode] = {
    ErrorCode.ERR_NOT_FOUND: StringCode.NOT_FOUND,
    ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE: StringCode.INVALID_PATH,
    ErrorCode.ERR_INVALID_PATH: StringCode.INVALID_PATH,
    ErrorCode.ERR_NOT_A_FILE: StringCode.INVALID_PATH,
    ErrorCode.ERR_NOT_A_DIRECTORY: StringCode.INVALID_PATH,
    ErrorCode.ERR_SYMLINK_TARGET: StringCode.INVALID_PATH,
    ErrorCode.ERR_SPECIAL_FILE: StringCode.INVALID_PATH,
    ErrorCode.ERR_CONFLICT: StringCode.CONFLICT,
    ErrorCode.ERR_REJECTED: StringCode.REJECTED,
    ErrorCode.ERR_NOT_APPROVED: StringCode.NOT_APPROVED,
    ErrorCode.ERR_BINARY_FILE: StringCode.LOAD_ERROR,
    ErrorCode.ERR_NOT_UTF8: StringCode.LOAD_ERROR,
    ErrorCode.ERR_FILE_TOO_LARGE: StringCode.LOAD_ERROR,
    ErrorCode.ERR_IO: StringCode.LOAD_ERROR,
    ErrorCode.ERR_PERMISSION_DENIED: StringCode.LOAD_ERROR,
    ErrorCode.ERR_COMMAND_TIMEOUT: StringCode.TIMEOUT,
    ErrorCode.ERR_COMMAND_KILLED: StringCode.KILLED,
    ErrorCode.ERR_NOT_SANDBOXED: StringCode.NO_SANDBOX,
    ErrorCode.ERR_SANDBOX_FAILED: StringCode.NO_SANDBOX,
}


def told_in_string(error: OperatorError, *, writing: bool = False) -> StringError:
    """`error` in String's form; while writing, a failure that is not the path's or a conflict
    is WRITE_FAILED (LOAD_ERROR is for reading)."""
    code = _CODES.get(error.code, StringCode.WRITE_FAILED)
    if writing and code is StringCode.LOAD_ERROR:
        code = StringCode.WRITE_FAILED
    message = error.message
    return StringError(code, message, *(error.context.split("\n") if error.context else ()))


def not_approved_in_string(request: str, *, runs: bool = False) -> StringError:
    """A change (`runs`: a script) no person was asked about (engine/messages/unattended.py),
    told in String's form."""
    if runs:
        what = f"{request} did not run: no person was asked; nothing ran and nothing changed"
    else:
        what = f"{request} was not applied: no person was asked; nothing changed"
    return StringError(
        StringCode.NOT_APPROVED,
        what,
        "Operator ran this message without a terminal and without --approve; this is not a refusal",
        f"tell the person it waits for their approval: {HOW_TO_APPROVE}",
    )


def check_path(ws: Workspace, path: str) -> Target:
    """The checked Target of a String path, or INVALID_PATH naming the workspace and the path."""
    if path.startswith("/"):
        raise StringError(
            StringCode.INVALID_PATH,
            "path is outside workspace boundary",
            "workspace: ~/",
            f"requested: {path}",
        )
    relative = workspace_relative(path)
    climbed = leaves_workspace(relative)
    if climbed is not None:
        raise StringError(
            StringCode.INVALID_PATH,
            "path traversal not allowed",
            f"resolved: {climbed} (outside workspace)",
        )
    try:
        return ws.target(relative)
    except OperatorError as error:
        raise told_in_string(error) from None


def shown_path(target: Target) -> str:
    """How a response names a checked path: from the workspace root, as ~/notes/a.md."""
    return "~/" if target.rel == "." else f"~/{target.rel}"
