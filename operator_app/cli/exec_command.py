"""`operator-app exec`: run one message's commands in the workspace and hand back the result
blocks (or, with --json, the data of the envelope), with the warnings a person running it from a
script needs: writes rejected for want of a terminal, no blocks found, repeats not run again."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .envelope import EXIT_OK, EXIT_STATE, CommandFailed, ErrorDetail
from .inputs import open_session, open_workspace, read_message


def cmd_exec(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from .. import settings
    from ..engine.boundary.secrets import SecretPaths
    from ..engine.executor import Engine, approve_all, reject_all
    from ..protocol.results import render_results

    workspace = open_workspace(args.workspace)
    text, notes = read_message(args.message_file)
    warnings += notes
    session = open_session(workspace, args.state_dir)
    if args.approve == "all":
        decide = approve_all
    elif args.approve == "none":
        decide = reject_all
    else:
        decide = (_ask_on_the_terminal() if sys.stdin.isatty() else None) or reject_all
    rejected_by_default = decide is reject_all and args.approve is None
    from ..engine.state.session import StateUnusable

    try:
        secrets = SecretPaths.configured(*settings.secret_paths(workspace.root))
        engine = Engine(workspace, session, decide=decide, secrets=secrets)
        run = engine.run_text(text, source="exec")
    except StateUnusable as exc:
        raise CommandFailed(
            EXIT_STATE,
            ErrorDetail(
                "STATE_UNUSABLE", str(exc), suggestion="retry when the other process is done"
            ),
        ) from None
    warnings += run.warnings
    if rejected_by_default and any(
        r.status == "rejected" and r.error_code == "ERR_REJECTED" for r in run.results
    ):
        warnings.append(
            "writes were rejected: stdin is not a terminal and no --approve was given (use "
            "--approve all to apply them)"
        )
    declined = [r.path for r in run.results if r.error_code == "ERR_SECRET_DECLINED"]
    if declined and args.approve != "all":
        warnings.append(
            f"reads of files that look like secrets were refused ({', '.join(map(str, declined))}):"
            " exec reads one only with --approve all, or when you say yes on its terminal "
            "(secret_paths in the settings names them)"
        )
    if run.blocks_seen == 0:
        warnings.append("no OPERATOR_CMD or <\U0001d49e=string:...> blocks found in the message")
    for dup in run.duplicates:
        warnings.append(
            f"id {dup.command_id} repeats a command of message {dup.earlier_message}; it was not "
            "run again (its result says so)"
        )
    for wait in session.waits():
        warnings.append(
            f"message {wait.get('message')} of this session waits in another Operator process (pid "
            f"{wait.get('pid')}) for the person's answer to {waiting_write(wait)}; this message "
            "ran meanwhile"
        )
    copy_text = render_results(run.results)
    if not args.json:  # only the envelope carries the data: the blocks are the output
        return EXIT_OK, None, copy_text
    data = {
        "message": run.number,
        "workspace": str(workspace.root),
        "state_dir": str(session.state_dir),
        "blocks": run.blocks_seen,
        "results": [result_json(r) for r in run.results],
        "duplicates": [
            {"id": d.command_id, "message": d.earlier_message, "summary": d.earlier.summary}
            for d in run.duplicates
        ],
        "copy_text": copy_text,
    }
    return EXIT_OK, data, copy_text


def result_json(result: Any) -> dict[str, Any]:
    """A result for the envelope: id and summary exactly as its OPERATOR_RESULT block gives them
    (a String result also names its topic, command line and time, as its response block does)."""
    from ..protocol.results import one_line

    return {
        "id": result.shown_id,
        "action": result.action,
        "path": result.path,
        "ok": result.ok,
        "status": result.status,
        "summary": one_line(result.summary),
        "error_code": result.error_code,
        "details": result.details,
        "truncated": result.truncated,
        "line": result.line,
        "dialect": result.dialect,
        **(
            {"topic": result.topic, "request": result.request, "time": result.at}
            if result.dialect == "string"
            else {}
        ),
    }


def waiting_write(wait: dict[str, Any]) -> str:
    """A write another process waits on consent for, as a person recognises it."""
    return f"{wait.get('action')} of {wait.get('path')} (id {wait.get('id')})"


def _ask_on_the_terminal() -> Any:
    from .terminal import terminal_decider  # only with a terminal to ask on

    return terminal_decider()
