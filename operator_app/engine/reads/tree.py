"""fs.tree: a folder's outline to a depth, one path per line: each folder before what it holds,
its subfolders before its files (each group by name), files with their size, and a folder whose
entries are not shown with how many it holds. The walk goes one level below the depth asked, to
count those. When more than FsTree.MAX_ENTRIES entries lie within the depth, the outline is
shown to the deepest level that fits, so the model sees the whole of the top of the tree rather
than the first corner of it; the header says so."""

from __future__ import annotations

import os
import stat as stat_module
import time
from collections import Counter

from msgspec import Struct, field

from ...protocol.commands import navigation
from ...protocol.commands.navigation import FsTree
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.escapes import escape_name as shown_name
from ...protocol.outcomes import WalkOutcome
from ...protocol.results import CommandResult, count
from ..boundary.gitignore import IgnoreRulesTooSlow
from ..boundary.tree_walk import FileRun, Folder, Notice, WalkEvent
from .context import ReadContext
from .walk_filters import entries

MAX_WALKED = 50_000  # entries a tree walk keeps, whatever the depth
SHOWN_IGNORED = 5  # ignored entries named in the header


class _Node(Struct):
    rel: str
    kind: str  # "dir", "file", "symlink", "special", "unreadable"
    depth: int
    size: int = 0
    children: list[_Node] = field(default_factory=list)


def tree(cmd: FsTree, ctx: ReadContext) -> CommandResult:
    ws = ctx.workspace
    root = ws.target(cmd.path)
    st = ws.lstat(ws.resolved(root))
    if st is None:
        raise ws.not_found(root)
    if not stat_module.S_ISDIR(st.st_mode):
        raise OperatorError(
            ErrorCode.ERR_NOT_A_DIRECTORY,
            f"{root.rel} is a file, not a folder; fs.tree outlines a folder (read a file with "
            "fs.readSlice)",
        )
    outline = _Outline(_Node(root.rel, "dir", 0), cmd.depth)
    stop_reason = ""
    deadline = time.monotonic() + navigation.TIME_LIMIT_S
    walk = ws.walk(root, max_depth=cmd.depth + 1)
    try:
        for event in walk:
            if outline.walked >= MAX_WALKED:
                stop_reason = f"the walk stopped after {entries(MAX_WALKED)}"
                break
            if time.monotonic() > deadline:
                stop_reason = f"the walk stopped at its {navigation.TIME_LIMIT_S} s time limit"
                break
            outline.take(event)
    except IgnoreRulesTooSlow as slow:
        stop_reason = f"{slow}; the walk stopped there"
    finally:
        walk.close()
    return _result(cmd, outline, stop_reason)


class _Outline:
    """The tree as the walk's events build it: its nodes by path, the ignored entries shown and
    counted, how many entries were walked, and the walk's notes."""

    def __init__(self, top: _Node, depth: int) -> None:
        self.top, self.depth = top, depth
        self.by_rel = {top.rel: top}
        self.ignored: list[str] = []
        self.skipped: Counter[str] = Counter()
        self.walked = 0
        self.notes: list[str] = []

    def take(self, event: WalkEvent) -> None:
        by_rel = self.by_rel
        if isinstance(event, FileRun):
            self.walked += len(event.names)
            for index, name in enumerate(event.names):
                size = 0
                if event.depth <= self.depth:
                    try:
                        size = os.stat(name, dir_fd=event.dir_fd, follow_symlinks=False).st_size
                    except OSError:
                        pass
                _add(by_rel, _Node(event.rel(index), "file", event.depth, size))
        elif isinstance(event, Folder):
            self.walked += 1
            by_rel[event.rel] = _add(by_rel, _Node(event.rel, "dir", event.depth))
        elif isinstance(event, Notice):
            self.notes.append(event.text)
        elif event.reason == "gitignore":
            if event.depth <= self.depth:
                self.skipped["gitignore"] += 1
                if len(self.ignored) < SHOWN_IGNORED:
                    self.ignored.append(shown_name(event.rel) + ("/" if event.is_dir else ""))
        else:
            self.walked += 1
            _add(by_rel, _Node(event.rel, event.reason, event.depth))


def _add(by_rel: dict[str, _Node], node: _Node) -> _Node:
    """Put `node` under its folder (the top one, first in `by_rel`, when it has no other)."""
    folder = node.rel.rpartition("/")[0]
    parent = by_rel.get(folder) or next(iter(by_rel.values()))
    parent.children.append(node)
    return node


def _levels(top: _Node, depth: int) -> list[int]:
    """Entries within each depth 1..depth, cumulated."""
    per_level = [0] * (depth + 1)
    stack = list(top.children)
    while stack:
        node = stack.pop()
        if node.depth <= depth:
            per_level[node.depth] += 1
            stack += node.children
    total, cumulated = 0, []
    for n in per_level[1:]:
        total += n
        cumulated.append(total)
    return cumulated


def _lines(node: _Node, shown_depth: int, out: list[str], kinds: Counter[str], limit: int) -> None:
    ordered = sorted(node.children, key=lambda n: (n.kind != "dir", n.rel))
    for child in ordered:
        if len(out) >= limit:
            return
        name = shown_name(child.rel)
        kinds["folder" if child.kind in ("dir", "unreadable") else child.kind] += 1
        if child.kind == "file":
            out.append(f"{name} ({count(child.size, 'byte')})")
        elif child.kind == "symlink":
            out.append(f"{name}@")
        elif child.kind == "special":
            out.append(f"{name} (special file)")
        elif child.kind == "unreadable":
            out.append(f"{name}/ (unreadable)")
        elif not child.children:
            out.append(f"{name}/ (empty)")
        elif child.depth >= shown_depth:
            out.append(f"{name}/ ({entries(len(child.children))})")
        else:
            out.append(f"{name}/")
            _lines(child, shown_depth, out, kinds, limit)


def _result(cmd: FsTree, outline: _Outline, stop_reason: str) -> CommandResult:
    top = outline.top
    cumulated = _levels(top, cmd.depth)
    fitting = [level for level, n in enumerate(cumulated, 1) if n <= FsTree.MAX_ENTRIES]
    shown_depth = fitting[-1] if fitting else 1
    lines: list[str] = []
    kinds: Counter[str] = Counter()
    _lines(top, shown_depth, lines, kinds, FsTree.MAX_ENTRIES)
    notes = _cut(cmd, top.rel, cumulated, shown_depth, len(lines))
    if stop_reason:
        notes.append(f"{stop_reason}; entries after it are missing; ask fs.tree of a subfolder")
    truncated = bool(notes)
    summary = _summary(top.rel, shown_depth, len(lines), kinds)
    if outline.notes:
        summary += " (a .gitignore was cut, see the header)"
    return CommandResult(
        id=cmd.id,
        ok=True,
        summary=summary + (" (truncated)" if truncated else ""),
        details="\n".join(_header(cmd, outline, len(lines), notes) + lines),
        action=cmd.action,
        path=top.rel,
        truncated=truncated,
        # what may be missing is said in String's /tree too, from the record
        outcome=WalkOutcome(
            path=top.rel, rows=tuple(lines), caveats=tuple(_caveats(outline, notes))
        ),
    )


def _cut(cmd: FsTree, rel: str, cumulated: list[int], shown_depth: int, shown: int) -> list[str]:
    """Why the outline stops short of the depth asked, if it does: more entries than it holds
    lie directly in the folder, or within the depth."""
    if cumulated[0] > FsTree.MAX_ENTRIES:
        return [
            f"{entries(cumulated[0])} lie directly in {shown_name(rel)}, over the limit of "
            f"{FsTree.MAX_ENTRIES}; the first {shown} are shown (subfolders first); use "
            "fs.find or fs.list"
        ]
    if shown_depth < cmd.depth:
        return [
            f"{entries(cumulated[-1])} lie within depth {cmd.depth}, over the limit of "
            f"{FsTree.MAX_ENTRIES}; shown to depth {shown_depth} ({entries(shown)}); ask "
            "fs.tree of a subfolder, or fs.find"
        ]
    return []


def _header(cmd: FsTree, outline: _Outline, shown: int, notes: list[str]) -> list[str]:
    header = [
        f"# tree: {shown_name(outline.top.rel)} (depth {cmd.depth})",
        f"# entries: {shown} shown; subfolders first, files with their size"
        + (" (truncated)" if notes else ""),
    ]
    return header + [f"# {caveat}" for caveat in _caveats(outline, notes)]


def _caveats(outline: _Outline, notes: list[str]) -> list[str]:
    """What may be missing from the outline: why it was cut, what .gitignore left out, a
    .gitignore cut."""
    caveats = [f"truncated: {note}" for note in notes]
    ignored = outline.skipped["gitignore"]
    if ignored:
        more = ", ..." if ignored > len(outline.ignored) else ""
        named = ", ".join(outline.ignored)
        caveats.append(f"skipped: {ignored} ignored by .gitignore ({named}{more})")
    return caveats + [f"note: {shown_name(note)}" for note in outline.notes]


def _summary(rel: str, shown_depth: int, shown: int, kinds: Counter[str]) -> str:
    parts = [count(kinds["folder"], "folder"), count(kinds["file"], "file")]
    parts += [
        count(kinds[k], noun)
        for k, noun in (("symlink", "symlink"), ("special", "special file"))
        if kinds[k]
    ]
    return (
        f"Tree of {shown_name(rel)} to depth {shown_depth}: {entries(shown)} ({', '.join(parts)})"
    )
