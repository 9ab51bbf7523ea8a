"""What every headless sub-command opens first, each failure turned into its exit code: the
workspace (exit 3; undo and results take the last one the TUI opened when none is named), its
session in the state folder (exit 5, or 6 where results and undo find none), and the message to
run (exit 4)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .envelope import (
    EXIT_MESSAGE,
    EXIT_NOTHING,
    EXIT_STATE,
    EXIT_WORKSPACE,
    CommandFailed,
    ErrorDetail,
)


def chosen_workspace(raw: str | None, warnings: list[str]) -> str:
    """--workspace, or without it the workspace the TUI opened last, named on stderr (undo and
    results look at a session that already exists: the last one is the likeliest). A UsageError
    that says how to name one when there is none."""
    if raw:
        return raw
    from ..settings import last_workspace
    from .parser import UsageError

    last = last_workspace()
    if last is None:
        raise UsageError(
            "no --workspace given, and no workspace is remembered (the TUI remembers the last one "
            "it opened); name one: --workspace DIR"
        )
    warnings.append(f"using the last workspace, {last} (--workspace names another)")
    return str(last)


def open_workspace(raw: str) -> Any:
    from ..engine import Workspace, WorkspaceUnusable

    try:
        return Workspace(raw)
    except WorkspaceUnusable as exc:
        raise CommandFailed(
            EXIT_WORKSPACE,
            ErrorDetail(
                "WORKSPACE_UNUSABLE",
                str(exc),
                suggestion="pass --workspace with an existing folder you can read",
            ),
        ) from None


def open_session(workspace: Any, state_dir: str | None, *, nothing: str | None = None) -> Any:
    """The session of the workspace. With `nothing` (what results and undo report when there is
    no session at all), a state folder that is not there is not made: they only look."""
    from ..engine import Session, StateUnusable, check_state_location, default_state_dir

    folder = (
        Path(state_dir).expanduser().resolve() if state_dir else default_state_dir(workspace.root)
    )
    try:
        if nothing is None or (folder / "session").is_dir():
            return Session(folder, workspace_root=workspace.root)
        # A state folder the model could reach is refused first, whether or not it holds a session.
        check_state_location(workspace.root, folder)
    except StateUnusable as exc:
        raise CommandFailed(
            EXIT_STATE,
            ErrorDetail(
                "STATE_UNUSABLE",
                str(exc),
                suggestion="pass --state-dir with a writable folder outside the workspace",
            ),
        ) from None
    code = "NO_RESULTS" if nothing == "results" else "NOTHING_TO_UNDO"
    where = "check that --workspace and --state-dir name the folders exec or the TUI used"
    raise CommandFailed(
        EXIT_NOTHING,
        ErrorDetail(
            code,
            f"there is no Operator session in {folder}",
            suggestion=(
                where
                if nothing == "results"
                else where + " (undo --list shows the changes a session can undo)"
            ),
        ),
    )


def read_message(source: str) -> tuple[str, list[str]]:
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise CommandFailed(
            EXIT_MESSAGE,
            ErrorDetail(
                "MESSAGE_UNREADABLE",
                f"cannot read {source}: {exc.strerror or exc}",
                suggestion="pass an existing message file, or - to read standard input",
            ),
        ) from None
    for bom, encoding in (
        (b"\xff\xfe\x00\x00", "utf-32"),
        (b"\x00\x00\xfe\xff", "utf-32"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    ):
        if data.startswith(bom):
            # A UTF-16 (or UTF-32) byte order mark: what Windows PowerShell's > writes. Every
            # block would otherwise vanish into replaced bytes.
            try:
                return data.decode(encoding), [
                    f"the message is {encoding.upper()} (it starts with its byte order mark); "
                    "read as such"
                ]
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        # Text outside the blocks does not matter and a bad byte inside one makes that block
        # ERR_NON_ASCII_IN_CMD, so replace rather than refuse the whole message.
        return data.decode("utf-8", errors="replace"), [
            f"the message is not valid UTF-8 (byte {exc.start}); bad bytes were replaced"
        ]
