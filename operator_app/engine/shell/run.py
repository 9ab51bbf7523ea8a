"""A command from asking to answer (shell.run, and String's bash topics through it): the person
asked (the exact script, its folder, its time limit, sandboxed or not, network or not) unless an
always-allow rule of theirs covers it; the script run by bash in the sandbox (sandbox.py) with the
live output announced; then what it changed in the workspace, read from the overlay's upper layer,
is one change-set (changes/changeset) asked about, committed, journalled and undoable like any
write. The journal records every run: script, folder, exit, output file and change-set.

Where no sandbox can be had, the command runs only if the front end's policy says the person may
allow it and they do, explicitly; it then changes the tree directly, and its result says so."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct
from msgspec.structs import replace

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.results import CommandResult, count, failed
from ..boundary.target import Target
from ..boundary.workspace import Workspace
from ..changes.changeset.items import left_out_lines
from ..changes.changeset.plan import plan_changeset, read_changes
from ..changes.plan import CommandRun, WritePlan
from ..changes.write import commit
from ..messages.events import CommandOutput
from ..messages.not_approved import NO_REVIEW, not_run
from ..safety.journal import Journal
from ..safety.journal_budget import keep_within_budget
from ..state.session import state_home
from .environment import command_environment
from .output import OutputLog
from .policy import Answer, RunGrant, ShellPolicy
from .process import Control, Finished, run_process
from .runs import RunFolder
from .sandbox import Sandbox, find_sandbox, hidden_paths

if TYPE_CHECKING:
    from ...protocol.commands.shell import ShellRun
    from ..messages.events import EngineEvent
    from ..state.session import Session


class ShellHost(Protocol):
    """What a command needs of the engine (executor.py `Engine`)."""

    workspace: Workspace
    session: Session
    shell: ShellPolicy

    def ask(self, plan: WritePlan, message: int) -> Answer: ...

    @property
    def nobody_to_ask(self) -> bool: ...

    def notify(self, event: EngineEvent) -> None: ...


# The script is read by bash from an inherited descriptor (any size, no argument limit). On
# another, bash says it has started (so a sandbox that could not be built is told from a script
# that failed) and its EXIT trap says where it ended: the next command of a bash topic starts there.
_WRAPPER = (
    "builtin printf '+' >&{cwd}\n"
    'trap \'builtin printf "%s" "$(builtin pwd -P)" >&{cwd}\' EXIT\n'
    ". /dev/fd/{script}\n"
)


class _Ran(Struct, frozen=True):
    finished: Finished
    log: OutputLog
    network: bool
    sandboxed: bool


def _folder(ws: Workspace, cwd: str | None) -> Target:
    target = ws.target(cwd or ".")
    info = ws.lstat(target)
    if info is None:
        raise ws.not_found(target)
    if not os.path.isdir(target.abs):
        raise OperatorError(
            ErrorCode.ERR_NOT_A_DIRECTORY,
            f"cwd {target.rel} is not a folder; give a folder relative to the workspace root "
            "(. for the root)",
        )
    return ws.resolved(target)


def run_command(
    host: ShellHost,
    command: ShellRun,
    *,
    message: int,
    before_commit: Callable[[WritePlan], None] | None,
    action_label: str | None,
    notes: tuple[str, ...] = (),
) -> CommandResult:
    """Ask, run, and apply what the command changed. `notes`: what the person must read before
    anything else (a repeated message's command: MessageContext.execute); such a command is
    asked about on its own, even when an always-allow rule covers its script."""
    ws, policy = host.workspace, host.shell
    action = action_label or command.action
    where = _folder(ws, command.cwd)
    sandbox = find_sandbox()
    script = command.script
    run = CommandRun(
        script=script,
        cwd=where.rel,
        timeout_s=command.timeout_s,
        sandboxed=sandbox.usable,
        network=policy.network,
        unsandboxed_why=sandbox.why,
    )
    if not sandbox.usable and policy.unsandboxed == "refuse":
        raise OperatorError(
            ErrorCode.ERR_NOT_SANDBOXED,
            f"no sandbox can be had here ({sandbox.why}) and commands without one are not "
            "allowed in this run; nothing ran; ask the person to run it themselves",
        )
    ask = WritePlan(
        action=action,
        command_id=command.id,
        target=where,
        kind="run",
        base_hash=None,
        new_bytes=None,
        diff=script,
        added=0,
        removed=0,
        summary=f"run {run.first_line}",
        notes=notes + (() if sandbox.usable else (f"NOT sandboxed: {sandbox.why}",)),
        asked_alone=bool(notes),
        run=run,
    )
    answer: Answer = (
        RunGrant(network=policy.network or policy.allowed_with_network(script))
        if sandbox.usable and policy.always_allowed(script) and not notes
        else host.ask(ask, message)
    )
    if answer is False:
        error = (
            not_run(run.first_line)
            if host.nobody_to_ask
            else OperatorError(
                ErrorCode.ERR_REJECTED,
                f"the person declined to run this command ({run.first_line}); nothing ran; ask "
                "them what they want before trying again",
            )
        )
        return failed(command.id, error, action=command.action, path=where.rel, status="rejected")
    network = answer.network if isinstance(answer, RunGrant) else policy.network
    folder = RunFolder(host.session.state_dir, command.id)
    try:
        ran = _launch(host, command, where, sandbox, folder, network)
        return _answer(host, command, where, ran, folder, message, before_commit, action)
    finally:
        folder.remove()


def _launch(
    host: ShellHost,
    command: ShellRun,
    where: Target,
    sandbox: Sandbox,
    folder: RunFolder,
    network: bool,
) -> _Ran:
    ws = host.workspace
    env, _ = command_environment(os.environ, host.shell.env_allow, sandboxed=sandbox.usable)
    log = OutputLog(folder.output)
    control = Control()
    with tempfile.TemporaryFile(dir=folder.base) as script_file:
        script_file.write(command.script.encode("utf-8", "surrogateescape"))
        script_file.flush()
        script_file.seek(0)
        cwd_r, cwd_w = os.pipe()
        bash = shutil.which("bash") or "/bin/bash"
        inner = [
            bash,
            "--noprofile",
            "--norc",
            "-c",
            _WRAPPER.format(cwd=cwd_w, script=script_file.fileno()),
            "bash",
        ]
        folder_path = ws.root.joinpath(*where.parts)
        if sandbox.usable:
            argv = sandbox.argv(
                workspace=ws.root,
                upper=folder.upper,
                work=folder.work,
                cwd=folder_path,
                network=network,
                command=inner,
                hidden=hidden_paths(
                    _home(),
                    [
                        host.session.state_dir,
                        state_home(),
                        *(Path(path) for path in host.shell.hidden),
                    ],
                ),
                # A long result says where its whole output is saved: a later command reads it.
                readable=[log.path.parent],
            )
            fds: tuple[int, ...] = (script_file.fileno(), cwd_w)
            start_in = str(folder.base)
        else:
            argv, fds, start_in = inner, (script_file.fileno(), cwd_w), str(folder_path)

        def tick(seconds: float) -> None:
            host.notify(
                CommandOutput(command.id, log.live(), seconds, log.line_count, control.stop)
            )

        folder.started_ns = time.time_ns()
        try:
            try:
                finished = run_process(
                    argv,
                    cwd=start_in,
                    env=env,
                    timeout_s=command.timeout_s,
                    log=log,
                    pass_fds=fds,
                    cwd_fd=cwd_r,
                    control=control,
                    tick=tick,
                )
            finally:
                os.close(cwd_w)
        finally:
            os.close(cwd_r)
            log.close()
    host.notify(
        CommandOutput(
            command.id,
            log.live(),
            finished.seconds,
            log.line_count,
            control.stop,
            done=True,
            exit=finished.exit,
        )
    )
    return _Ran(finished, log, network, sandbox.usable)


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # no HOME and no password entry
        return None


def _seconds(value: float) -> str:
    return f"{value:.1f} s"


def _ended_in(ws: Workspace, finished: Finished) -> tuple[str | None, str]:
    """(the workspace-relative folder the command ended in, or None; a note when it is not one)."""
    said = finished.cwd
    if said is None:
        if finished.timed_out or finished.stopped or finished.exit is None:
            return None, "where it ended is not known: it was stopped"
        return None, (
            "where it ended is not known: the script replaced its shell (exec) or its EXIT trap, "
            "which tells it"
        )
    path = Path(said)
    if path == ws.root or path.is_relative_to(ws.root):
        return path.relative_to(ws.root).as_posix() or ".", ""
    return None, f"it ended outside the workspace ({said})"


def _answer(
    host: ShellHost,
    command: ShellRun,
    where: Target,
    ran: _Ran,
    folder: RunFolder,
    message: int,
    before_commit: Callable[[WritePlan], None] | None,
    action: str,
) -> CommandResult:
    ws, finished, log = host.workspace, ran.finished, ran.log
    kept = log.kept()
    output = kept.text
    ended, where_note = _ended_in(ws, finished)
    shown_cwd = ended if ended is not None else where.rel
    record = {
        "command_id": command.id,
        "action": action,
        "script": command.script,
        "cwd": where.rel,
        "seconds": round(finished.seconds, 3),
        "output": str(log.path),
        "sandboxed": ran.sandboxed,
        "network": ran.network,
    }
    journal = Journal(host.session.state_dir)
    header = [
        f"# exit: {finished.exit if finished.exit is not None else 'none'} | cwd: "
        f"{shown_cwd} | {_seconds(finished.seconds)}"
    ]
    if where_note:  # then the cwd above is where it started
        header.append(f"# cwd: it started in {where.rel}; {where_note}")
    failure: OperatorError | None = None
    changes_state = "none"
    if not ran.sandboxed:
        changes_state = "direct"
        header.append(
            "# changes: made directly in the tree (not sandboxed: not reviewed, not undoable)"
        )
    diff: str | None = None
    seq: int | None = None
    if not finished.started:
        failure = OperatorError(
            ErrorCode.ERR_SANDBOX_FAILED,
            "the sandbox could not be set up, so the command did not run: "
            + (output.strip().splitlines() or ["no reason given"])[-1],
        )
        changes_state = "none"
    elif finished.timed_out or finished.stopped or finished.exit is None:
        if finished.timed_out:
            failure = OperatorError(
                ErrorCode.ERR_COMMAND_TIMEOUT,
                f"the command ran past its {command.timeout_s} s limit and was stopped with its "
                "whole process group; its file changes were discarded; send a quicker command or "
                "a larger timeout_s (at most 600)",
            )
        else:
            by = "by the person" if finished.stopped else f"by signal {finished.signal}"
            failure = OperatorError(
                ErrorCode.ERR_COMMAND_KILLED,
                f"the command was stopped {by} after {_seconds(finished.seconds)}; its file "
                "changes were discarded; ask the person before running it again",
            )
        if ran.sandboxed:
            changes_state = "discarded"
            header.append("# changes: discarded (the command did not finish)")
    elif ran.sandboxed:
        changes_state, lines, diff, seq = _changes(
            host, command, where, folder, message, before_commit, action
        )
        header += lines
    if kept.cut_bytes:
        saved = (
            "all of it"
            if log.saved == log.bytes
            else f"its first {log.saved // 2**20} MB (of {log.bytes // 2**20} MB)"
        )
        header.append(
            f"# output: {count(log.line_count, 'line')} ({log.bytes:,} bytes), "
            f"{count(kept.cut_lines, 'line')} ({kept.cut_bytes:,} bytes) cut from the middle; "
            f"{saved}: {log.path}"
        )
    record.update(exit=finished.exit, changes=changes_state, changeset=seq)
    journal.note_run(record)
    details = "\n".join(header) + "\n" + output
    extra: dict[str, object] = {
        "exit": finished.exit,
        "cwd": ended,
        "cwd_note": where_note,
        "seconds": round(finished.seconds, 3),
        "sandboxed": ran.sandboxed,
        "network": ran.network,
        "output_file": str(log.path),
        "lines": log.line_count,
        "cut": kept.cut_lines,
        "cut_bytes": kept.cut_bytes,
        "changes": changes_state,
        "header_lines": len(header),
    }
    undo_cut = next((line[2:] for line in header if line.startswith("# undo depth cut")), None)
    if undo_cut:  # the person hears it too, as for any write (executor.py)
        extra["undo_cut"] = undo_cut
    if failure is not None:
        result = failed(command.id, failure, action=command.action, path=where.rel)
        return replace(result, details=details, extra=extra, diff=diff)
    change_words = {
        "none": "no file changes",
        "direct": "changes made directly (not sandboxed)",
    }.get(changes_state, "")
    changes_line = next((line for line in header if line.startswith("# changes: ")), "")
    place = f"cwd {ended}" if ended is not None else f"started in {where.rel}; {where_note}"
    summary = f"exit {finished.exit} in {_seconds(finished.seconds)} ({place}); " + (
        change_words or "changes " + changes_line.removeprefix("# changes: ")
    )
    if undo_cut:
        summary += f"; {undo_cut}"
    return CommandResult(
        id=command.id,
        ok=True,
        summary=summary,
        details=details,
        action=command.action,
        path=where.rel,
        diff=diff,
        extra=extra,
    )


def _changes(
    host: ShellHost,
    command: ShellRun,
    where: Target,
    folder: RunFolder,
    message: int,
    before_commit: Callable[[WritePlan], None] | None,
    action: str,
) -> tuple[str, list[str], str | None, int | None]:
    """The command's change-set asked about and applied: (what became of it, header lines, the
    diff shown, the journal seq)."""
    ws = host.workspace
    found = read_changes(ws, folder.upper)
    left = [f"# changes: {line}" for line in left_out_lines(found.left())]
    try:
        plan = plan_changeset(
            ws,
            folder.upper,
            found,
            command_id=command.id,
            action=action,
            where=where.rel,
            started_ns=folder.started_ns,
        )
    except OperatorError as exc:
        return "conflict", [f"# changes: not applied ({exc})", *left], None, None
    if plan is None:
        return "none", ["# changes: none", *left], None, None
    assert plan.changes is not None
    described = plan.changes.describe()
    named = f"# entries: {plan.changes.entries()}"
    if host.ask(plan, message) is False:
        if host.nobody_to_ask:  # an always-allowed command with no one to review its changes
            return (
                "not approved",
                [f"# changes: not applied ({NO_REVIEW}): {described}", named, *left],
                plan.diff,
                None,
            )
        return (
            "declined",
            [f"# changes: not applied (the person declined them): {described}", named, *left],
            plan.diff,
            None,
        )
    if before_commit is not None:
        before_commit(plan)
    try:
        outcome = commit(plan, ws, host.session.state_dir)
    except OperatorError as exc:
        state = "conflict" if exc.code is ErrorCode.ERR_CONFLICT else "failed"
        return state, [f"# changes: not applied ({exc})", named, *left], plan.diff, None
    # What a set keeps to be undone counts in the journal's budget like any write's.
    cut = keep_within_budget(host.session.state_dir, outcome.seq, message)
    return (
        "applied",
        [
            f"# changes: {outcome.summary.removeprefix('changes ')}",
            named,
            *left,
            *([f"# {cut}"] if cut else []),
        ],
        plan.diff,
        outcome.seq,
    )
