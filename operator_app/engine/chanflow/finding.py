"""Operator's own String commands that find their way around the workspace, each the engine's own
read run through `MessageContext.execute` (the same walk, skip rules, caps and time limit):
/find GLOB [folder] is fs.find, /grep TEXT [folder] is fs.searchTree ("path:line: text"), /tree
[folder] [depth] is fs.tree. The answer's system message is the read's summary, its content the
entries or matches, and what the walk's record says beyond them (cut short, skipped files) comes
first as context lines, in String's words."""

from __future__ import annotations

from collections.abc import Mapping

from ...protocol.chanflow.arguments import read_arguments
from ...protocol.chanflow.commands import usage_error
from ...protocol.chanflow.errors import StringError
from ...protocol.errors import OperatorError
from ...protocol.outcomes import WalkOutcome
from ...protocol.results import CommandResult
from .actions import command_for
from .context import Answer, Call
from .mapping import check_path, failure_of, in_string_terms

_GREP_FLAGS = ("regex", "ignore-case")
_GREP_VALUED = ("include", "exclude")


def _folder(call: Call, raw: str | None) -> str:
    """The checked folder a command walks (the workspace root when none is named)."""
    return check_path(call.ws, raw or "~").rel


def _run(call: Call, action: str, fields: Mapping[str, object]) -> CommandResult:
    result = call.context.execute(command_for(call, action, fields))
    if not result.ok:
        raise failure_of(result)
    return result


def _answer(call: Call, result: CommandResult, empty: str) -> Answer:
    """The walk's answer, from its record: its rows, and its caveats in String's words."""
    walk = result.outcome
    assert isinstance(walk, WalkOutcome)
    call.outcome = walk
    return Answer(
        in_string_terms(result.summary),
        content="\n".join(row for row in walk.rows if row) or empty,
        path=result.path,
        context=tuple(in_string_terms(caveat) for caveat in walk.caveats),
    )


def cmd_find(call: Call) -> Answer:
    args = read_arguments("find", call.request.argument)
    if not args.words or len(args.words) > 2:
        raise usage_error("find", "/find takes a glob and, if you like, the folder to look in")
    pattern = args.words[0]
    folder = _folder(call, args.words[1] if len(args.words) > 1 else None)
    result = _run(call, "fs.find", {"path": folder, "pattern": pattern})
    return _answer(call, result, "(no entry matches)")


def cmd_grep(call: Call) -> Answer:
    args = read_arguments("grep", call.request.argument, flags=_GREP_FLAGS, valued=_GREP_VALUED)
    if not args.words:
        raise usage_error("grep", "/grep needs the text to look for")
    if len(args.words) > 2:
        raise usage_error(
            "grep",
            f"/grep takes the text and a folder, not {len(args.words)} words; write a text with "
            f'spaces in quotes: /grep "{" ".join(args.words[:-1])}" {args.words[-1]}',
        )
    folder = None
    if len(args.words) == 2:
        folder = _grep_folder(call, args.words)
    fields: dict[str, object] = {
        "path": folder or ".",
        "query": args.words[0],
        "regex": "true" if args.options.get("regex") else "false",
        "ignore_case": "true" if args.options.get("ignore-case") else "false",
    }
    for name in _GREP_VALUED:
        if name in args.options:
            fields[name] = args.options[name]
    return _answer(call, _run(call, "fs.searchTree", fields), "(no line matches)")


def _grep_folder(call: Call, words: tuple[str, ...]) -> str:
    """The folder of `/grep TEXT FOLDER`; a second word that names no folder most likely is the
    rest of a text with spaces written without quotes."""
    target = check_path(call.ws, words[1])
    info = call.ws.lstat(target)
    if info is None:
        raise usage_error(
            "grep",
            f"{words[1]} is not a folder here; to look for text with spaces, write it in "
            f'quotes: /grep "{words[0]} {words[1]}"',
        )
    return target.rel


def cmd_tree(call: Call) -> Answer:
    args = read_arguments("tree", call.request.argument)
    words = list(args.words)
    depth = "3"
    if words and words[-1].isdigit() and (len(words) == 2 or not _exists(call, words[-1])):
        depth = words.pop()
    if len(words) > 1:
        raise usage_error("tree", "/tree takes a folder and a depth (a number), both optional")
    folder = _folder(call, words[0] if words else None)
    result = _run(call, "fs.tree", {"path": folder, "depth": depth})
    return _answer(call, result, "(empty folder)")


def _exists(call: Call, raw: str) -> bool:
    try:
        return call.ws.lstat(check_path(call.ws, raw)) is not None
    except (StringError, OperatorError, OSError):
        return False
