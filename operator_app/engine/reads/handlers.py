"""The read-only actions: each takes a validated command and the workspace and returns one
result. They never change anything, so they run at once, without asking."""

from __future__ import annotations

import json
import stat as stat_module
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ...protocol.caps import SHOWN_MAX_BYTES, cap_lines
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.escapes import escape_name
from ...protocol.grammar import LARGE_READ_MAX_BYTES
from ...protocol.outcomes import ReadOutcome
from ...protocol.results import CommandResult, count
from ..boundary.views import lines_from, spans, viewed
from ..boundary.workspace import Target, Workspace
from ..textops.textfile import TextDoc, decode_text, split_lines
from .context import MATCH_DISPLAY_LIMIT, ReadContext, matching_lines

if TYPE_CHECKING:  # each command's family is declared only when a command of it is validated
    from ...protocol.commands.base import Command
    from ...protocol.commands.info import GetCommentStyle, GetInterfaceSpec
    from ...protocol.commands.navigation import FsFind, FsSearchTree, FsTree
    from ...protocol.commands.reading import (
        FsList,
        FsRead,
        FsReadSlice,
        FsSearch,
        FsStat,
    )
    from ...protocol.commands.regions import CommentStyleFields, FsListRegions, FsReadRegion

LINE_DISPLAY_LIMIT = 4000  # a minified line would otherwise fill the chat on its own


def _ok(
    cmd: Command,
    summary: str,
    details: str | None = None,
    *,
    path: str | None = None,
    truncated: bool = False,
    outcome: ReadOutcome | None = None,
) -> CommandResult:
    return CommandResult(
        id=cmd.id,
        ok=True,
        summary=summary,
        details=details,
        action=cmd.action,
        path=path,
        truncated=truncated,
        outcome=outcome,
    )


def _clip(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]} [... {len(line) - limit} more characters]"


def _file_target(
    ws: Workspace, raw: str, *, dir_code: ErrorCode = ErrorCode.ERR_NOT_A_FILE
) -> Target:
    target = ws.target(raw)
    st = ws.lstat(target)
    if st is not None and stat_module.S_ISLNK(st.st_mode):
        # A symlink inside the workspace (target() checked it stays inside) is read through, so
        # what it leads to decides: a link to a folder is a folder here too.
        st = ws.lstat(ws.resolved(target))
    if st is not None and stat_module.S_ISDIR(st.st_mode):
        if dir_code is ErrorCode.ERR_SEARCH_PATH_IS_DIR:
            raise OperatorError(
                dir_code,
                f"{target.rel} is a folder; fs.search reads "
                "one file, use fs.searchTree for a folder",
            )
        raise OperatorError(
            dir_code,
            f"{target.rel} is a folder, not a file; list it "
            "with fs.list or search it with fs.searchTree",
        )
    return target


def _read_doc(
    ws: Workspace, target: Target, *, max_bytes: int, action: str
) -> tuple[bytes, TextDoc]:
    try:
        data = ws.read_file(target, max_bytes=max_bytes)
    except OperatorError as exc:
        if exc.code is ErrorCode.ERR_FILE_TOO_LARGE:
            size = ws.file_size(target)
            # Every action that reads through here has the same 2,000,000-byte limit, and
            # fs.searchTree skips files over 500,000 bytes: no other read can help.
            raise OperatorError(
                ErrorCode.ERR_FILE_TOO_LARGE,
                (
                    f"{target.rel} is {size} bytes, over the {max_bytes}-byte "
                    f"limit of {action}; no read action takes a file this large; "
                    "ask the person for the part you need, or to split the file"
                ),
            ) from None
        raise
    return data, TextDoc.decode(data, label=target.rel)


def get_interface_spec(cmd: GetInterfaceSpec, ctx: ReadContext) -> CommandResult:
    from ...protocol.spec import interface_text

    text = interface_text()
    return _ok(
        cmd, f"Operator Interface Specification (version: 3), {len(split_lines(text))} lines", text
    )


def get_comment_style(cmd: GetCommentStyle, ctx: ReadContext) -> CommandResult:
    from ...protocol.comments import LANGUAGES, all_styles_payload

    if cmd.language is not None:
        style = LANGUAGES[cmd.language]
        payload = style.payload(cmd.language)
        shown = (
            style.line_prefix
            if style.kind == "line"
            else f"{style.block_start} ... {style.block_end}"
        )
        return _ok(
            cmd, f"Comment style for {cmd.language}: {style.kind} {shown}", json.dumps(payload)
        )
    payload_all = all_styles_payload()
    return _ok(cmd, f"{len(payload_all['styles'])} comment styles", json.dumps(payload_all))


def fs_list(cmd: FsList, ctx: ReadContext) -> CommandResult:
    target = ctx.workspace.target(cmd.path)
    entries = ctx.workspace.list_dir(target)
    suffix = {"dir": "/", "symlink": "@", "file": "", "other": " (special file)"}
    # Control characters are escaped: a name holding a line break would read as two entries.
    lines = [escape_name(entry.name) + suffix[entry.kind] for entry in entries]
    kinds: Counter[str] = Counter(entry.kind for entry in entries)
    shown = "the workspace root" if target.rel == "." else target.rel
    if not entries:
        return _ok(cmd, f"Listed {shown}: empty folder", path=target.rel)
    parts = [count(kinds["dir"], "folder"), count(kinds["file"], "file")]
    parts += [
        count(kinds[kind], noun)
        for kind, noun in (("symlink", "symlink"), ("other", "special file"))
        if kinds[kind]
    ]
    counts = f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}: {', '.join(parts)}"
    listed, left_out = cap_lines(lines)
    if not left_out:
        return _ok(cmd, f"Listed {shown} ({counts})", "\n".join(listed), path=target.rel)
    summary = (
        f"Listed {shown} ({counts}); only the first {len(listed):,} are listed, "
        f"{SHOWN_MAX_BYTES:,} bytes being the most one answer shows (truncated): list a "
        "subfolder, or use fs.find with a pattern"
    )
    return _ok(cmd, summary, "\n".join(listed), path=target.rel, truncated=True)


def fs_read(cmd: FsRead, ctx: ReadContext) -> CommandResult:
    ws = ctx.workspace
    target = _file_target(ws, cmd.path)
    try:
        data = ws.read_file(target, max_bytes=cmd.MAX_BYTES)
    except OperatorError as exc:
        if exc.code is not ErrorCode.ERR_FILE_TOO_LARGE:
            raise
        size = ws.file_size(target)
        # The spec fixes this summary word for word.
        return CommandResult(
            id=cmd.id,
            ok=False,
            summary=f"File too large for fs.read ({size} bytes). Use fs.readSlice.",
            action=cmd.action,
            path=target.rel,
            error_code=ErrorCode.ERR_FILE_TOO_LARGE.value,
            status="failed",
        )
    text = decode_text(data, label=target.rel)
    notes = []
    if data.startswith(b"\xef\xbb\xbf"):
        notes.append("UTF-8 with BOM")
    if b"\r\n" in data:
        notes.append("CRLF line endings")
    if data and not data.endswith(b"\n"):
        notes.append("no newline at end of file")
    extra = f"; {', '.join(notes)}" if notes else ""
    total = len(split_lines(text))
    summary = f"Read {target.rel} ({count(len(data), 'byte')}, {count(total, 'line')}{extra})"
    record = viewed(ws, target, data, lines=total, shown=lines_from(1, total), numbered=False)
    return _ok(cmd, summary, text, path=target.rel, outcome=record)


def fs_read_slice(cmd: FsReadSlice, ctx: ReadContext) -> CommandResult:
    target = _file_target(ctx.workspace, cmd.path)
    data, doc = _read_doc(ctx.workspace, target, max_bytes=cmd.MAX_BYTES, action="fs.readSlice")
    lines = split_lines(doc.text)
    total = len(lines)
    if cmd.start > max(total, 1):
        raise OperatorError(
            ErrorCode.ERR_INVALID_READSLICE_PARAMS,
            (
                f"start {cmd.start} is past the end of {target.rel} "
                f"({total} lines); use a start between 1 and {max(total, 1)}"
            ),
        )
    count = min(cmd.lines, cmd.MAX_LINES)
    first, last = cmd.start, min(total, cmd.start + count - 1)
    header = [f"# path: {target.rel}"]
    if total == 0:
        header.append("# lines: none (the file is empty)")
    else:
        end_note = " (end of file)" if last == total else ""
        header.append(f"# lines: {first}-{last} of {total}{end_note}")
    if cmd.lines > cmd.MAX_LINES:
        header.append(f"# note: lines {cmd.lines} clamped to the maximum of {cmd.MAX_LINES}")
    if doc.newline == "\r\n":
        header.append("# line endings: CRLF (shown without the CR; edits keep CRLF)")
    if last == total and total and not doc.final_newline:
        header.append("# no newline at end of file")
    clipped = False
    body = []
    for number in range(first, last + 1):
        line = lines[number - 1]
        clipped |= len(line) > LINE_DISPLAY_LIMIT
        body.append(f"{number}: {_clip(line, LINE_DISPLAY_LIMIT)}")
    if clipped:
        header.append(f"# note: lines over {LINE_DISPLAY_LIMIT} characters are cut")
    shown = f"lines {first}-{last} of {total}" if total else "(empty file, 0 lines)"
    record = viewed(
        ctx.workspace,
        target,
        data,
        lines=total,
        shown=lines_from(first, last),
        numbered=True,
    )
    return _ok(
        cmd,
        f"Read {target.rel} {shown}",
        "\n".join(header + body),
        path=target.rel,
        outcome=record,
    )


def _search_lines(cmd: FsSearch, data: bytes, doc: TextDoc) -> tuple[list[tuple[int, str]], int]:
    """The first matching lines (number, text) and how many match in all: a plain query's in
    the text, a regex or ignore_case one's through the search's matcher (reads/matcher.py)."""
    if not (cmd.regex or cmd.ignore_case):
        return matching_lines(doc.text, cmd.text, cmd.MAX_MATCHES)
    from ...protocol.regex_cost import MATCH_TIME_LIMIT_S, too_costly
    from .matcher import Matcher

    matcher = Matcher(cmd.text, regex=cmd.regex, ignore_case=cmd.ignore_case)
    try:
        hits, total = matcher.counted_hits(data, None, cmd.MAX_MATCHES)
    except TimeoutError:
        raise too_costly(
            f"took over its {MATCH_TIME_LIMIT_S:g} s limit on {cmd.path} "
            f"({count(len(data), 'byte')})",
            done="the search stopped there and its matches are not shown",
        ) from None
    return [(hit.line, hit.text) for hit in hits], total


def fs_search(cmd: FsSearch, ctx: ReadContext) -> CommandResult:
    target = _file_target(ctx.workspace, cmd.path, dir_code=ErrorCode.ERR_SEARCH_PATH_IS_DIR)
    data, doc = _read_doc(ctx.workspace, target, max_bytes=cmd.MAX_BYTES, action="fs.search")
    found, total = _search_lines(cmd, data, doc)
    truncated = total > len(found)
    # The spec: 'header includes "(truncated)" when clipped' -- those exact characters.
    shown = f"{len(found)} of {total} (truncated); refine the query" if truncated else str(total)
    flags = [name for name, on in (("regex", cmd.regex), ("ignore case", cmd.ignore_case)) if on]
    query = json.dumps(cmd.text) + (f" ({', '.join(flags)})" if flags else "")
    header = [f"# path: {target.rel}", f"# query: {query}", f"# matches: {shown}"]
    body = [f"{n}: {_clip(line, MATCH_DISPLAY_LIMIT)}" for n, line in found]
    noun = "match" if total == 1 else "matches"
    summary = f"{total} {noun} for {json.dumps(cmd.text)} in {target.rel}" + (
        f" (showing the first {len(found)})" if truncated else ""
    )
    record = viewed(
        ctx.workspace,
        target,
        data,
        lines=len(split_lines(doc.text)),
        shown=spans([n for n, _ in found]),
        numbered=True,
    )
    return _ok(
        cmd,
        summary,
        "\n".join(header + body),
        path=target.rel,
        truncated=truncated,
        outcome=record,
    )


def fs_stat(cmd: FsStat, ctx: ReadContext) -> CommandResult:
    """Like Node's fs.stat, whose field names the spec uses: a symlink (one that stays inside the
    workspace, target() checked that) is followed: the answer describes what fs.read would read.
    """
    ws = ctx.workspace
    target = ws.target(cmd.path)
    st = ws.lstat(target)
    if st is None:
        raise ws.not_found(target)
    link_note = ""
    if stat_module.S_ISLNK(st.st_mode):
        resolved = ws.resolved(target)
        st = ws.lstat(resolved)
        if st is None:
            raise ws.not_found(target)
        if stat_module.S_ISLNK(st.st_mode):  # realpath stopped at a link: it loops
            raise OperatorError(
                ErrorCode.ERR_NOT_FOUND,
                (
                    f"{target.rel} is a symlink that loops and never "
                    "reaches a file or folder; use another path"
                ),
            )
        link_note = f" (a symlink to {resolved.rel})"
    is_dir = stat_module.S_ISDIR(st.st_mode)
    is_file = stat_module.S_ISREG(st.st_mode)
    payload = {
        "path": target.rel,
        "size": st.st_size,
        "isFile": is_file,
        "isDir": is_dir,
        "mtimeMs": st.st_mtime_ns // 1_000_000,
        "ctimeMs": st.st_ctime_ns // 1_000_000,
    }
    if is_dir:
        kind = "folder"
    elif is_file:
        kind = "file"
    else:
        kind = "special file"
    return _ok(
        cmd,
        f"{target.rel}: {kind}, {count(st.st_size, 'byte')}{link_note}",
        json.dumps(payload),
        path=target.rel,
    )


def fs_search_tree(cmd: FsSearchTree, ctx: ReadContext) -> CommandResult:
    from .search_tree import search_tree

    return search_tree(cmd, ctx)


def fs_find(cmd: FsFind, ctx: ReadContext) -> CommandResult:
    from .find import find

    return find(cmd, ctx)


def fs_tree(cmd: FsTree, ctx: ReadContext) -> CommandResult:
    from .tree import tree

    return tree(cmd, ctx)


def _region_doc(cmd: CommentStyleFields, ctx: ReadContext) -> tuple[Target, bytes, TextDoc]:
    target = _file_target(ctx.workspace, cmd.path)
    from ..textops.styles import style_for

    style_for(cmd, target.rel)  # no known comment style is the first thing to report
    data, doc = _read_doc(ctx.workspace, target, max_bytes=LARGE_READ_MAX_BYTES, action=cmd.action)
    return target, data, doc


def fs_list_regions(cmd: FsListRegions, ctx: ReadContext) -> CommandResult:
    from ..textops.regions import scan_regions
    from ..textops.styles import style_for

    target, _, doc = _region_doc(cmd, ctx)
    scan = scan_regions(doc.text, style_for(cmd, target.rel))
    regions = [
        {
            "marker_id": r.marker_id,
            "start_line": r.begin_line,
            "end_line": r.end_line,
            "content_start_line": r.begin_line + 1,
            "content_end_line": r.end_line - 1,
            "content_lines": r.end_line - r.begin_line - 1,
        }
        for r in scan.regions
    ]
    payload, shown = _capped_regions(regions, list(scan.problems))
    summary = f"{len(regions):,} region{'s' if len(regions) != 1 else ''} in {target.rel}" + _named(
        [str(r["marker_id"]) for r in regions]
    )
    if scan.problems:
        summary += (
            f" ({len(scan.problems)} marker "
            f"problem{'s' if len(scan.problems) != 1 else ''}, see details)"
        )
    if shown < len(regions) + len(scan.problems):
        summary += (
            f"; only the first {_payload_count(payload)} are in the details, {SHOWN_MAX_BYTES:,} "
            "bytes being the most one answer shows (truncated): read a region by its marker_id "
            "with fs.readRegion, or find markers with fs.search"
        )
        return _ok(cmd, summary, json.dumps(payload), path=target.rel, truncated=True)
    return _ok(cmd, summary, json.dumps(payload), path=target.rel)


NAMED_CHARS = 400  # of marker ids named in the summary line; the details hold them all (capped)


def _named(ids: list[str]) -> str:
    """ ": a, b, c" naming the first marker ids that fit in NAMED_CHARS, and how many more."""
    named: list[str] = []
    used = 0
    for marker_id in ids:
        used += len(marker_id) + 2
        if used > NAMED_CHARS and named:
            break
        named.append(marker_id if len(marker_id) <= NAMED_CHARS else marker_id[:NAMED_CHARS] + "…")
    if not named:
        return ""
    more = len(ids) - len(named)
    return ": " + ", ".join(named) + (f" and {more:,} more" if more else "")


def _payload_count(payload: dict[str, object]) -> str:
    regions, problems = payload["regions"], payload.get("problems", [])
    assert isinstance(regions, list) and isinstance(problems, list)
    shown = f"{len(regions):,} region{'s' if len(regions) != 1 else ''}"
    return shown + (f" and {len(problems):,} problems" if problems else "")


def _capped_regions(
    regions: list[dict[str, object]], problems: list[str]
) -> tuple[dict[str, object], int]:
    """The details' JSON object within SHOWN_MAX_BYTES (a file of 10 MB can hold a hundred
    thousand markers): regions first, in file order, then problems, each kept while the whole
    still fits; and how many of both it holds."""
    budget = SHOWN_MAX_BYTES - len('{"regions": [], "problems": []}')
    kept, budget = _fitting(regions, budget)
    said, _ = _fitting(problems, budget) if len(kept) == len(regions) else ([], 0)
    payload: dict[str, object] = {"regions": kept}
    if problems:
        payload["problems"] = said
    return payload, len(kept) + len(said)


T = TypeVar("T")


def _fitting(items: list[T], budget: int) -> tuple[list[T], int]:
    """The first of `items` whose JSON (each with its separator) fits in `budget` bytes, and
    what is left of it."""
    kept: list[T] = []
    for item in items:
        size = len(json.dumps(item)) + 2
        if size > budget:
            break
        budget -= size
        kept.append(item)
    return kept, budget


def fs_read_region(cmd: FsReadRegion, ctx: ReadContext) -> CommandResult:
    from ..textops.regions import locate_region, read_region
    from ..textops.styles import style_for

    target, data, doc = _region_doc(cmd, ctx)
    style = style_for(cmd, target.rel)
    region = locate_region(doc.text, style, cmd.marker_id, label=target.rel)
    content = read_region(doc.text, style, cmd.marker_id, label=target.rel)
    inner = region.end_line - region.begin_line - 1
    size = len(content.encode("utf-8"))
    if size > SHOWN_MAX_BYTES:  # capped as a whole read is
        raise OperatorError(
            ErrorCode.ERR_FILE_TOO_LARGE,
            f"region {cmd.marker_id} of {target.rel} holds {size:,} bytes, over the "
            f"{SHOWN_MAX_BYTES:,} a read returns; read its lines with fs.readSlice, start: "
            f"{region.begin_line + 1} (lines {region.begin_line + 1}-{region.end_line - 1})",
        )
    summary = (
        f"Read region {cmd.marker_id} of {target.rel} (lines "
        f"{region.begin_line}-{region.end_line}, {count(inner, 'content line')})"
    )
    inside = lines_from(region.begin_line + 1, region.end_line - 1)
    record = viewed(
        ctx.workspace, target, data, lines=len(split_lines(doc.text)), shown=inside, numbered=False
    )
    return _ok(cmd, summary, content, path=target.rel, outcome=record)


READ_HANDLERS: dict[str, Callable[..., CommandResult]] = {  # action -> handler
    "operator.getInterfaceSpec": get_interface_spec,
    "operator.getCommentStyle": get_comment_style,
    "fs.list": fs_list,
    "fs.read": fs_read,
    "fs.readSlice": fs_read_slice,
    "fs.search": fs_search,
    "fs.stat": fs_stat,
    "fs.searchTree": fs_search_tree,
    "fs.find": fs_find,
    "fs.tree": fs_tree,
    "fs.listRegions": fs_list_regions,
    "fs.readRegion": fs_read_region,
}
