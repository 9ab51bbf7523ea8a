"""A command from asking to answer (shell.run, and String's bash topics through it): the person
asked (the exact script, its folder, its time limit, sandboxed or not, network or not) unless an
always-allow rule of theirs covers it; the script run by bash in the sandbox (sandbox.py) with the
live output announced; then what it changed in the workspace, read from the overlay's upper layer,
is one change-set (changes/changeset) asked about, committed, journalled and undoable like any
write. The journal records every run: script, folder, exit, output file and change-set. What
happened is one record (protocol/outcomes.py `RunOutcome`), made here; the result's words are
rendered from it (protocol/run_text.py), and String's bash topic renders its own from it too.

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

from ...protocol.commands.shell import ShellRun
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.outcomes import ChangesetOutcome, CwdUnknown, RunEnd, RunOutcome, RunOutput
from ...protocol.results import CommandResult, failed
from ...protocol.run_text import run_details, run_failure, run_summary
from ..boundary.target import Target
from ..boundary.workspace import Workspace
from ..changes.apply import apply_plan
from ..changes.changeset.plan import plan_changeset, read_changes
from ..changes.plan import CommandRun, WritePlan
from ..messages.events import CommandOutput
from ..messages.not_approved import not_run
from ..safety.journal import Journal
from ..state.session import state_home
from .environment import command_environment
from .output import OutputLog
from .policy import Answer, RunGrant, ShellPolicy
from .process import Control, Finished, run_process
from .runs import RunFolder
from .sandbox import Sandbox, find_sandbox, hidden_paths

if TYPE_CHECKING:
    from ...protocol.commands.base import Command
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
    "set -o pipefail\n"  # "pytest | tail" fails when pytest does (issue 33): the prompts say so
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
    command: Command,
    *,
    message: int,
    before_commit: Callable[[WritePlan], None] | None,
    action_label: str | None,
    notes: tuple[str, ...] = (),
) -> CommandResult:
    """Ask, run, and apply what the command changed. `notes`: what the person must read before
    anything else (a repeated message's command: MessageContext.execute); such a command is
    asked about on its own, even when an always-allow rule covers its script."""
    if not isinstance(command, ShellRun):
        raise TypeError(f"{command.action} is not a command that runs a program")
    ws, policy = host.workspace, host.shell
    action = action_label or command.action
    where = _folder(ws, command.cwd)
    sandbox = find_sandbox()
    if not sandbox.usable and policy.unsandboxed == "refuse":
        raise OperatorError(
            ErrorCode.ERR_NOT_SANDBOXED,
            f"no sandbox can be had here ({sandbox.why}) and commands without one are not "
            "allowed in this run; nothing ran; ask the person to run it themselves",
        )
    ask = _question(command, where, sandbox, policy, action, notes)
    assert ask.run is not None
    answer: Answer = (
        RunGrant(network=policy.network or policy.allowed_with_network(command.script))
        if sandbox.usable and policy.always_allowed(command.script) and not notes
        else host.ask(ask, message)
    )
    if answer is False:
        return _not_run(host, command, where, ask.run)
    network = answer.network if isinstance(answer, RunGrant) else policy.network
    folder = RunFolder(host.session.state_dir, command.id)
    try:
        ran = _launch(host, command, where, sandbox, folder, network)
        outcome, diff = _outcome(host, command, where, ran, folder, message, before_commit, action)
    finally:
        folder.remove()
    _journal(host, command, action, outcome)
    return _result(command, outcome, diff)


def _question(
    command: ShellRun,
    where: Target,
    sandbox: Sandbox,
    policy: ShellPolicy,
    action: str,
    notes: tuple[str, ...],
) -> WritePlan:
    """The plan of kind "run" the person is asked about (without a sandbox, its `run` says why,
    and the dialog says it in red)."""
    run = CommandRun(
        script=command.script,
        cwd=where.rel,
        timeout_s=command.timeout_s,
        sandboxed=sandbox.usable,
        network=policy.network,
        unsandboxed_why=sandbox.why,
    )
    return WritePlan(
        action=action,
        command_id=command.id,
        target=where,
        kind="run",
        base_hash=None,
        new_bytes=None,
        diff=command.script,
        added=0,
        removed=0,
        summary=f"run {run.first_line}",
        notes=notes,
        asked_alone=bool(notes),
        run=run,
    )


def _not_run(host: ShellHost, command: ShellRun, where: Target, run: CommandRun) -> CommandResult:
    """The answer to a command the person declined, or that no one could be asked about."""
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


def _launch(
    host: ShellHost,
    command: ShellRun,
    where: Target,
    sandbox: Sandbox,
    folder: RunFolder,
    network: bool,
) -> _Ran:
    env, _ = command_environment(os.environ, host.shell.env_allow, sandboxed=sandbox.usable)
    log = OutputLog(folder.output)
    control = Control()
    with tempfile.TemporaryFile(dir=folder.base) as script_file:
        script_file.write(command.script.encode("utf-8", "surrogateescape"))
        script_file.flush()
        script_file.seek(0)
        cwd_r, cwd_w = os.pipe()
        start = _Start(script_file.fileno(), cwd_w)
        argv, start_in = _argv(host, where, sandbox, folder, network, log, start)

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
                    pass_fds=(start.script_fd, start.cwd_fd),
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


class _Start(Struct, frozen=True):
    script_fd: int  # bash reads the script from it
    cwd_fd: int  # bash writes "+" on it as it starts, and its final folder from its EXIT trap


def _argv(
    host: ShellHost,
    where: Target,
    sandbox: Sandbox,
    folder: RunFolder,
    network: bool,
    log: OutputLog,
    start: _Start,
) -> tuple[list[str], str]:
    """The command line that runs the script (in the sandbox when there is one), and the folder
    it is started in."""
    ws = host.workspace
    bash = shutil.which("bash") or "/bin/bash"
    wrapper = _WRAPPER.format(cwd=start.cwd_fd, script=start.script_fd)
    inner = [bash, "--noprofile", "--norc", "-c", wrapper, "bash"]
    folder_path = ws.root.joinpath(*where.parts)
    if not sandbox.usable:
        return inner, str(folder_path)
    hidden = hidden_paths(
        _home(),
        [host.session.state_dir, state_home(), *(Path(path) for path in host.shell.hidden)],
    )
    argv = sandbox.argv(
        workspace=ws.root,
        upper=folder.upper,
        work=folder.work,
        cwd=folder_path,
        network=network,
        command=inner,
        hidden=hidden,
        # A long result says where its whole output is saved: a later command reads it.
        readable=[log.path.parent],
    )
    return argv, str(folder.base)


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # no HOME and no password entry
        return None


def _ended_in(ws: Workspace, finished: Finished) -> tuple[str | None, CwdUnknown, str]:
    """(the workspace-relative folder the command ended in, or None; why it is not known; where
    it ended when that was outside the workspace)."""
    said = finished.cwd
    if said is None:
        if finished.timed_out or finished.stopped or finished.exit is None:
            return None, "stopped", ""
        return None, "no_trap", ""
    path = Path(said)
    if path == ws.root or path.is_relative_to(ws.root):
        return path.relative_to(ws.root).as_posix() or ".", "", ""
    return None, "outside", said


def _end(finished: Finished) -> RunEnd:
    if not finished.started:
        return "not_started"
    if finished.timed_out:
        return "timeout"
    if finished.stopped:
        return "stopped"
    return "signal" if finished.exit is None else "exit"


def _outcome(
    host: ShellHost,
    command: ShellRun,
    where: Target,
    ran: _Ran,
    folder: RunFolder,
    message: int,
    before_commit: Callable[[WritePlan], None] | None,
    action: str,
) -> tuple[RunOutcome, str | None]:
    """The command's record (and the diff of its change-set shown to the person): what it ended
    with, where, its output, and what became of its changes, asked about and applied here."""
    finished, end = ran.finished, _end(ran.finished)
    ended, unknown, outside = _ended_in(host.workspace, finished)
    diff: str | None = None
    if not ran.sandboxed:
        changes = ChangesetOutcome(state="direct")
    elif end == "not_started":
        changes = ChangesetOutcome(state="none")
    elif end != "exit":
        changes = ChangesetOutcome(state="discarded")
    else:
        changes, diff = _changeset(host, command, where, folder, message, before_commit, action)
    outcome = RunOutcome(
        end=end,
        exit=finished.exit,
        signal=finished.signal,
        seconds=finished.seconds,
        timeout_s=command.timeout_s,
        started_in=where.rel,
        ended_in=ended,
        cwd_unknown=unknown,
        outside=outside,
        sandboxed=ran.sandboxed,
        network=ran.network,
        output=_output(ran.log),
        changes=changes,
    )
    return outcome, diff


def _output(log: OutputLog) -> RunOutput:
    kept = log.kept()
    return RunOutput(
        text=kept.text,
        lines=log.line_count,
        bytes=log.bytes,
        cut_lines=kept.cut_lines,
        cut_bytes=kept.cut_bytes,
        saved=str(log.path),
        saved_bytes=log.saved,
    )


def _changeset(
    host: ShellHost,
    command: ShellRun,
    where: Target,
    folder: RunFolder,
    message: int,
    before_commit: Callable[[WritePlan], None] | None,
    action: str,
) -> tuple[ChangesetOutcome, str | None]:
    """The command's change-set asked about and applied: what became of it, and the diff shown."""
    ws = host.workspace
    found = read_changes(ws, folder.upper)
    left = found.left()
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
    except OperatorError as exc:  # changed in the tree behind its back: nothing asked
        return ChangesetOutcome(state="conflict", reason=str(exc), left_out=left), None
    if plan is None:
        return ChangesetOutcome(state="none", left_out=left), None
    assert plan.changes is not None
    applied = apply_plan(host, plan, message, before_commit)
    what = ChangesetOutcome(
        state=applied.verdict,
        summary=plan.changes.describe(),
        entries=plan.changes.entry_records(),
        left_out=left,
        reason=str(applied.error) if applied.error is not None else "",
    )
    if applied.done is not None:
        what = replace(
            what, note=applied.done.note, seq=applied.done.seq, undo_cut=applied.undo_cut
        )
    return what, plan.diff


def _journal(host: ShellHost, command: ShellRun, action: str, outcome: RunOutcome) -> None:
    """Every run is a record of the journal, whatever became of it."""
    Journal(host.session.state_dir).note_run(
        {
            "command_id": command.id,
            "action": action,
            "script": command.script,
            "cwd": outcome.started_in,
            "seconds": round(outcome.seconds, 3),
            "output": outcome.output.saved,
            "sandboxed": outcome.sandboxed,
            "network": outcome.network,
            "exit": outcome.exit,
            "changes": outcome.changes.state,
            "changeset": outcome.changes.seq,
        }
    )


def _result(command: ShellRun, outcome: RunOutcome, diff: str | None) -> CommandResult:
    """The command's result: its summary and details in words (protocol/run_text.py), and the
    record they were rendered from."""
    details = run_details(outcome)
    failure = run_failure(outcome)
    if failure is not None:
        result = failed(command.id, failure, action=command.action, path=outcome.started_in)
        return replace(result, details=details, diff=diff, outcome=outcome)
    return CommandResult(
        id=command.id,
        ok=True,
        summary=run_summary(outcome),
        details=details,
        action=command.action,
        path=outcome.started_in,
        diff=diff,
        outcome=outcome,
    )
