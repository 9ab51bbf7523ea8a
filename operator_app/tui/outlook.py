"""What a consent dialog can say about the rest of its message: which write of the message this
is ("write 2 of 4") and what `a` (apply the rest) would apply after it. The engine plans a write
only when it reaches it, so this reads the message text the way the engine will: the blocks that
validate as write commands, of both dialects, less those it will skip as repeats of commands
already run. Pure: no disk, no Textual; the runner calls it on its worker thread with the
session's used ids."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine.chanflow.run import request_id
from ..protocol.chanflow.blocks import ChanBlock
from ..protocol.chanflow.commands import (
    BY_NAME,
    parse_location,
    parse_topic,
    read_payload,
    workspace_relative,
)
from ..protocol.chanflow.errors import StringError
from ..protocol.commands import validate_command
from ..protocol.message import scan_whole
from ..protocol.parser import parse_fields

if TYPE_CHECKING:
    from ..engine.state.used_ids import UsedId

DELETE_ACTIONS = (
    "fs.delete",
)  # moves a whole file or folder to the trash (a region delete edits a file)


@dataclass(frozen=True)
class PlannedWrite:
    line: int
    command_id: str
    action: str
    path: str
    path_to: str | None = None  # a copy or move: where the entry goes

    @property
    def deletes(self) -> bool:
        return self.action in DELETE_ACTIONS

    @property
    def where(self) -> str:
        """The path, or for a copy or move both (as WritePlan.where gives them)."""
        return self.path if self.path_to is None else f"{self.path} -> {self.path_to}"


@dataclass(frozen=True)
class WriteOutlook:
    position: int  # this write is write `position` of `total` in its message
    total: int
    rest: tuple[PlannedWrite, ...]  # what `a` applies after this one, in message order
    open_ended: bool  # the message is still arriving: `a` also applies writes not in it yet
    # While it arrives: the outlook as it is now (more writes came, or it ended), for a dialog
    # that stays open (issue 26: "still arriving" 20 s after the answer had ended).
    now: Callable[[], WriteOutlook] | None = field(default=None, compare=False, repr=False)

    def unseen(self, shown_path: str) -> tuple[PlannedWrite, ...]:
        """Writes among the rest that deserve a second look before `a`: a delete, a copy or move
        (it reaches a second path), or a file other than the one whose diff the dialog shows."""
        return tuple(
            write
            for write in self.rest
            if write.deletes or write.path_to is not None or write.path != shown_path
        )

    def asks_again(self, shown_path: str) -> bool:
        return self.open_ended or bool(self.unseen(shown_path))


def normalised(path: str) -> str:
    """The path as the engine names it (a/./b/../c is a/c), from the text alone."""
    parts: list[str] = []
    for name in path.split("/"):
        if name in ("", "."):
            continue
        if name == ".." and parts:
            parts.pop()
        else:
            parts.append(name)
    return "/".join(parts) or "."


def string_write(
    block: ChanBlock, used: Mapping[str, tuple[str, int, object]]
) -> PlannedWrite | None:
    """A String block that changes a file, as the engine will run it; None for any other. Its
    path is the one written (a place in the topic's current document, or /undo's, is not known
    from the text: a dialog then asks again before `a`)."""
    if not block.for_operator or block.is_response or block.fault is not None:
        return None
    try:
        parse_topic(block.topic)
        request = read_payload(block.payload)
        spec = BY_NAME[request.name]
        if not spec.writes or (request.name == "edit" and request.body is None):
            return None
        path = (
            parse_location(request.name, request.argument).path if request.name != "undo" else None
        )
    except StringError:
        return None
    rid = request_id(block.key, used)[0]
    shown = (
        normalised(workspace_relative(path)) if path else f"(/{request.name}: a place in the topic)"
    )
    return PlannedWrite(block.start_line, rid, f"/{request.name}", shown)


def writes_in(
    text: str, used: Mapping[str, tuple[str, int, object]] | None = None
) -> list[PlannedWrite]:
    """Every block of `text` that is a valid write command, of either dialect, in message order."""
    found = []
    for block in scan_whole(text).blocks:
        if isinstance(block, ChanBlock):
            planned = string_write(block, used or {})
            if planned is not None:
                found.append(planned)
            continue
        if block.error is not None:
            continue
        try:
            command = validate_command(parse_fields(block))
        except Exception:
            continue
        if command.WRITES:
            to = command.__dict__.get("path_to")
            found.append(
                PlannedWrite(
                    block.start_line,
                    command.id,
                    command.action,
                    normalised(command.path_or_none or "."),
                    normalised(to) if isinstance(to, str) else None,
                )
            )
    return found


def write_outlook(
    text: str,
    line: int | None,
    command_id: str,
    message: int,
    used: Mapping[str, UsedId],
    *,
    open_ended: bool = False,
) -> WriteOutlook:
    """The outlook of the write `command_id` (whose block starts at `line`) in message `message`
    of `text`. `used`: the session's used ids (Session.used_ids): a write
    whose id an earlier message used does not run (a repeat, or a duplicate id), nor does one
    repeating an id met before it in this message."""
    writes = writes_in(text, used)
    index = next(
        (i for i, w in enumerate(writes) if w.line == line and w.command_id == command_id), None
    )
    if index is None:
        index = next((i for i, w in enumerate(writes) if w.command_id == command_id), None)
    if index is None:  # not in the text as scanned (cut by the window): say only what is known
        return WriteOutlook(1, 1, (), open_ended)
    before = [
        w
        for w in writes[:index]
        if not (w.command_id in used and used[w.command_id].message < message)
    ]
    seen = {command_id}
    rest = []
    for write in writes[index + 1 :]:
        if write.command_id in used or write.command_id in seen:
            continue
        seen.add(write.command_id)
        rest.append(write)
    return WriteOutlook(len(before) + 1, len(before) + 1 + len(rest), tuple(rest), open_ended)
