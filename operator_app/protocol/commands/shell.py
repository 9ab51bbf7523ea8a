"""The action that runs a command, an Operator extension of the protocol: shell.run. The script
(one line in `command`, or several in `command_b64`) runs under bash in a folder of the workspace,
after the person's yes, in a sandbox that sees the workspace through an overlay; what it changed
in the tree is a change-set the person reviews like any write (engine/shell)."""

# No "from __future__ import annotations": see base.py.

from typing import Any, Literal, Self

from pydantic import field_validator, model_validator

from ..codec import decode_b64_text
from ..errors import ErrorCode, OperatorError
from .base import Command, spec_field, whole_number

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600


class ShellRun(Command):
    ACTION = "shell.run"
    ONE_OF = ("command", "command_b64")
    RUNS = True
    WRITES = True
    BRIEF = "a bash script run sandboxed; the person reviews its file changes as one change-set"
    NOTES = (
        "Operator extension (not in the original specification). The person is asked before the "
        "script runs (they see",
        "it, its folder, its timeout, whether it is sandboxed and whether it may use the network).",
        "Sandbox (Linux): the workspace is seen through an overlay, so the script never writes "
        "the tree itself; the rest",
        "of the file system is read-only, /tmp is private and empty, there is no network unless "
        "the person allows it,",
        "no standard input (end of file at once). It holds as root too: no capabilities, no new "
        "namespaces, and a seccomp",
        "filter refuses the kernel keyring, ptrace, the mount calls, bpf, perf, io_uring and "
        "vsock (ENOSYS or EPERM).",
        "Host sockets are out of reach (/run and the runtime folder show empty); variables that "
        "look like secrets by",
        "name or value (..._TOKEN, ..._KEY, ..._PWD, ..._DSN, a URL with a password, ...) or "
        "lead to an agent or bus",
        "(SSH_AUTH_SOCK, DBUS_..., DOCKER_HOST, ...) are left out; credential stores (~/.ssh, "
        "~/.aws, ~/.netrc, ~/.pgpass,",
        "...), files named by credential variables and Operator's own folders show empty. "
        "Memory, processes, a file's",
        "size, /tmp and what it writes in the workspace are bounded: past the last it is "
        "stopped (ERR_COMMAND_KILLED);",
        "a refused allocation or fork is the script's own error.",
        "What the script changed, created and deleted in the workspace becomes one change-set, "
        "shown to the person as a",
        "diff per file and applied only on their yes (then undoable like any write). Changes "
        "under ignored paths",
        "(.gitignore, .git/) are listed by folder and never applied: build and use such files in "
        "one script. Nor are",
        "links and special files (fifos, sockets) the script made: the result lists them.",
        "Where no sandbox can be had, the person is told, and the script changes the tree "
        "directly (no review, no undo).",
        "Nothing persists between commands but the files: each runs in a fresh bash, with set -o "
        "pipefail (a pipeline's",
        "exit status is its last failing command's, so pytest | tail fails when pytest does).",
        "Result: ok: true whatever the exit status (the summary gives it). details_b64 starts with "
        '"# exit: N | cwd: PATH | 1.4 s",',
        "then a line on the change-set (applied, not applied, or none) and one naming its "
        'entries ("# entries: src/a.py (changed),',
        'new.txt (created), ...", the first 40), then the output (stdout and stderr as written).',
        "Long output keeps its first and last 100 lines (at most 20,000 bytes each) with "
        '"... N lines cut (M bytes; ...) ..."',
        "between; the whole output (its first 64 MB) is saved and its path given. A timeout is "
        "ERR_COMMAND_TIMEOUT, a stop",
        "by the person or a signal ERR_COMMAND_KILLED: the whole process group is killed and the "
        "changes are discarded.",
    )
    action: Literal["shell.run"]
    command: str | None = spec_field(
        None, doc="one line of bash (required, or command_b64)", code=ErrorCode.ERR_MISSING_COMMAND
    )
    command_b64: str | None = spec_field(
        None,
        doc="a bash script, base64 UTF-8 (several lines; CRLF line ends are taken as LF)",
        code=ErrorCode.ERR_MISSING_COMMAND,
    )
    cwd: str | None = spec_field(
        None,
        doc="the folder to run in, relative to the workspace root (default: the root)",
        code=ErrorCode.ERR_INVALID_PATH,
    )
    timeout_s: int = spec_field(
        DEFAULT_TIMEOUT_S,
        doc=f"seconds before it is stopped, 1 to {MAX_TIMEOUT_S} (default {DEFAULT_TIMEOUT_S})",
        code=ErrorCode.ERR_INVALID_TIMEOUT,
    )

    @field_validator("command_b64")
    @classmethod
    def _decode(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # A script written on Windows (or pasted through one) ends its lines with CRLF; bash
        # would take each CR as part of the line's last word ("cd: $'tests\r'").
        return decode_b64_text(value, field="command_b64").replace("\r\n", "\n")

    @field_validator("timeout_s", mode="before")
    @classmethod
    def _timeout(cls, value: Any) -> int:
        seconds = whole_number(str(value), field="timeout_s", code=ErrorCode.ERR_INVALID_TIMEOUT)
        if seconds > MAX_TIMEOUT_S:
            raise OperatorError(
                ErrorCode.ERR_INVALID_TIMEOUT,
                f"timeout_s is {value}; the limit is {MAX_TIMEOUT_S} seconds; split the work or "
                f"send timeout_s: {MAX_TIMEOUT_S}",
            )
        return seconds

    @model_validator(mode="after")
    def _one_script(self) -> Self:
        if self.command is not None and self.command_b64 is not None:
            raise OperatorError(
                ErrorCode.ERR_DUPLICATE_FIELD,
                "give command or command_b64, not both; keep command_b64 for a script of several "
                "lines",
            )
        if not (self.script or "").strip():
            given = "shell.run requires command or command_b64"
            if self.command_b64 is not None:
                given = "command_b64 decodes to nothing"
            elif self.command is not None:
                given = "command is empty"
            raise OperatorError(
                ErrorCode.ERR_MISSING_COMMAND,
                f'{given}; add "command: <one line of bash>" or "command_b64: <the script, base64 '
                'UTF-8>"',
            )
        return self

    @property
    def script(self) -> str:
        """The script to run, decoded."""
        return self.command_b64 if self.command_b64 is not None else self.command or ""


MODELS = (ShellRun,)
