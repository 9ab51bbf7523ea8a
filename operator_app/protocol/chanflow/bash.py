"""String's bash topics (`<𝒞=string:bash:NAME>`), pure: the payload is a script (every line of it
shell input, run by bash), unless its first line starts with `//`, which sends a String command
to the topic instead (one slash is stripped: `//info` is /info). Declared once here; the help
text and the system prompt read this table. What a script or a command does is the engine's
(engine/chanflow/bash.py)."""

from __future__ import annotations

from .commands import CommandSpec, Request, read_payload
from .errors import StringCode, StringError
from .grammar import BASH_TOPIC_TYPE, SIGIL

SCRIPT = "bash"  # the action a script runs as (the table's action column)
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


def is_bash(topic: str) -> bool:
    return topic.partition(":")[0] == BASH_TOPIC_TYPE


def read_request(topic: str, payload: str) -> Request:
    """A block's request, read as its topic's type reads payloads."""
    if is_bash(topic):
        return read_bash_payload(payload)
    try:
        return read_payload(payload)
    except StringError as error:
        name = topic.rpartition(":")[2]
        if name in _SHELL_NAMES and error.code is StringCode.COMMAND_UNSUPPORTED:
            # string:bash is the file topic "bash" (a bare name is file:NAME): a script meant
            # for a bash topic, which needs a name of its own.
            raise StringError(
                error.code,
                error.message,
                *error.context,
                f"to run a script, tag it string:bash:NAME (string:{name} is the file topic "
                f"file:{name})",
            ) from None
        raise


_SHELL_NAMES = frozenset({"bash", "sh", "shell", "terminal", "zsh"})


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


def help_text() -> str:
    lines = [
        f"Bash topics (<{SIGIL}=string:bash:name>): the block's text is a script, run by bash in "
        "the session's folder, after the person's yes, in a sandbox.",
        "The response: exit: N | cwd: ~/folder, then --- and the output (stdout and stderr as "
        "written).",
        "Only the folder persists between blocks (and restarts): each script is a new bash, so "
        "variables do not.",
        "What a script changes in the workspace is shown to the person as one change-set and "
        "applied only on their yes; ignored paths (.gitignore, .git/) are never applied.",
    ]
    for spec in COMMANDS:
        lines.append(f"{' | '.join(spec.usage)}")
        lines.append(f"    {spec.does}.")
    return "\n".join(lines)
