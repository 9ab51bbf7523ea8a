"""`operator-app exec`: run one message's commands in the workspace and hand back the result
blocks (or, with --json, the data of the envelope), with the warnings a person running it from a
script needs: writes and commands no one could approve for want of a terminal, no blocks found,
repeats not run again."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Any

from .envelope import EXIT_OK, EXIT_STATE, CommandFailed, ErrorDetail
from .inputs import open_session, open_workspace, read_message


def cmd_exec(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..engine import Engine, StateUnusable, no_person
    from ..protocol import render_results

    if not gc.isenabled():
        # The `operator-app` command pauses the collector for its start-up (entry.py): what the
        # engine's import made (pydantic above all, some hundred thousand objects) lives until
        # the process ends, so it is frozen, and the collections of the run do not walk it again.
        gc.freeze()
        gc.enable()

    workspace = open_workspace(args.workspace)
    text, notes = read_message(args.message_file)
    warnings += notes
    session = open_session(workspace, args.state_dir)
    decide, listener = _deciders(args, workspace.root)
    try:
        run = Engine(
            workspace,
            session,
            decide=decide,
            listener=listener,
            shell=shell_policy(workspace.root, args),
            secrets=secret_paths(workspace.root),
        ).run_text(text, source="exec")
    except StateUnusable as exc:
        raise CommandFailed(
            EXIT_STATE,
            ErrorDetail(
                "STATE_UNUSABLE", str(exc), suggestion="retry when the other process is done"
            ),
        ) from None
    warnings += _run_warnings(run, session, args, nobody_asked=decide is no_person)
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


def _deciders(args: argparse.Namespace, root: Any) -> tuple[Any, Any]:
    """(decide, listener) for the run: --approve's answer, else the terminal's questions (stdin a
    terminal), else no one to ask."""
    from ..engine import approve_all, no_person, reject_all

    if args.approve == "all":
        return approve_all, None
    if args.approve == "none":
        return reject_all, None
    consent = _ask_on_the_terminal(root) if sys.stdin.isatty() else None
    if consent is None:
        return no_person, None
    return consent.decide, consent.heard


def _run_warnings(
    run: Any, session: Any, args: argparse.Namespace, *, nobody_asked: bool
) -> list[str]:
    """What stderr says of the run besides its own warnings: how to approve what no one could,
    secrets declined, no blocks, repeats of earlier messages, waits in other processes."""
    from ..protocol import block_forms

    warnings = list(run.warnings)
    if nobody_asked:
        warnings += how_to_approve(run.results, args)
    warnings += secrets_declined(run.results, args)
    if run.blocks_seen == 0:
        warnings.append(f"no {block_forms()} blocks found in the message")
    for dup in run.duplicates:
        if dup.earlier_message == run.number:
            continue  # a duplicate within the message: its own warning says so
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
    return warnings


def shell_policy(root: Any, args: argparse.Namespace) -> Any:
    """What the person decided about commands: their always-allow rules for this workspace (none
    with --approve none: nothing runs), the network, and whether a command may run unsandboxed."""
    from .. import settings
    from ..engine import Limits, ShellPolicy

    def always_allowed(script: str) -> bool:
        return args.approve != "none" and script in settings.allowed_commands(root)

    def with_network(script: str) -> bool:
        return script in settings.allowed_with_network(root)

    return ShellPolicy(
        always_allowed=always_allowed,
        allowed_with_network=with_network,
        network=bool(args.network) or settings.network_allowed(root),
        env_allow=tuple(settings.env_allowed()),
        env_hide=tuple(settings.env_hidden()),
        limits=Limits.from_settings(settings.command_limits()),
        unsandboxed="ask" if args.allow_unsandboxed else "refuse",
        hidden=(str(settings.config_dir()), *settings.hidden_from_commands()),
    )


def secret_paths(root: Any) -> Any:
    """The paths that look like secrets in this workspace, as the settings name them."""
    from .. import settings
    from ..engine import SecretPaths

    return SecretPaths.configured(*settings.secret_paths(root))


def secrets_declined(results: list[Any], args: argparse.Namespace) -> list[str]:
    """The warning when reads of secret-looking files were refused for want of a yes (whichever
    dialect spells the refusal's code)."""
    from ..protocol import engine_code

    declined = [str(r.path) for r in results if engine_code(r) == "ERR_SECRET_DECLINED"]
    if not declined or args.approve == "all":
        return []
    return [
        f"reads of files that look like secrets were refused ({', '.join(declined)}): exec "
        "reads one only with --approve all, or when you say yes on its terminal (secret_paths "
        "in the settings names them)"
    ]


def result_json(result: Any) -> dict[str, Any]:
    """A result for the envelope: id and summary exactly as its block gives them, what its
    dialect adds (protocol/dialect.py `describe`: what its form says besides them), and the record
    of what it did (`outcome`: a command's exit status, folder, output and change-set; a change's
    moves and hashes; null when nothing is recorded)."""
    from ..protocol import dialect_named, one_line

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
        **dialect_named(result.dialect).describe(result),
        "outcome": result.outcome_json(),
    }


def how_to_approve(results: list[Any], args: argparse.Namespace) -> list[str]:
    """What the person is told on stderr when a write or a command waited for an approval no one
    could give (engine/messages/not_approved.py): which, what did not run after it, and the two
    ways to approve."""
    from ..engine import holds_back

    waiting = [r for r in results if holds_back(r) and r.status == "rejected"]
    if not waiting:
        return []
    import shlex

    first = waiting[0]  # the one: what comes after it is held back, not asked about
    held = sum(1 for r in results if holds_back(r)) - 1
    after = f", and the {plural(held, 'command')} after it did not run" if held else ""
    again = ["operator-app", "exec", "--workspace", args.workspace]
    again += ["--state-dir", args.state_dir] if args.state_dir else []
    file = [args.message_file] if args.message_file != "-" else ["MESSAGE_FILE"]
    return [
        f"no one was asked about {_named(first)}: stdin is not a terminal and no --approve was "
        f"given. {_not_done(first)}{after}; "
        f"the model is told so ({first.error_code}). To decide, run the same message again from "
        "a terminal, with the message in a file, and Operator shows each diff and command and "
        f"asks: {shlex.join(again + file)}; or approve every write and command unseen: "
        f"{shlex.join(again + ['--approve', 'all'] + file)}"
    ]


def _not_done(result: Any) -> str:
    """What became of the write, command or secret read no one was asked about."""
    from ..engine import runs_a_command
    from ..protocol import action_writes

    if runs_a_command(result):
        return "It did not run"
    return "It was not applied" if action_writes(result.action) else "It was not read"


def _named(result: Any) -> str:
    """A write or command as the person recognises it: its id and what it is (the command as
    the model wrote it, when its dialect's answer quotes it)."""
    from ..protocol import action_kind, dialect_named

    request = dialect_named(result.dialect).request(result)
    if request:
        return f"{result.shown_id} ({request})"
    where = "in" if action_kind(result.action) == "run" else "of"
    return f"{result.shown_id} ({result.action} {where} {result.path})"


def plural(n: int, noun: str) -> str:
    return noun if n == 1 else f"{n} {noun}s"


def waiting_write(wait: dict[str, Any]) -> str:
    """A write another process waits on consent for, as a person recognises it."""
    return f"{wait.get('action')} of {wait.get('path')} (id {wait.get('id')})"


def _ask_on_the_terminal(root: Any) -> Any:
    from .terminal import terminal_consent  # only with a terminal to ask on

    return terminal_consent(root)
