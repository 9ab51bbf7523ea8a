"""Between the two dialects: a String path checked by the workspace boundary exactly as an
OPERATOR_CMD path is (`~/` is the root), and an engine error told in String's terms: the String
code that fits (docs/design.md, "The String dialect"), the engine's message kept, and context
lines that say what to do (the workspace and the path asked for, a file's line count)."""

from __future__ import annotations

import os
import re
from pathlib import PurePosixPath

from ...protocol.chanflow.commands import leaves_workspace, workspace_relative
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.errors import HOW_TO_APPROVE, ErrorCode, OperatorError
from ...protocol.results import CommandResult
from ..boundary.target import Target
from ..boundary.workspace import Workspace

# Engine codes -> String's. What is not here is a write that could not be made: WRITE_FAILED.
_CODES: dict[ErrorCode, StringCode] = {
    ErrorCode.ERR_NOT_FOUND: StringCode.NOT_FOUND,
    ErrorCode.ERR_SECRET_DECLINED: StringCode.SECRET_DECLINED,
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
    # what Operator's own commands (/find, /grep, /tree, /mv, /cp, /rm) can be told
    ErrorCode.ERR_INVALID_PATTERN: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_INVALID_FLAG: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_INVALID_DEPTH: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_MISSING_PATTERN: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_MISSING_QUERY: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_PATTERN_TOO_COSTLY: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_TARGET_EXISTS: StringCode.INVALID_PATH,
    ErrorCode.ERR_INVALID_PATH_TO: StringCode.INVALID_PATH,
    ErrorCode.ERR_DELETE_ROOT: StringCode.INVALID_PATH,
    ErrorCode.ERR_SYMLINK_WOULD_ESCAPE: StringCode.INVALID_PATH,
    ErrorCode.ERR_LINES_MOVED: StringCode.LINES_MOVED,
    ErrorCode.ERR_INTERNAL: StringCode.INTERNAL,
    # what a bash: topic's script can be told
    ErrorCode.ERR_MISSING_COMMAND: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_INVALID_TIMEOUT: StringCode.INVALID_PARAMS,
    ErrorCode.ERR_COMMAND_TIMEOUT: StringCode.TIMEOUT,
    ErrorCode.ERR_COMMAND_KILLED: StringCode.KILLED,
    ErrorCode.ERR_NOT_SANDBOXED: StringCode.NO_SANDBOX,
    ErrorCode.ERR_SANDBOX_FAILED: StringCode.NO_SANDBOX,
}


def told_in_string(error: OperatorError, *, writing: bool = False) -> StringError:
    """`error` in String's form; while writing, a failure that is not the path's or a conflict
    is WRITE_FAILED (LOAD_ERROR is for reading). What the engine says is said in String's terms
    (in_string_terms): a String error never advises an OPERATOR_CMD action."""
    code = _CODES.get(error.code, StringCode.WRITE_FAILED)
    if writing and code is StringCode.LOAD_ERROR:
        code = StringCode.WRITE_FAILED
    context = error.context.split("\n") if error.context else ()
    return StringError(
        code, in_string_terms(error.message), *(in_string_terms(line) for line in context)
    )


def failure_of(
    result: CommandResult, *, writing: bool = False, context: bool = True
) -> StringError:
    """The String error of an engine action's failed result: its error's code and message, and
    (`context`) its details, the error's context."""
    try:
        code = ErrorCode(result.error_code or "")
    except ValueError:
        code = ErrorCode.ERR_INTERNAL
    message = result.error_message or result.summary
    error = OperatorError(code, message, result.details if context else None)
    return told_in_string(error, writing=writing)


# What the engine's messages (written for OPERATOR_CMD) name, in String's words: its actions are
# String's commands, its fields String's arguments and options.
_ACTIONS = {
    "fs.list": "/ls",
    "fs.read": "/open",
    "fs.readSlice": "/open path:L1-L400",
    "fs.search": "/grep",
    "fs.searchTree": "/grep",
    "fs.find": "/find",
    "fs.tree": "/tree",
    "fs.stat": "/ls",
    "fs.write": "/write",
    "fs.applyEdits": "/replace",
    "fs.patch": "/replace",
    "fs.insertRegion": "/replace",
    "fs.replaceRegion": "/replace",
    "fs.deleteRegion": "/replace",
    "fs.readRegion": "/open path#id",
    "fs.listRegions": "/verify",
    "fs.delete": "/rm",
    "fs.copy": "/cp",
    "fs.move": "/mv",
    "fs.rename": "/mv",
}
_ACTION_RE = re.compile(r"\bfs\.[A-Za-z]+")
_FIELDS = (
    ("overwrite: true", "--overwrite"),
    ("regex: true", "--regex"),
    ("send regex: false", "leave out --regex"),
    ("regex: false", "no --regex"),
    ("ignore_case", "--ignore-case"),
    ("use include or exclude", "use --include or --exclude"),
    ("path, include or exclude", "the folder, --include or --exclude"),
    ("path_to", "TO"),
    ("content_b64", "the content"),
    ("send a quicker command or a larger timeout_s (at most 600)", "send a quicker script"),
    ("OPERATOR_CMD ", ""),
)


def in_string_terms(text: str) -> str:
    """A message of the engine's with its OPERATOR_CMD actions and fields named as String's
    commands and options ("check with fs.list" -> "check with /ls")."""
    if "fs." in text:
        text = _ACTION_RE.sub(lambda m: _ACTIONS.get(m.group(), "Operator"), text)
    for field, option in _FIELDS:
        if field in text:
            text = text.replace(field, option)
    return text


def not_approved_in_string(
    request: str, *, runs: bool = False, reading: bool = False
) -> StringError:
    """A change (`runs`: a script; `reading`: a read of a secret-looking file) no person was
    asked about (engine/messages/not_approved.py), told in String's form."""
    if runs:
        what = f"{request} did not run: no person was asked; nothing ran and nothing changed"
    elif reading:
        what = f"{request} was not read: it looks like a secret, and no person was asked"
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
        inside = PurePosixPath(os.path.normpath(path))
        if inside.is_relative_to(ws.root):
            # Named from the root, not quoted: what a model is told has the workspace's own path
            # made relative (internal_failure.py), so "requested: README.md" read as outside.
            rel = inside.relative_to(ws.root).as_posix()
            raise StringError(
                StringCode.INVALID_PATH,
                "an absolute path is not taken, even one inside the workspace",
                f"send it from the root: ~/{'' if rel == '.' else rel}",
            )
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
