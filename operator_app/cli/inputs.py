"""What every headless sub-command opens first, each failure turned into its exit code: the
workspace (exit 3; undo and results take the one you stand in when none is named), its
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

KNOWN_SHOWN = 10  # workspaces a refusal names


def chosen_workspace(args: Any, warnings: list[str]) -> str:
    """The workspace `undo` and `results` act on: --workspace; else the one you stand in (the
    nearest folder, from the current one up, that is a workspace with a session; with
    --state-dir, the workspace that state folder serves, when you stand in it), named on stderr;
    else a UsageError naming the workspaces that have a session and how to name one. Never the
    TUI's last workspace: standing in one project, an undo must not change another."""
    if args.workspace:
        return str(args.workspace)
    import os

    from ..engine import enclosing_workspace

    state_dir = Path(args.state_dir).expanduser() if args.state_dir else None
    try:
        here = Path(os.getcwd())
    except OSError:  # the current folder was removed
        here = None
    found = enclosing_workspace(here, state_dir) if here is not None else None
    if found is not None:
        warnings.append(f"using the workspace you are in, {found} (--workspace names another)")
        return str(found)
    raise _which_workspace(here, state_dir)


def _which_workspace(here: Path | None, state_dir: Path | None) -> Exception:
    """The refusal when no workspace is named and none holds the current folder: what is known,
    and how to name one."""
    import time

    from ..engine import known_workspaces
    from ..settings import recent_workspaces
    from .parser import UsageError

    where = "the current folder" if here is None else str(here)
    if state_dir is not None:
        from ..engine import recorded_workspace

        served = recorded_workspace(state_dir)
        if served is None:
            return UsageError(
                f"no --workspace given, and the state folder {state_dir} does not say which "
                "workspace it serves; name it: --workspace DIR"
            )
        return UsageError(
            f"no --workspace given, and {where} is not in {served}, the workspace the state "
            f"folder {state_dir} serves; name it: --workspace {served}"
        )
    known = known_workspaces(recent_workspaces())
    if not known:
        return UsageError(
            "no --workspace given, and Operator has no session for any workspace yet (exec and "
            "the TUI make one); name one: --workspace DIR"
        )
    listed = "; ".join(
        f"{each.root} (used {time.strftime('%Y-%m-%d %H:%M', time.localtime(each.last_used))})"
        for each in known[:KNOWN_SHOWN]
    )
    more = f" and {len(known) - KNOWN_SHOWN} more" if len(known) > KNOWN_SHOWN else ""
    return UsageError(
        f"no --workspace given, and {where} is in no workspace Operator has a session for; "
        f"run it from inside one, or name one: --workspace DIR. Workspaces with a session, most "
        f"recent first: {listed}{more}"
    )


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
