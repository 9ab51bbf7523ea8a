"""The String commands Operator serves, declared once (the help text, the system prompt and the
COMMAND_UNSUPPORTED list read this table), and the pure reading of a block: its topic, its
command line and content, a location (`path#block`, `path@c3`, `path:L5-L10`), and `{variable}`
substitution. What a command does with the workspace is the engine's (engine/chanflow/)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from ..grammar import LINE_BREAK_RE, with_lf_breaks
from . import grammar
from .arguments import unquoted
from .errors import StringCode, StringError
from .tag_escape import unescape_tags

Body = Literal["none", "optional", "required"]


class CommandSpec(Struct, frozen=True, kw_only=True):
    name: str
    usage: tuple[str, ...]
    does: str  # one line: the help text and the system prompt say it
    answer: str  # the system message it answers with
    body: Body = "none"  # content on the lines after the command line
    writes: bool = False  # it changes a file: the person is asked first
    own: bool = False  # Operator's own extension of file topics (not in String's documents)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(name="help", usage=("/help",), does="this list", answer="String Commands"),
    CommandSpec(
        name="info",
        usage=("/info",),
        does="the topic's session",
        answer="Session info",
    ),
    CommandSpec(
        name="ls",
        usage=("/ls", "/ls path"),
        does="a folder's entries",
        answer="Listing path/",
    ),
    CommandSpec(
        name="open",
        usage=("/open path", "/open path#block", "/open path:L5-L10", "/open path@c2"),
        does="a document, a block, lines (numbered), or a kept version",
        answer="Opened path",
    ),
    CommandSpec(name="back", usage=("/back",), does="the document before", answer="Back to path"),
    CommandSpec(
        name="refresh",
        usage=("/refresh",),
        does="the current document again",
        answer="Refreshed path",
    ),
    CommandSpec(
        name="edit",
        usage=("/edit path", "/edit path#block"),
        does="alone: the numbered source; with content: replaces it",
        answer="[editing: path] / Edited path",
        body="optional",
        writes=True,
    ),
    CommandSpec(
        name="replace",
        usage=("/replace path:L5-L10", "/replace path#block", "/replace :L5"),
        does="the content replaces those lines or block",
        answer="Replaced path:L5-L10",
        body="required",
        writes=True,
    ),
    CommandSpec(
        name="write",
        usage=("/write path",),
        does="the content becomes the file",
        answer="Written: path (N bytes, N lines)",
        body="required",
        writes=True,
    ),
    CommandSpec(
        name="append",
        usage=("/append path",),
        does="the content goes at the end",
        answer="Appended to: path (now N bytes)",
        body="required",
        writes=True,
    ),
    CommandSpec(
        name="undo",
        usage=("/undo",),
        does="take back this topic's last change",
        answer="Undo: reverted path (N lines)",
        writes=True,
    ),
    CommandSpec(
        name="close",
        usage=("/close",),
        does="end the topic and its state",
        answer="Closed: path",
    ),
    CommandSpec(
        name="set",
        usage=("/set", '/set {name} = "value"', "/set {name}"),
        does="list the variables, or set one",
        answer='Variables / {name} = "value"',
        body="optional",
    ),
    CommandSpec(
        name="verify",
        usage=("/verify path#block",),
        does="check that a block exists",
        answer="Verified path#block",
    ),
    CommandSpec(
        name="commit",
        usage=("/commit path",),
        does="keep the file as a version (c1, c2...)",
        answer="Committed: path as cN",
    ),
    CommandSpec(
        name="log",
        usage=("/log path",),
        does="the versions kept of a file",
        answer="Log: path",
    ),
    CommandSpec(
        name="insert",
        usage=("/insert path:L5", "/insert path#block"),
        does="the content goes after that line or block (--before: before it)",
        answer="path:L5 \u2014 Added N lines as :L6-L8",
        body="required",
        writes=True,
        own=True,
    ),
    CommandSpec(
        name="find",
        usage=("/find GLOB [folder]",),
        does="paths that match (*.py at any depth, src/**/*.ts)",
        answer="N entries match GLOB under folder",
        own=True,
    ),
    CommandSpec(
        name="grep",
        usage=(
            "/grep TEXT [folder] [--regex] [--ignore-case] [--include GLOBS] [--exclude GLOBS]",
        ),
        does='"path:line: text" per line with TEXT',
        answer="N matches for TEXT in N files under folder",
        own=True,
    ),
    CommandSpec(
        name="tree",
        usage=("/tree [folder] [depth]",),
        does="a folder's outline, with sizes",
        answer="Tree of folder to depth N",
        own=True,
    ),
    CommandSpec(
        name="mv",
        usage=("/mv FROM TO [--overwrite]",),
        does="move or rename a file or folder",
        answer="Moved: FROM -> TO",
        writes=True,
        own=True,
    ),
    CommandSpec(
        name="cp",
        usage=("/cp FROM TO [--overwrite]",),
        does="copy a file or folder",
        answer="Copied: FROM -> TO",
        writes=True,
        own=True,
    ),
    CommandSpec(
        name="rm",
        usage=("/rm PATH",),
        does="move a file or folder to the trash",
        answer="Removed: PATH (to the trash)",
        writes=True,
        own=True,
    ),
)
BY_NAME = {spec.name: spec for spec in COMMANDS}
SERVED = ", ".join(f"/{spec.name}" for spec in COMMANDS)


# --- topics ---------------------------------------------------------------------------------

_TOPIC_FORMAT = (
    "format: type:name (e.g. file:main, file:notes, bash:dev)",
    "names: [a-zA-Z0-9_-]+ only \u2014 no dots, no paths",
)


def parse_topic(raw: str | None) -> str:
    """The topic's full "type:name" form: a bare name is file:name, none at all file:main."""
    if raw is None or not raw.strip():
        return grammar.DEFAULT_TOPIC
    raw = raw.strip()
    kind, colon, name = raw.partition(":")
    if not colon:
        kind, name = grammar.SERVED_TOPIC_TYPE, raw
    if kind in grammar.TOPIC_TYPES and kind not in grammar.SERVED_TOPIC_TYPES:
        raise StringError(
            StringCode.INVALID_TARGET,
            f'topic "{raw}" is a {kind}: topic; Operator serves file and bash topics only',
            "use a file topic (string:file:notes) for files, a bash topic (string:bash:dev) to "
            "run commands",
        )
    if kind not in grammar.SERVED_TOPIC_TYPES or not grammar.NAME_RE.fullmatch(name):
        raise StringError(StringCode.INVALID_TARGET, f'invalid topic "{raw}"', *_TOPIC_FORMAT)
    return f"{kind}:{name}"


# --- the payload ----------------------------------------------------------------------------


class Request(Struct, frozen=True):
    line: str  # the command line as written, trimmed
    name: str  # "open" (a bash topic's script: "bash", protocol/chanflow/bash.py)
    argument: str  # the rest of the command line, trimmed
    body: str | None  # the lines after the command line, with "\n" breaks; None when there are none
    # Whether running it may change a file: the person is asked (/edit without content only shows
    # the document; a bash topic's script is asked about and its changes reviewed).
    writes: bool = False


def read_payload(payload: str) -> Request:
    """The command line and the content of a block's payload."""
    head = payload.lstrip()
    match = LINE_BREAK_RE.search(head)
    line, body = (head, None) if match is None else (head[: match.start()], head[match.end() :])
    line = line.strip()
    if body is not None:
        body = unescape_tags(with_lf_breaks(body))
    command = grammar.COMMAND_RE.fullmatch(line)
    if not line.startswith("/") or command is None:
        raise StringError(
            StringCode.COMMAND_UNSUPPORTED, "Commands must start with /. Use /help for details."
        )
    name = command.group(1)
    if name not in BY_NAME:
        raise StringError(
            StringCode.COMMAND_UNSUPPORTED,
            f"/{name} is not a command Operator serves",
            f"served: {SERVED}",
            "/help lists what each one does",
        )
    writes = BY_NAME[name].writes and (name != "edit" or body is not None)
    return Request(line, name, command.group(2).strip(), body, writes)


# The names a model gives a file topic it means as a shell (string:bash is file:bash).
_SHELL_NAMES = frozenset({"bash", "sh", "shell", "terminal", "zsh"})


def read_file_request(topic: str, payload: str) -> Request:
    """A file topic's block read: its command, or the error that refuses it."""
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


def usage_error(name: str, problem: str) -> StringError:
    spec = BY_NAME[name]
    return StringError(StringCode.INVALID_PARAMS, problem, "usage: " + " | ".join(spec.usage))


# --- locations ------------------------------------------------------------------------------


class Location(Struct, frozen=True):
    path: str | None  # as written (None: the topic's current document)
    block: str | None = None  # "#decisions" -> "decisions"
    lines: tuple[int, int] | None = None  # first and last line, 1-based, inclusive
    version: int | None = None  # "@c3" -> 3
    quoted: bool = False  # the path was written in quotes ("my notes.md"): spaces are its own

    def shown(self) -> str:
        """The location as the model wrote it, for system messages ("notes.md#decisions")."""
        text = self.path or ""
        if self.version is not None:  # path@c2, path@c2#id, path@c2:L5-L10
            text += f"@c{self.version}"
        if self.block is not None:
            text += f"#{self.block}"
        if self.lines is not None:
            first, last = self.lines
            text += f":L{first}" + (f"-L{last}" if last != first else "")
        return text


def _number(name: str, digits: str, what: str) -> int:
    """A line or version number as written, or INVALID_PARAMS past grammar.MAX_NUMBER (Python
    refuses to read over 4,300 digits at all; no file has a billion lines)."""
    if len(digits.lstrip("0")) > len(str(grammar.MAX_NUMBER)) or int(digits) > grammar.MAX_NUMBER:
        shown = digits if len(digits) <= 20 else f"{digits[:12]}... ({len(digits)} digits)"
        raise usage_error(name, f"{shown} is too large for {what} (at most {grammar.MAX_NUMBER:,})")
    return int(digits)


def parse_location(name: str, argument: str) -> Location:
    """`path`, `path#block`, `path@c3`, `path:L5`, `path:L5-L10`, or `#block` / `:L5-L10` alone
    for the topic's current document."""
    text = argument.strip()
    version, text = _version(name, text)
    lines, text = _lines(name, text)
    head, hash_mark, tail = text.rpartition("#")
    block = None
    if hash_mark and grammar.BLOCK_ID_RE.fullmatch(tail) and "/" not in tail:
        block, text = tail, head
    if version is None:  # a kept version's block or lines: path@c2#id, path@c2:L5-L10
        version, text = _version(name, text)
    path = text.strip() or None
    if path is not None and path.startswith("@"):
        raise StringError(
            StringCode.NOT_FOUND,
            "shortcut not found",
            f"{path} is not defined: file topics have no shortcuts",
            "name a path (/open ~/notes.md), or find a file by name: /find NAME",
        )
    quoted = path is not None and unquoted(path) != path
    return Location(unquoted(path) if path else None, block, lines, version, quoted)


def _version(name: str, text: str) -> tuple[int | None, str]:
    """The `@cN` a location's text ends with, and the text before it."""
    match = grammar.VERSION_RE.search(text)
    if match is None:
        return None, text
    return _number(name, match.group(1), "a version"), text[: match.start()]


def _lines(name: str, text: str) -> tuple[tuple[int, int] | None, str]:
    """The `:L5` or `:L5-L10` a location's text ends with, and the text before it."""
    match = grammar.LINES_RE.search(text)
    if match is None:
        return None, text
    first = _number(name, match.group(1), "a line number")
    last = _number(name, match.group(2), "a line number") if match.group(2) else first
    if first < 1 or last < first:
        raise usage_error(name, f"lines L{first}-L{last} are not a range of lines")
    return (first, last), text[: match.start()]


def workspace_relative(path: str) -> str:
    """A String path as the workspace's own form: "~/a/b" and "a/b" are "a/b", "~" is "."."""
    if path == grammar.HOME:
        return "."
    if path.startswith(grammar.HOME + "/"):
        rest = path[2:].lstrip("/")
        return rest or "."
    return path


def leaves_workspace(relative: str) -> str | None:
    """Where a relative path that climbs out with ".." lands, relative to the root
    ("../../etc/shadow"), or None when it stays inside (symlinks are the boundary's to check)."""
    normal = posixpath.normpath(relative)
    return normal if normal == ".." or normal.startswith("../") else None


# --- variables ------------------------------------------------------------------------------


def substitute(line: str, variables: Mapping[str, str]) -> str:
    """`line` with each {name} replaced by the topic's value; $NAME is never a variable here."""
    runtime = grammar.RUNTIME_VARIABLE_RE.search(line)
    if runtime:
        raise StringError(
            StringCode.INVALID_VARIABLE,
            f"runtime variable ${runtime.group(1)} cannot be used in commands",
            "$variables are only allowed in document action definitions",
            "use {name} with a value set by /set",
        )

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            raise StringError(
                StringCode.UNDEFINED_VARIABLE,
                f"{{{name}}} is not defined in current session",
                "use /set or an action response template to define it",
            )
        return variables[name]

    return grammar.VARIABLE_RE.sub(value, line)


def with_variables(request: Request, variables: Mapping[str, str]) -> Request:
    """A file topic's request with the topic's {variables} put into its command line (not into
    /set's own, which names them). Only the argument can hold one: the command's name cannot."""
    if request.name == "set":
        return request
    argument = substitute(request.argument, variables).strip()
    return request if argument == request.argument else replace(request, argument=argument)


def parse_set(argument: str, body: str | None = None) -> tuple[str, str] | None:
    """(name, value) of `{name} = "value"`, or of `{name}` with the value on the next line (seed
    003: "Commands with content (/replace, /append, /set) include the content starting from the
    next line"); None for a bare /set (the list)."""
    if not argument:
        if body is not None:
            raise usage_error("set", "/set names the variable: /set {name}, the value below it")
        return None
    alone = grammar.VARIABLE_RE.fullmatch(argument.strip())
    if alone is not None:
        if body is None:
            raise usage_error(
                "set", f"no value for {{{alone.group(1)}}}: give it after = or on the next line"
            )
        name, value = alone.group(1), body.removesuffix("\n")
    else:
        match = grammar.SET_RE.fullmatch(argument)
        if match is None:
            raise usage_error("set", f"cannot read {argument!r} as an assignment")
        name, value = match.group(1), match.group(2).strip()
        if body is not None:
            raise usage_error("set", "the value is given twice: after = and on the next line")
        if not value:
            raise usage_error(
                "set", f'no value after =: /set {{{name}}} = "value" (an empty value is written "")'
            )
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
    if len(value) > grammar.MAX_VALUE_CHARS:
        raise usage_error(
            "set", f"the value is {len(value)} characters; the limit is {grammar.MAX_VALUE_CHARS}"
        )
    if "\n" in value or "\r" in value:
        raise usage_error("set", "a value is one line")
    return name, value


def help_text() -> str:
    lines = [f"Commands for file topics (<{grammar.SIGIL}=string:file:name>):"]
    for spec in COMMANDS:
        if spec.own and not COMMANDS[COMMANDS.index(spec) - 1].own:
            lines.append("Operator's own (not in String's specification):")
        lines.append(f"{' | '.join(spec.usage)}")
        content = {"required": " (content on the next lines)", "optional": "", "none": ""}[
            spec.body
        ]
        asks = " The person is asked first." if spec.writes else ""
        lines.append(f"    {spec.does}{content}.{asks}")
    lines += [
        "Paths: ~/ is the workspace root; a relative path is relative to it.",
        "Blocks (#id): <!-- #id --> ... <!-- /id -->, a heading's slug (## Decisions -> "
        "#decisions), or an OPERATOR_BEGIN id / OPERATOR_END id region.",
    ]
    return "\n".join(lines)
