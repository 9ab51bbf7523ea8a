"""String's topic types, one row each (docs/design.md, "The String dialect"): how a block of the
type reads its payload into a request, which handler answers each request, how results name its
commands, how the topic's {variables} go into a request, and what a change of it will touch (a
waiting dialog's outlook). The runner looks a block's type up here and never switches on it; a
new type of topic (an `app:` topic of MCP tools, issue 37) is one row."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from msgspec import Struct

from ...protocol.chanflow.bash import read_bash_payload
from ...protocol.chanflow.commands import (
    Request,
    parse_location,
    read_file_request,
    with_variables,
    workspace_relative,
)
from ...protocol.chanflow.insert import read_insert
from ..messages.outlook import normalised
from . import bash, entries, finding, reading, undoing, writing
from .context import Answer, Call
from .topics import TopicStore

Handler = Callable[[Call], Answer]


class Touches(Struct, frozen=True):
    """What a change of a topic will touch, as a waiting dialog's outlook lists it."""

    action: str  # as the table names it: "/append", "bash"
    path: str  # the file it writes, or the folder a script starts in
    command: str | None = None  # a script: its first line


class TopicType(Struct, frozen=True, kw_only=True):
    name: str  # the type's word in "type:name"
    read: Callable[[str, str], Request]  # (topic, payload) -> the request, or a StringError
    handler: Callable[[Request], Handler]
    action: Callable[[Request], str]  # how results (and the table) name the request's command
    substitute: Callable[[Request, Mapping[str, str]], Request]  # the topic's {variables} put in
    # What a change will touch, read from its request (and the topic's saved state), before it
    # runs; a StringError when that cannot be told.
    touches: Callable[[TopicStore, str, Request], Touches]


_FILE_HANDLERS: dict[str, Handler] = {
    "help": reading.cmd_help,
    "info": reading.cmd_info,
    "ls": reading.cmd_ls,
    "open": reading.cmd_open,
    "back": reading.cmd_back,
    "refresh": reading.cmd_refresh,
    "verify": reading.cmd_verify,
    "set": reading.cmd_set,
    "close": reading.cmd_close,
    "commit": reading.cmd_commit,
    "log": reading.cmd_log,
    "write": writing.cmd_write,
    "append": writing.cmd_append,
    "replace": writing.cmd_replace,
    "insert": writing.cmd_insert,
    "undo": undoing.cmd_undo,
    "find": finding.cmd_find,
    "grep": finding.cmd_grep,
    "tree": finding.cmd_tree,
    "mv": entries.cmd_mv,
    "cp": entries.cmd_cp,
    "rm": entries.cmd_rm,
}


def _file_handler(request: Request) -> Handler:
    if request.name == "edit":  # with content it changes the file; alone it shows it, numbered
        return writing.cmd_edit if request.body is not None else reading.cmd_edit_view
    return _FILE_HANDLERS[request.name]


def _file_touches(store: TopicStore, topic: str, request: Request) -> Touches:
    """The path a file topic's change writes; a place in the topic's current document, or
    /undo's, is not known from the text (the dialog then asks again before `a`)."""
    path = None
    if request.name == "insert":
        path = read_insert(request.argument).location.path
    elif request.name != "undo":
        path = parse_location(request.name, request.argument).path
    shown = (
        normalised(workspace_relative(path)) if path else f"(/{request.name}: a place in the topic)"
    )
    return Touches(f"/{request.name}", shown)


FILE = TopicType(
    name="file",
    read=read_file_request,
    handler=_file_handler,
    action=lambda request: f"/{request.name}",
    substitute=with_variables,
    touches=_file_touches,
)

# A bash topic's: its script (protocol/chanflow/bash.py SCRIPT), and its // commands.
_BASH_HANDLERS: dict[str, Handler] = {
    "bash": bash.cmd_script,
    "info": bash.cmd_info,
    "close": bash.cmd_close,
    "help": bash.cmd_help,
}


def _bash_touches(store: TopicStore, topic: str, request: Request) -> Touches:
    """A script: the folder it starts in (the session's), and its first line."""
    return Touches(request.name, normalised(store.load(topic).cwd), request.line)


BASH = TopicType(
    name="bash",
    read=lambda topic, payload: read_bash_payload(payload),
    handler=lambda request: _BASH_HANDLERS[request.name],
    # A script is "bash"; the topic's own commands are written //info.
    action=lambda request: request.name if request.writes else f"//{request.name}",
    substitute=lambda request, variables: request,  # a script is shell input, as written
    touches=_bash_touches,
)

TOPIC_TYPES: dict[str, TopicType] = {kind.name: kind for kind in (FILE, BASH)}


def topic_type(topic: str) -> TopicType:
    """The type of a topic in its full "type:name" form (one protocol/chanflow/commands.py
    `parse_topic` gave, which serves only the types of this table)."""
    return TOPIC_TYPES[topic.split(":", 1)[0]]
