"""fs.find: the entries under a folder whose path (relative to that folder) a glob matches, in the
walk's path order, with the walk's skip rules; capped at FsFind.MAX_RESULTS lines, while the walk
goes on to count every match, until its time limit."""

from __future__ import annotations

import json
import time
from collections import Counter

from ...protocol.commands import navigation
from ...protocol.commands.navigation import FsFind
from ...protocol.escapes import escape_name as shown_name
from ...protocol.globs import find_globs, own_match
from ...protocol.outcomes import WalkOutcome
from ...protocol.results import CommandResult
from ..boundary.gitignore import IgnoreRulesTooSlow
from ..boundary.tree_walk import FileRun, Folder, Notice
from .context import ReadContext
from .walk_filters import Filters, entries

_SUFFIX = {"symlink": "@", "special": "", "unreadable": "/"}


def find(cmd: FsFind, ctx: ReadContext) -> CommandResult:
    ws = ctx.workspace
    root = ws.target(cmd.path)
    if ws.lstat(root) is None:
        raise ws.not_found(root)
    spec = find_globs(cmd.pattern)
    place = Filters.of(None, None, root.rel)
    found: list[str] = []
    total = looked = 0
    skipped: Counter[str] = Counter()
    stop_reason = ""
    notes: list[str] = []
    deadline = time.monotonic() + navigation.TIME_LIMIT_S

    def take(rel: str, *, is_dir: bool, suffix: str) -> None:
        nonlocal total
        if own_match(spec, place.inner(rel), is_dir=is_dir):
            total += 1
            if len(found) < FsFind.MAX_RESULTS:
                found.append(shown_name(rel) + suffix)

    walk = ws.walk(root)
    try:
        for event in walk:
            if time.monotonic() > deadline:
                stop_reason = (
                    f"stopped at the {navigation.TIME_LIMIT_S} s time limit after "
                    f"{entries(looked)} (they go in path order); narrow the path"
                )
                break
            if isinstance(event, FileRun):
                looked += len(event.names)
                for index in range(len(event.names)):
                    take(event.rel(index), is_dir=False, suffix="")
            elif isinstance(event, Folder):
                looked += 1
                take(event.rel, is_dir=True, suffix="/")
            elif isinstance(event, Notice):
                notes.append(event.text)
            elif event.reason in _SUFFIX:
                looked += 1
                take(event.rel, is_dir=event.is_dir, suffix=_SUFFIX[event.reason])
                if event.reason == "unreadable":
                    skipped["unreadable"] += 1
            else:
                skipped[event.reason] += 1
    except IgnoreRulesTooSlow as slow:
        stop_reason = f"{slow}; the walk stopped there; narrow the path"
    finally:
        walk.close()
    return _result(cmd, root.rel, found, total, looked, skipped, stop_reason, notes)


def _result(
    cmd: FsFind,
    where: str,
    found: list[str],
    total: int,
    looked: int,
    skipped: Counter[str],
    stop_reason: str,
    notes: list[str],
) -> CommandResult:
    capped = total > len(found)
    truncated = capped or bool(stop_reason)
    looked_at = f"{entries(looked)} looked at"
    header = [f"# pattern: {json.dumps(cmd.pattern)}", f"# path: {where}"]
    shown = f"{len(found)} shown of {total}" if capped else str(total)
    header.append(f"# found: {shown}; {looked_at}" + (" (truncated)" if truncated else ""))
    caveats = []  # what may be missing, said in String's /find too
    if capped:
        caveats.append(
            f"truncated: only the first {FsFind.MAX_RESULTS} are listed (in path order); "
            "narrow the pattern or the path"
        )
    if stop_reason:
        caveats.append(f"truncated: {stop_reason}")
    if skipped:
        names = {"gitignore": "ignored by .gitignore", "unreadable": "unreadable"}
        parts = [f"{n} {names.get(r, r)}" for r, n in sorted(skipped.items())]
        caveats.append(f"skipped: {', '.join(parts)}")
    caveats += [f"note: {shown_name(note)}" for note in notes]
    header += [f"# {caveat}" for caveat in caveats]
    noun = "entry matches" if total == 1 else "entries match"
    summary = f"{total} {noun} {json.dumps(cmd.pattern)} under {where} ({looked_at}"
    summary += f"; {len(found)} listed)" if capped else ")"
    if stop_reason:
        summary += " (stopped early, see the header)"
    if notes:
        summary += " (a .gitignore was cut, see the header)"
    return CommandResult(
        id=cmd.id,
        ok=True,
        summary=summary + (" (truncated)" if truncated else ""),
        details="\n".join(header + found),
        action=cmd.action,
        path=where,
        truncated=truncated,
        outcome=WalkOutcome(path=where, rows=tuple(found), caveats=tuple(caveats)),
    )
