"""The String commands that change no file: /help, /info, /ls, /open (a document, a block, some
lines, a kept version), /back, /refresh, /edit without content (the numbered source), /verify,
/set, /close, /commit and /log. What a topic reads is remembered (its hash, for CONFLICT; where it
is, for /back), and each view of a file's lines is recorded (protocol/outcomes.py `ReadOutcome`)
with the answer."""

from __future__ import annotations

import time
from datetime import datetime

from msgspec import Struct

from ...protocol.caps import SHOWN_MAX_BYTES, cap_lines
from ...protocol.chanflow.commands import (
    Location,
    help_text,
    parse_location,
    parse_set,
    usage_error,
)
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.grammar import MAX_VARIABLES
from ...protocol.chanflow.results import confirmation
from ...protocol.errors import OperatorError
from ...protocol.escapes import escape_name as shown_name
from ...protocol.grammar import LARGE_READ_MAX_BYTES
from ...protocol.outcomes import ReadOutcome
from ...protocol.results import count
from ..boundary.views import lines_from, viewed
from .context import Answer, Call
from .documents import (
    LINES_READ_MAX_BYTES,
    SHOW_MAX_BYTES,
    Doc,
    ask_first,
    block_of,
    check_lines,
    decode,
    digest,
    load,
    numbered,
    read_bytes,
    target_of,
)
from .mapping import check_path, told_in_string
from .topics import Place, Version

PREVIEW_LINES = 5  # of a block /verify shows


def cmd_help(call: Call) -> Answer:
    return Answer("String Commands", content=help_text())


def cmd_info(call: Call) -> Answer:
    topic = call.topic
    current = topic.current.shown if topic.current else "(none)"
    kept = sum(len(v) for v in topic.versions.values())
    lines = [
        f"topic: {topic.name}",
        "workspace: ~/",
        f"current: {current}",
        f"history: {count(len(topic.history), 'place')} (/back)",
        f"variables: {', '.join('{' + name + '}' for name in topic.variables) or '(none)'}",
        f"files read: {len(topic.read)}",
        f"changes: {len(topic.changes)} (/undo takes back the last)",
        f"versions: {count(kept, 'version')} of {count(len(topic.versions), 'file')}",
    ]
    return Answer("Session info", content="\n".join(lines))


def cmd_ls(call: Call) -> Answer:
    location = parse_location("ls", call.request.argument or "~")
    path = location.path or "~"
    target = check_path(call.ws, path)
    try:
        entries = call.ws.list_dir(target)
    except OperatorError as error:
        raise told_in_string(error) from None
    suffix = {"dir": "/", "symlink": "@", "other": " (special file)"}
    lines = [
        shown_name(entry.name)
        + (f" ({count(entry.size, 'byte')})" if entry.kind == "file" else suffix[entry.kind])
        for entry in entries
    ]
    shown = path.rstrip("/") + "/"
    listed, left_out = cap_lines(lines, SHOWN_MAX_BYTES)
    note = (
        (
            f"shown: the first {len(listed):,} of {len(lines):,} entries, {SHOWN_MAX_BYTES:,} "
            "bytes being the most one response shows; /ls a subfolder for the rest",
        )
        if left_out
        else ()
    )
    return Answer(
        f"Listing {shown}",
        content="\n".join(listed) or "(empty folder)",
        path=target.rel,
        context=note,
    )


class Shown(Struct, frozen=True):
    """What a location shows of a document: the content, the context lines that say it was cut,
    and which lines it shows (first..last, none when last < first), numbered or not."""

    content: str
    notes: tuple[str, ...]
    first: int
    last: int
    numbered: bool

    def record(self, call: Call, doc: Doc) -> ReadOutcome:
        """The read's record: the answer carries it (protocol/outcomes.py)."""
        return viewed(
            call.ws,
            doc.target,
            doc.data,
            lines=len(doc.lines),
            shown=lines_from(self.first, self.last),
            numbered=self.numbered,
        )


def _show(call: Call, doc: Doc, location: Location, *, numbers: bool = False) -> Shown:
    """The text a location names in the document: whole, a block, or lines (numbered); a block
    or a range is cut, as a whole document is refused, past SHOWN_MAX_BYTES, and says so."""
    lines = doc.lines
    if location.block is not None:
        block = block_of(doc, location.block)
        return _lines_shown(doc, lines, block.first, block.last, numbers=numbers)
    if location.lines is not None:
        first, last = check_lines(doc, location.lines)
        return _lines_shown(doc, lines, first, last, numbers=True)
    if len(doc.data) > SHOW_MAX_BYTES:
        total = len(lines)
        raise StringError(
            StringCode.LOAD_ERROR,
            f"{doc.shown} is {len(doc.data):,} bytes; a whole document is shown up to "
            f"{SHOW_MAX_BYTES:,}",
            f"open a block (#id) or some lines of it: /open ~/{doc.target.rel}:L1-L400 (it has "
            f"{total:,} line{'s' if total != 1 else ''})",
        )
    content = numbered(lines, 1) if numbers else doc.text.text.removesuffix("\n")
    return Shown(content, (), 1, len(lines), numbers)


def _lines_shown(doc: Doc, lines: list[str], first: int, last: int, *, numbers: bool) -> Shown:
    part = lines[first - 1 : last]
    rows = numbered(part, first).split("\n") if numbers and part else part
    kept, left_out = cap_lines(rows, SHOWN_MAX_BYTES)
    if not left_out:
        return Shown("\n".join(kept), (), first, last, numbers)
    end = first + len(kept) - 1
    path = _base_shown(doc.shown)
    note = (
        f"shown: lines {first}-{end} of {first}-{last}, {SHOWN_MAX_BYTES:,} bytes being the most "
        f"one response shows; /open {path}:L{end + 1}-L{last} for the rest"
    )
    return Shown("\n".join(kept), (note,), first, end, numbers)


def _open_place(call: Call, location: Location) -> tuple[Doc, Shown]:
    target, shown = target_of(call, location)
    limit = LINES_READ_MAX_BYTES if location.lines is not None else LARGE_READ_MAX_BYTES
    doc = load(call, target, shown, limit=limit)
    content = _show(call, doc, location)
    call.topic.read[target.rel] = doc.sha
    call.outcome = content.record(call, doc)
    return doc, content


def cmd_open(call: Call) -> Answer:
    if not call.request.argument:
        raise usage_error("open", "/open needs a path")
    location = parse_location("open", call.request.argument)
    if location.version is not None:
        return _open_version(call, location)
    doc, shown = _open_place(call, location)
    call.topic.go_to(Place(doc.target.rel, _base_shown(doc.shown), location.block, location.lines))
    return Answer(
        f"Opened {doc.shown}", content=shown.content, path=doc.target.rel, context=shown.notes
    )


def _base_shown(shown: str) -> str:
    """The path part of a shown location ("notes.md#a" -> "notes.md")."""
    return shown.split("#")[0].split(":L")[0].split("@c")[0]


def _place_location(place: Place) -> Location:
    return Location(None, place.block, place.lines)


def _reopen(call: Call, place: Place) -> tuple[Doc, Shown]:
    target = check_path(call.ws, place.rel)
    shown = Location(place.shown, place.block, place.lines).shown()
    doc = load(call, target, shown)
    content = _show(call, doc, _place_location(place))
    call.topic.read[target.rel] = doc.sha
    call.outcome = content.record(call, doc)
    return doc, content


def cmd_back(call: Call) -> Answer:
    topic = call.topic
    if not topic.history:
        raise StringError(StringCode.NO_HISTORY, "no previous location in this topic")
    place = topic.history.pop()
    topic.current = place
    doc, shown = _reopen(call, place)
    return Answer(
        f"Back to {doc.shown}", content=shown.content, path=doc.target.rel, context=shown.notes
    )


def cmd_refresh(call: Call) -> Answer:
    place = call.topic.current
    if place is None:
        raise usage_error("refresh", "no document is open in this topic: /open one first")
    doc, shown = _reopen(call, place)
    return Answer(
        f"Refreshed {doc.shown}", content=shown.content, path=doc.target.rel, context=shown.notes
    )


def cmd_edit_view(call: Call) -> Answer:
    location = parse_location("edit", call.request.argument)
    target, shown = target_of(call, location)
    doc = load(call, target, shown)
    view = _show(call, doc, location, numbers=True)
    call.topic.read[target.rel] = doc.sha
    call.outcome = view.record(call, doc)
    return Answer(f"[editing: {shown}]", content=view.content, path=target.rel, context=view.notes)


def cmd_verify(call: Call) -> Answer:
    location = parse_location("verify", call.request.argument)
    if location.block is None:
        raise usage_error("verify", "/verify names a block: path#id")
    target, shown = target_of(call, location)
    doc = load(call, target, shown)
    block = block_of(doc, location.block)
    lines = doc.lines[block.first - 1 : block.last]
    preview = numbered(lines[:PREVIEW_LINES], block.first)
    last_shown = block.first + min(len(lines), PREVIEW_LINES) - 1
    call.outcome = Shown(preview, (), block.first, last_shown, True).record(call, doc)
    more = len(lines) - PREVIEW_LINES
    if more > 0:
        preview += f"\n\u2026 ({count(more, 'more line')})"
    span = f"lines {block.first}-{block.last}" if block.last >= block.first else "empty"
    return Answer(
        f"Verified {shown}",
        content=f"{block.kind} block, {span}\n" + (preview or "(empty)"),
        path=target.rel,
    )


def cmd_set(call: Call) -> Answer:
    assignment = parse_set(call.request.argument, call.request.body)
    variables = call.topic.variables
    if assignment is None:
        lines = [f'{{{name}}} = "{value}"' for name, value in variables.items()]
        return Answer("Variables", content="\n".join(lines) or "(none set)")
    name, value = assignment
    if name not in variables and len(variables) >= MAX_VARIABLES:
        raise usage_error("set", f"this topic has {MAX_VARIABLES} variables, the limit")
    variables[name] = value
    return Answer(confirmation(f'{{{name}}} = "{value}"'))


def cmd_close(call: Call) -> Answer:
    current = call.topic.current
    shown = current.shown if current else call.topic.name
    call.store.discard(call.topic.name)
    call.closed = True
    return Answer(confirmation(f"Closed: {shown}"))


def cmd_commit(call: Call) -> Answer:
    location = parse_location("commit", call.request.argument)
    if location.block or location.lines or location.version:
        raise usage_error("commit", "/commit keeps a whole file: name only its path")
    target, shown = target_of(call, location)
    data = read_bytes(call, target, shown=False)  # kept, not shown: no question
    if data is None:
        raise StringError(StringCode.NOT_FOUND, "file not found", f"path: {shown}")
    decode(target, data)  # a version is of a text document
    sha = digest(data)
    assert sha is not None
    versions = call.topic.versions.setdefault(target.rel, [])
    if versions and versions[-1].sha == sha:
        return Answer(
            confirmation(f"{shown} is unchanged since c{versions[-1].number}: no new version"),
            path=target.rel,
        )
    call.store.keep_version(call.topic.name, sha, data)
    number = versions[-1].number + 1 if versions else 1
    versions.append(Version(number, time.time(), sha, len(data)))
    return Answer(
        confirmation(f"Committed: {shown} as c{number} ({count(len(data), 'byte')})"),
        path=target.rel,
    )


def _versions(call: Call, location: Location) -> tuple[str, str, list[Version]]:
    target, shown = target_of(call, location)
    versions = call.topic.versions.get(target.rel, [])
    if not versions:
        raise StringError(
            StringCode.NO_COMMITS,
            f"{_base_shown(shown)} has no commit history",
            "use /commit to create the first snapshot",
        )
    return target.rel, shown, versions


def cmd_log(call: Call) -> Answer:
    location = parse_location("log", call.request.argument)
    rel, shown, versions = _versions(call, Location(location.path))
    lines = [
        f"c{v.number}  {datetime.fromtimestamp(v.time).astimezone().isoformat(timespec='seconds')}"
        f"  {count(v.size, 'byte')}  hash {v.sha[:8]}"
        for v in reversed(versions)
    ]
    listed, left_out = cap_lines(lines, SHOWN_MAX_BYTES)
    note = (
        (
            f"shown: the newest {len(listed):,} of {len(lines):,} versions, {SHOWN_MAX_BYTES:,} "
            "bytes being the most one response shows; open an older one by its number "
            f"(/open {_base_shown(shown)}@c1)",
        )
        if left_out
        else ()
    )
    return Answer(f"Log: {shown}", content="\n".join(listed), path=rel, context=note)


def _open_version(call: Call, location: Location) -> Answer:
    rel, _, versions = _versions(call, Location(location.path))
    wanted = next((v for v in versions if v.number == location.version), None)
    shown = location.shown()
    if wanted is None:
        raise StringError(
            StringCode.VERSION_NOT_FOUND,
            f"version c{location.version} not found",
            f"latest: c{versions[-1].number}",
            f"use /log {_base_shown(shown)} to see available versions",
        )
    try:
        data = call.store.version_bytes(call.topic.name, wanted.sha)
    except OSError as exc:
        raise StringError(
            StringCode.LOAD_ERROR, f"version c{wanted.number} cannot be read ({exc.strerror})"
        ) from None
    target = check_path(call.ws, rel)
    ask_first(call, target)  # a kept version of a secret is one too
    doc = Doc(target, shown, data, decode(target, data))
    # A kept version's lines are not the file's: its view is not recorded as one of the file.
    view = _show(call, doc, Location(None, location.block, location.lines))
    call.topic.go_to(Place(rel, _base_shown(shown)))
    return Answer(f"Opened {shown}", content=view.content, path=rel, context=view.notes)
