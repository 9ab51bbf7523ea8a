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
    from ..engine.executor import Engine, approve_all, reject_all
    from ..engine.unattended import no_person
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
        decide = (_ask_on_the_terminal() if sys.stdin.isatty() else None) or no_person
    from ..engine.state.session import StateUnusable

    try:
        run = Engine(workspace, session, decide=decide).run_text(text, source="exec")
    except StateUnusable as exc:
        raise CommandFailed(
            EXIT_STATE,
            ErrorDetail(
                "STATE_UNUSABLE", str(exc), suggestion="retry when the other process is done"
            ),
        ) from None
    warnings += run.warnings
    if decide is no_person:
        warnings += how_to_approve(run.results, args)
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


def how_to_approve(results: list[Any], args: argparse.Namespace) -> list[str]:
    """What the person is told on stderr when writes waited for an approval no one could give
    (engine/unattended.py): which writes, what did not run, and the two ways to approve."""
    import shlex

    from ..engine.unattended import holds_back

    writes = [r for r in results if holds_back(r) and r.status == "rejected"]
    if not writes:
        return []
    held = sum(1 for r in results if holds_back(r)) - len(writes)
    names = ", ".join(
        f"{r.shown_id} ({r.request})" if r.request else f"{r.shown_id} ({r.action} of {r.path})"
        for r in writes
    )
    one = len(writes) == 1
    if held:
        after = f", and the {plural(held, 'command')} after {'it' if one else 'them'} did not run"
    else:
        after = ""
    again = ["operator-app", "exec", "--workspace", args.workspace]
    again += ["--state-dir", args.state_dir] if args.state_dir else []
    file = [args.message_file] if args.message_file != "-" else ["MESSAGE_FILE"]
    return [
        f"no one was asked about {names}: stdin is not a terminal and no --approve was given. "
        f"{'It was' if one else 'They were'} not applied{after}; the model is told so "
        f"({writes[0].error_code}). To decide, run the same message again from a terminal, with "
        "the message in a file, and Operator shows each diff and asks: "
        f"{shlex.join(again + file)}; or apply every write unseen: "
        f"{shlex.join(again + ['--approve', 'all'] + file)}"
    ]


def plural(n: int, noun: str) -> str:
    return noun if n == 1 else f"{n} {noun}s"


def waiting_write(wait: dict[str, Any]) -> str:
    """A write another process waits on consent for, as a person recognises it."""
    return f"{wait.get('action')} of {wait.get('path')} (id {wait.get('id')})"


def _ask_on_the_terminal() -> Any:
    from .terminal import terminal_decider  # only with a terminal to ask on

    return terminal_decider()
