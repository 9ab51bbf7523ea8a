"""Operator's own String commands that move, copy and remove whole entries, each the engine's own
change run through `MessageContext.execute`, so it is planned, shown and asked about, committed
all at once, journalled, recovered after a crash and undone (/undo) like any other: /mv FROM TO
is fs.move (a rename is a move in the same folder), /cp FROM TO fs.copy, /rm PATH fs.delete (to
the trash). --overwrite replaces a file at TO, as fs.move's overwrite does. The topic's memory of
what it read follows the entry."""

from __future__ import annotations

from collections.abc import Mapping

from ...protocol.chanflow.arguments import read_arguments
from ...protocol.chanflow.commands import usage_error
from ...protocol.chanflow.results import confirmation
from ...protocol.results import count
from ..changes.plan import WritePlan
from .actions import Changed, Message, command_for, run_change
from .context import Answer, Call
from .mapping import check_path, shown_path


def _execute(call: Call, action: str, fields: Mapping[str, object], message: Message) -> Changed:
    return run_change(call, command_for(call, action, fields), message)


def _two_paths(call: Call) -> tuple[str, str, bool]:
    name = call.request.name
    args = read_arguments(name, call.request.argument, flags=("overwrite",))
    if len(args.words) != 2:
        raise usage_error(
            name,
            f"/{name} takes two paths, FROM and TO, not {len(args.words)}; write a path with "
            'spaces in quotes: "my notes.md"',
        )
    return args.words[0], args.words[1], bool(args.options.get("overwrite"))


def cmd_mv(call: Call) -> Answer:
    raw_from, raw_to, overwrite = _two_paths(call)
    source, dest = check_path(call.ws, raw_from), check_path(call.ws, raw_to)
    message = confirmation(f"Moved: {shown_path(source)} -> {shown_path(dest)}")
    fields = {"path": source.rel, "path_to": dest.rel, "overwrite": str(overwrite).lower()}
    changed = _execute(call, "fs.move", fields, lambda plan: message)
    read = call.topic.read
    for rel in [rel for rel in read if rel == source.rel or rel.startswith(source.rel + "/")]:
        read[dest.rel + rel[len(source.rel) :]] = read.pop(rel)
    return Answer(message, path=source.rel, context=changed.context)


def cmd_cp(call: Call) -> Answer:
    raw_from, raw_to, overwrite = _two_paths(call)
    source, dest = check_path(call.ws, raw_from), check_path(call.ws, raw_to)
    message = confirmation(f"Copied: {shown_path(source)} -> {shown_path(dest)}")
    fields = {"path": source.rel, "path_to": dest.rel, "overwrite": str(overwrite).lower()}
    changed = _execute(call, "fs.copy", fields, lambda plan: message)
    call.topic.read.pop(dest.rel, None)  # what stood there before is gone
    return Answer(message, path=dest.rel, context=changed.context)


def cmd_rm(call: Call) -> Answer:
    args = read_arguments("rm", call.request.argument)
    if len(args.words) != 1:
        raise usage_error(
            "rm", '/rm takes one path; write a path with spaces in quotes: "my notes.md"'
        )
    target = check_path(call.ws, args.words[0])

    def message(plan: WritePlan) -> str:
        what = f"the folder {shown_path(target)}/ ({count(plan.file_count, 'file')})"
        return confirmation(
            f"Removed: {what if plan.is_dir else shown_path(target)} (to the trash; /undo "
            "brings it back)"
        )

    changed = _execute(call, "fs.delete", {"path": target.rel}, message)
    for rel in [r for r in call.topic.read if r == target.rel or r.startswith(target.rel + "/")]:
        del call.topic.read[rel]
    return Answer(message(changed.plan), path=target.rel, context=changed.context)
