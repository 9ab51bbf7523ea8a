"""fs.searchTree: a substring search over a folder, bounded by the spec's limits (200 matches,
300 files scanned, files over 500,000 bytes skipped) and deterministic: files are visited in the
workspace walk's fixed order, and everything skipped is counted in the header. Matching
.gitignore patterns has a time budget (tree_walk.GITIGNORE_BUDGET_S); a search that uses it up stops
there and says so in its "# truncated:" header."""

from __future__ import annotations

import json
from collections import Counter

from ...protocol.commands.reading import FsSearchTree
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.escapes import escape_name
from ...protocol.results import CommandResult, count
from ..boundary.tree_walk import IgnoreRulesTooSlow
from ..textops.textfile import decode_text
from .context import MATCH_DISPLAY_LIMIT, ReadContext, matching_lines

# reason -> how the header names it after a count; a noun is counted with count() ("1 symlink").
_SKIP_NOUNS = {"symlink": "symlink", "special": "special file", "unreadable": "unreadable entry"}
_SKIP_ADJECTIVES = {
    "gitignore": "ignored by .gitignore",
    "large": f"over {FsSearchTree.MAX_FILE_BYTES} bytes",
    "binary": "binary",
    "not-utf8": "not UTF-8",
}


def _skipped(reason: str, n: int) -> str:
    if reason in _SKIP_NOUNS:
        return count(n, _SKIP_NOUNS[reason])
    return f"{n} {_SKIP_ADJECTIVES.get(reason, reason)}"


def search_tree(cmd: FsSearchTree, ctx: ReadContext) -> CommandResult:
    ws = ctx.workspace
    root = ws.target(cmd.path)
    if ws.lstat(root) is None:
        raise ws.not_found(root)
    matches: list[str] = []
    skipped: Counter[str] = Counter()
    files_scanned = files_matched = 0
    stop_reason = ""
    walk = ws.walk_files(root)
    while True:
        try:
            item = next(walk, None)
        except IgnoreRulesTooSlow as slow:
            stop_reason = (
                f"{slow}; the search stopped there; narrow the "
                "path or ask the person to simplify .gitignore"
            )
            break
        if item is None:
            break
        if item.kind == "skipped":
            skipped[item.reason or "other"] += 1
            continue
        if item.size > FsSearchTree.MAX_FILE_BYTES:
            skipped["large"] += 1
            continue
        if files_scanned >= FsSearchTree.MAX_FILES:
            stop_reason = f"stopped after scanning {FsSearchTree.MAX_FILES} files; narrow the path"
            break
        files_scanned += 1
        if ctx.progress is not None and files_scanned % 20 == 0:
            ctx.progress(f"searched {files_scanned} files, {len(matches)} matches")
        try:
            text = decode_text(
                ws.read_file(ws.walked(item.rel), max_bytes=FsSearchTree.MAX_FILE_BYTES),
                label=item.rel,
            )
        except OperatorError as exc:
            reason = {
                ErrorCode.ERR_BINARY_FILE: "binary",
                ErrorCode.ERR_NOT_UTF8: "not-utf8",
                ErrorCode.ERR_FILE_TOO_LARGE: "large",
            }.get(exc.code, "unreadable")
            skipped[reason] += 1
            continue
        room = FsSearchTree.MAX_MATCHES - len(matches)
        found, total = matching_lines(text, cmd.query, room)
        if found:  # counted as shown: the file that only proves the cap was hit adds no match
            files_matched += 1
        for line_no, line in found:
            line = line.removesuffix("\r")  # a CRLF file's line break is not part of the line
            shown = (
                line if len(line) <= MATCH_DISPLAY_LIMIT else line[:MATCH_DISPLAY_LIMIT] + " [...]"
            )
            # one match per line, whatever the name
            matches.append(f"{escape_name(item.rel)}:{line_no}: {shown}")
        if total > room:
            stop_reason = (
                f"stopped at {FsSearchTree.MAX_MATCHES} "
                "matches; refine the query or narrow the path"
            )
            break
    # an early stop closes the walk's folder descriptors now, not at garbage collection
    walk.close()
    truncated = bool(stop_reason)
    header = [
        f"# query: {json.dumps(cmd.query)}",
        f"# path: {root.rel}",
        f"# matches: {len(matches)} in {count(files_matched, 'file')}; "
        f"{count(files_scanned, 'file')} scanned" + (" (truncated)" if truncated else ""),
    ]
    if stop_reason:
        header.append(f"# truncated: {stop_reason}")
    if skipped:
        parts = [_skipped(reason, n) for reason, n in sorted(skipped.items())]
        header.append(f"# skipped: {', '.join(parts)}")
    noun = "match" if len(matches) == 1 else "matches"
    summary = (
        f"{len(matches)} {noun} for {json.dumps(cmd.query)} in {count(files_matched, 'file')} "
        f"under {root.rel} ({count(files_scanned, 'file')} scanned)"
    )
    if truncated:
        summary += " (truncated)"
    return CommandResult(
        id=cmd.id,
        ok=True,
        summary=summary,
        details="\n".join(header + matches),
        action=cmd.action,
        path=root.rel,
        truncated=truncated,
    )
