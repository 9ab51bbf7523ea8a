"""String's bash topics on the engine: a script runs as the engine's shell.run action (through
`MessageContext.execute`, so it is asked about, sandboxed, and its changes reviewed, journalled and
undone like any write) in the session's folder; the response is seed 000's bash row, `exit: N |
cwd: ~/folder`, then `---` and the output. The session keeps its folder between blocks and across
restarts (the topic's state file), starting at the workspace root and never outside it: a script
that ends outside (or in a folder that is gone) leaves the session at the root, and the response
says so. Nothing else persists: each script is a new bash. //info, //close and //help are its
String commands."""

from __future__ import annotations

import base64
import os
from datetime import datetime

from ...protocol.chanflow.bash import SCRIPT, help_text
from ...protocol.chanflow.errors import StringError
from ...protocol.commands.catalog import model_for
from ...protocol.commands.shell import DEFAULT_TIMEOUT_S
from ...protocol.errors import ErrorCode, OperatorError
from ..changes.plan import WritePlan
from ..shell.sandbox import find_sandbox
from .actions import declined
from .context import Answer, Call
from .mapping import not_approved_in_string, told_in_string

OUTPUT_IN_AN_ERROR = 40  # lines of a stopped script's output its error response shows
TIMEOUT_S = DEFAULT_TIMEOUT_S  # a bash topic's script has no field for it: the default limit


def _home(rel: str | None) -> str:
    return "~/" if rel in (None, ".", "") else f"~/{rel}"


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
    return ".", f"the session's folder {_home(cwd)} is gone; this script ran at ~/"


def _output(details: str | None, header_lines: object) -> tuple[list[str], str]:
    """(the header lines without their "# ", the output) of a shell.run result's details."""
    lines = (details or "").split("\n")
    count = header_lines if isinstance(header_lines, int) else 0
    header = [line.removeprefix("# ") for line in lines[:count]]
    return header, "\n".join(lines[count:])


def cmd_script(call: Call) -> Answer:
    state = call.topic
    cwd, note = _folder_now(call)
    script = call.request.body or ""
    model = model_for("shell.run")
    assert model is not None
    command = model.model_validate(
        {
            "version": "1",
            "id": call.request_id,
            "action": "shell.run",
            "command_b64": base64.b64encode(script.encode("utf-8", "surrogatepass")).decode(),
            "cwd": cwd,
            "timeout_s": str(TIMEOUT_S),
        }
    )

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
    header, output = _output(result.details, result.extra.get("header_lines"))
    context = [line for line in header[1:] if not line.startswith("cwd: ")]
    if note:
        context.insert(0, note)
    if not result.ok:
        if result.error_code == ErrorCode.ERR_NOT_APPROVED.value:
            raise not_approved_in_string(call.request.line, runs=True)
        if result.status == "rejected":
            more = " ..." if script.strip().count("\n") else ""  # as the dialog named it
            raise declined(f"to run {call.request.line}{more}", "nothing ran")
        code = ErrorCode(result.error_code) if result.error_code else ErrorCode.ERR_INTERNAL
        error = told_in_string(OperatorError(code, result.summary.partition(": ")[2]))
        tail = [line for line in output.split("\n") if line][-OUTPUT_IN_AN_ERROR:]
        shown = ["output so far:", *tail] if tail else []
        raise StringError(error.code, error.message, *error.context, *context, *shown)
    ended = result.extra.get("cwd")
    where_note = str(result.extra.get("cwd_note") or "")
    if isinstance(ended, str):
        state.cwd = ended
    else:
        state.cwd = "."
        context.append(f"{where_note}; the session is back at ~/")
    exit_status = result.extra.get("exit")
    state.last_exit = exit_status if isinstance(exit_status, int) else None
    state.last_at = _now()
    return Answer(
        f"exit: {exit_status} | cwd: {_home(state.cwd)}",
        content=output,
        path=cwd,
        diff=result.diff,
        context=tuple(context),
    )


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
        f"cwd: {_home(state.cwd)}",
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
