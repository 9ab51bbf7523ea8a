"""String's bash topics on the engine: a script runs as the engine's shell.run action (through
`MessageContext.execute`, so it is asked about, sandboxed, and its changes reviewed, journalled and
undone like any write) in the session's folder; the response is seed 000's bash row, `exit: N |
cwd: ~/folder`, then `---` and the output, rendered from the run's record
(protocol/chanflow/bash.py `script_answer`). The session keeps its folder between blocks and across
restarts (the topic's state file), starting at the workspace root and never outside it: a script
that ends outside (or in a folder that is gone) leaves the session at the root, and the response
says so. Nothing else persists: each script is a new bash. //info, //close and //help are its
String commands."""

from __future__ import annotations

import base64
import os
from datetime import datetime

from ...protocol.chanflow.bash import (
    SCRIPT,
    help_text,
    home,
    script_answer,
    script_failure,
)
from ...protocol.chanflow.errors import StringError
from ...protocol.commands.base import Command
from ...protocol.commands.catalog import model_for
from ...protocol.commands.shell import DEFAULT_TIMEOUT_S
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.outcomes import RunOutcome
from ...protocol.results import CommandResult
from ..changes.plan import WritePlan
from ..shell.sandbox import find_sandbox
from .actions import declined
from .context import Answer, Call
from .mapping import failure_of, not_approved_in_string

TIMEOUT_S = DEFAULT_TIMEOUT_S  # a bash topic's script has no field for it: the default limit


def _folder_now(call: Call) -> tuple[str, str]:
    """The session's folder if it is still a folder of the workspace, else the root and why."""
    cwd = call.topic.cwd or "."
    if cwd == ".":
        return ".", ""
    try:
        target = call.ws.target(cwd)
        if os.path.isdir(target.abs) and call.ws.lstat(target) is not None:
            return call.ws.resolved(target).rel, ""
    except OperatorError:
        pass
    return ".", f"the session's folder {home(cwd)} is gone; this script ran at ~/"


def cmd_script(call: Call) -> Answer:
    state = call.topic
    cwd, note = _folder_now(call)
    command = _command(call, cwd)

    def before_commit(plan: WritePlan) -> None:
        call.record_intent(SCRIPT, plan.target.rel, f"\u2713 {plan.summary}", {})

    state.running = {"pid": os.getpid(), "since": _now(), "script": call.request.line[:200]}
    call.store.save(state)
    try:
        result = call.context.execute(
            command,
            before_commit=before_commit,
            action_label=SCRIPT,
            notes=(call.lookalike,) if call.lookalike else (),
        )
    finally:
        state.running = None
    run = result.outcome if isinstance(result.outcome, RunOutcome) else None
    call.outcome = run
    if run is None or not result.ok:
        raise _not_done(call, result, run, note)
    answer = script_answer(run, note)
    state.cwd = run.ended_in if run.ended_in is not None else "."
    state.last_exit, state.last_at = run.exit, _now()
    return Answer(
        answer.message,
        content=answer.output,
        path=cwd,
        diff=result.diff,
        context=answer.context,
    )


def _command(call: Call, cwd: str) -> Command:
    """The engine's shell.run of the block's script, in the session's folder."""
    script = call.request.body or ""
    model = model_for("shell.run")
    assert model is not None
    return model.model_validate(
        {
            "version": "1",
            "id": call.request_id,
            "action": "shell.run",
            "command_b64": base64.b64encode(script.encode("utf-8", "surrogatepass")).decode(),
            "cwd": cwd,
            "timeout_s": str(TIMEOUT_S),
        }
    )


def _not_done(call: Call, result: CommandResult, run: RunOutcome | None, note: str) -> StringError:
    """The String error of a script that did not run (declined, no one asked, no sandbox) or did
    not finish (a timeout, a stop): the latter with what it printed so far."""
    if result.error_code == ErrorCode.ERR_NOT_APPROVED.value:
        return not_approved_in_string(call.request.line, runs=True)
    if result.status == "rejected":
        script = call.request.body or ""
        more = " ..." if script.strip().count("\n") else ""  # as the dialog named it
        return declined(f"to run {call.request.line}{more}", "nothing ran")
    if run is None:  # it did not start: no sandbox, or its folder refused
        error = failure_of(result)
        return StringError(error.code, error.message, *error.context, *([note] if note else []))
    error = failure_of(result, context=False)
    return StringError(error.code, error.message, *script_failure(run, note))


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _alive(pid: object) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cmd_info(call: Call) -> Answer:
    state = call.topic
    running = state.running
    if running is None:
        now_running = "no"
    elif _alive(running.get("pid")) and running.get("pid") != os.getpid():
        now_running = f"yes, since {running.get('since')}: {running.get('script')}"
    else:
        now_running = "no (Operator stopped while the last script ran)"
    last = f"{state.last_exit} ({state.last_at})" if state.last_exit is not None else "none yet"
    sandbox = find_sandbox()
    lines = [
        f"topic: {state.name}",
        f"cwd: {home(state.cwd)}",
        f"last exit: {last}",
        f"running: {now_running}",
        "sandboxed: yes" if sandbox.usable else f"sandboxed: no ({sandbox.why})",
        "persists: the folder only (each script is a new bash)",
    ]
    return Answer("Session info", content="\n".join(lines))


def cmd_close(call: Call) -> Answer:
    call.store.discard(call.topic.name)
    call.closed = True
    return Answer(f"Closed: {call.topic.name}")


def cmd_help(call: Call) -> Answer:
    return Answer("Bash Session", content=help_text())
