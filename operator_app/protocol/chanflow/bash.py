"""String's bash topics (`<𝒞=string:bash:NAME>`), pure: the payload is a script (every line of it
shell input, run by bash), unless its first line starts with `//`, which sends a String command
to the topic instead (one slash is stripped: `//info` is /info). Declared once here; the help
text and the system prompt read this table. What a script or a command does is the engine's
(engine/chanflow/bash.py)."""

from __future__ import annotations

from msgspec import Struct

from ..outcomes import RunOutcome
from ..run_text import fact_lines, where_note
from .commands import CommandSpec, Request
from .errors import StringCode, StringError
from .grammar import SIGIL

SCRIPT = "bash"  # the action a script runs as (the table's action column)
OUTPUT_IN_AN_ERROR = 40  # lines of a stopped script's output its error response shows
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        name="info",
        usage=("//info",),
        does="the session: its folder, the last exit status, whether a command runs",
        answer="Session info",
    ),
    CommandSpec(
        name="close",
        usage=("//close",),
        does="end the session: the next script starts at ~/ again",
        answer="Closed: bash:NAME",
    ),
    CommandSpec(name="help", usage=("//help",), does="this help", answer="Bash Session"),
)
BY_NAME = {spec.name: spec for spec in COMMANDS}
SERVED = ", ".join(f"//{spec.name}" for spec in COMMANDS)


def read_bash_payload(payload: str) -> Request:
    """A bash topic's payload: a `//` command, or the script (all of it, as written, but for its
    escaped tags: `<\\/𝒞>` is `</𝒞>`, as in any content, tag_escape.py)."""
    from ..grammar import with_lf_breaks
    from .tag_escape import unescape_tags

    text = unescape_tags(with_lf_breaks(payload))
    first = text.lstrip("\n").split("\n", 1)[0].strip()
    if not first.startswith("//"):
        if not text.strip():
            raise StringError(
                StringCode.INVALID_PARAMS,
                "the block is empty: a bash topic takes a script (plain text) or //info, "
                "//close, //help",
            )
        return Request(first, SCRIPT, "", text, writes=True)
    rest = text.lstrip("\n").split("\n", 1)[1] if "\n" in text.lstrip("\n") else ""
    name, _, argument = first[2:].partition(" ")
    if name not in BY_NAME:
        raise StringError(
            StringCode.COMMAND_UNSUPPORTED,
            f"//{name} is not a command of bash topics",
            f"served: {SERVED}; anything else in a bash topic is the script itself",
        )
    if argument.strip() or rest.strip():
        raise StringError(
            StringCode.INVALID_PARAMS,
            f"//{name} takes nothing after it",
            "send the script in a block of its own",
        )
    return Request(first, name, "", None)


class ScriptAnswer(Struct, frozen=True):
    message: str  # "exit: 0 | cwd: ~/src"
    context: tuple[str, ...]  # what became of its changes, how its output was cut, its folder
    output: str


def home(rel: str | None) -> str:
    """A workspace folder as a bash topic names it: "~/", "~/src"."""
    return "~/" if rel in (None, ".", "") else f"~/{rel}"


def script_answer(run: RunOutcome, note: str = "") -> ScriptAnswer:
    """The response to a script that ran to its end (seed 000's bash row), from its record:
    `exit: N | cwd: ~/folder`, then the facts (its changes, its output cut), and `note` (why it
    ran where it did) first; a script that ended where the session cannot follow leaves it at the
    root, and says so."""
    context = ([note] if note else []) + fact_lines(run)
    if run.ended_in is None:
        context.append(f"{where_note(run)}; the session is back at ~/")
    cwd = run.ended_in if run.ended_in is not None else "."
    return ScriptAnswer(f"exit: {run.exit} | cwd: {home(cwd)}", tuple(context), run.output.text)


def script_failure(run: RunOutcome, note: str = "") -> list[str]:
    """The context lines of the error of a script that did not run to its end: the facts, then
    the output so far (its last lines)."""
    tail = [line for line in run.output.text.split("\n") if line][-OUTPUT_IN_AN_ERROR:]
    shown = ["output so far:", *tail] if tail else []
    return ([note] if note else []) + fact_lines(run) + shown


def help_text() -> str:
    lines = [
        f"Bash topics (<{SIGIL}=string:bash:name>): the block's text is a script, run by bash "
        "(set -o pipefail: a pipeline fails when any command in it does) in the session's "
        "folder, after the person's yes, in a sandbox.",
        "The response: exit: N | cwd: ~/folder, then --- and the output (stdout and stderr as "
        "written; a long one cut to its first and last 100 lines).",
        "Only the folder persists between blocks (and restarts): each script is a new bash, so "
        "variables do not.",
        "What a script changes in the workspace is shown to the person as one change-set and "
        "applied only on their yes; ignored paths (.gitignore, .git/) are never applied.",
    ]
    for spec in COMMANDS:
        lines.append(f"{' | '.join(spec.usage)}")
        lines.append(f"    {spec.does}.")
    return "\n".join(lines)
