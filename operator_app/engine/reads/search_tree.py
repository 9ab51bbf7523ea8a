"""fs.searchTree: the query in every file under a folder that the skip rules allow. It caps what it
returns (FsSearchTree.MAX_MATCHES matching lines, each cut to a window around its match), not
what it reads: past the cap it still looks at every file, to say how many match in all. Files
come in the walk's fixed order (full paths sorted), so the same search gives the same answer;
everything skipped or filtered out is counted in the header. A search that reaches its time
limit (navigation.TIME_LIMIT_S), or the .gitignore matching budget, stops there and says how
far it got in its "# truncated:" header. Files that look like secrets (boundary/secrets.py) are
never searched, and the header names them: a search must not hand over a secret's lines unasked
(an fs.read of one asks the person first, changes/secret_read.py).

Each file costs one open, fstat, read and close through the walk's folder descriptor, and one
search of its bytes: reading, not Python, is most of what a search of a large tree costs."""

from __future__ import annotations

import json
import math
import time
from collections import Counter

from ...protocol.commands import navigation
from ...protocol.commands.navigation import FsSearchTree
from ...protocol.escapes import escape_name as shown_name
from ...protocol.outcomes import WalkOutcome
from ...protocol.regex_cost import MATCH_TIME_LIMIT_S, too_costly
from ...protocol.results import CommandResult, count
from ..boundary.fsops import read_walked
from ..boundary.gitignore import IgnoreRulesTooSlow
from ..boundary.secrets import SecretPaths
from ..boundary.tree_walk import FileRun, Folder, Notice, Skipped
from ..textops.textfile import BINARY_SNIFF_BYTES, UTF16_BOMS
from .context import Progress, ReadContext
from .matcher import Matcher, window
from .walk_filters import Filters

PROGRESS_EVERY_S = 0.25
SECRETS_NAMED = 10  # files left out as secrets that the header names; the rest are counted

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


class _Search:
    """What one search has found so far."""

    def __init__(self, cmd: FsSearchTree) -> None:
        self.matcher = Matcher(cmd.text, regex=cmd.regex, ignore_case=cmd.ignore_case)
        self.matches: list[str] = []
        self.skipped: Counter[str] = Counter()
        self.scanned = 0
        self.files_shown = 0  # files with a match shown
        self.files_matching = 0  # files with a match, shown or not
        self.capped = False  # more matching lines than shown
        self.stop_reason = ""
        self.last_file = ""
        self.secrets: list[str] = []  # files left out: they look like secrets
        self.notes: list[str] = []  # .gitignore files not read whole

    def leaves_out(self, rel: str, filters: Filters, secrets: SecretPaths) -> bool:
        """Whether the file `rel` is not searched (outside include, or it looks like a secret:
        its matching lines would hand the model a secret unasked); counted or named if so."""
        if filters.include is not None and not filters.included(rel):
            self.skipped["outside include"] += 1
            return True
        if secrets.matches(rel) is not None:
            self.secrets.append(rel)
            return True
        return False

    def walked_past(self, event: Skipped | Notice | Folder) -> None:
        """Count an entry the walk skipped, or keep what it has to say (a .gitignore cut)."""
        if isinstance(event, Skipped):
            self.skipped[event.reason] += 1
        elif isinstance(event, Notice):
            self.notes.append(event.text)

    def not_read(self, reason: str) -> None:
        """Count a file read_walked did not hand over ("gone": it vanished, nothing to say)."""
        if reason != "gone":
            self.skipped[reason] += 1
            self.scanned += reason == "binary"  # opened and looked at, like a small one

    def file(self, data: bytes, rel: str, timeout: float) -> None:
        """Search one file's bytes (`rel`: its path as shown)."""
        self.scanned += 1
        if data.find(b"\x00", 0, BINARY_SNIFF_BYTES) >= 0:
            self.skipped["binary"] += 1
            return
        text = None
        if not data.isascii():
            if data.startswith(UTF16_BOMS):
                self.skipped["not-utf8"] += 1
                return
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                self.skipped["not-utf8"] += 1
                return
        room = FsSearchTree.MAX_MATCHES - len(self.matches)
        if not room:
            if self.matcher.found_in(data, text, timeout):
                self.files_matching += 1
                self.capped = True
            return
        hits, more = self.matcher.hits(data, text, room, timeout)
        if not hits:
            return
        self.files_matching += 1
        self.files_shown += 1
        self.capped |= more
        shown = shown_name(rel)
        width = FsSearchTree.LINE_CHARS
        self.matches += [
            f"{shown}:{hit.line}: {window(hit.text, hit.column, width)}" for hit in hits
        ]


def search_one(search: _Search, data: bytes, time_left: float) -> None:
    """Search one file within what is left of the walk's time and the query's own limit per
    file: a query that alone takes longer on one file is ERR_PATTERN_TOO_COSTLY (backtracking,
    not the size of the tree); running out of the walk's time stops the walk (TimeoutError)."""
    timeout = min(MATCH_TIME_LIMIT_S, time_left)
    try:
        search.file(data, search.last_file, timeout)
    except TimeoutError:
        if timeout < MATCH_TIME_LIMIT_S:
            raise
        raise too_costly(
            f"took over its {MATCH_TIME_LIMIT_S:g} s limit on one file alone "
            f"({shown_name(search.last_file)}, {count(len(data), 'byte')})",
            done="the search stopped there and its matches are not shown",
        ) from None


class _Clock:
    """The search's time limit, and when it next says how far it got (never, with no one to
    tell)."""

    __slots__ = ("deadline", "next_progress", "progress")

    def __init__(self, progress: Progress | None) -> None:
        started = time.monotonic()
        self.deadline = started + navigation.TIME_LIMIT_S
        self.next_progress = started + PROGRESS_EVERY_S if progress is not None else math.inf
        self.progress = progress

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise TimeoutError

    def report(self, now: float, search: _Search) -> None:
        assert self.progress is not None
        self.next_progress = now + PROGRESS_EVERY_S
        self.progress(f"searched {search.scanned} files, {len(search.matches)} matches")


def search_tree(cmd: FsSearchTree, ctx: ReadContext) -> CommandResult:
    ws = ctx.workspace
    root = ws.target(cmd.path)
    if ws.lstat(root) is None:
        raise ws.not_found(root)
    filters = Filters.of(cmd.include, cmd.exclude, root.rel)
    search = _Search(cmd)
    clock = _Clock(ctx.progress)
    walk = ws.walk(root, exclude=filters.exclude)
    try:
        for event in walk:
            if isinstance(event, FileRun):
                _search_run(event, search, filters, ctx.secrets, clock)
            else:
                search.walked_past(event)
                clock.check()  # a walk of folders and skipped entries only
    except TimeoutError:
        search.stop_reason = (
            f"stopped at the {navigation.TIME_LIMIT_S} s time limit after "
            f"{count(search.scanned, 'file')} scanned, the last "
            f"{shown_name(search.last_file) or 'none'} (files go in path order); "
            "the files after it were not searched: narrow the path, or use include or exclude"
        )
    except IgnoreRulesTooSlow as slow:
        search.stop_reason = (
            f"{slow}; the search stopped there; narrow the path or ask the person to simplify "
            ".gitignore"
        )
    finally:
        walk.close()  # an early stop closes the walk's folder descriptors now
    return _result(cmd, root.rel, search)


def _search_run(
    run: FileRun, search: _Search, filters: Filters, secrets: SecretPaths, clock: _Clock
) -> None:
    """Search the files of one run of the walk; TimeoutError past the time limit. The loop every
    file of a tree turns (bench_search.py): the clock is read inline, and what happens seldom (a
    progress line, a file not read) is a call."""
    limit = FsSearchTree.MAX_FILE_BYTES
    for index, name in enumerate(run.names):
        now = time.monotonic()
        if now > clock.deadline:
            raise TimeoutError
        if now > clock.next_progress:
            clock.report(now, search)
        rel = run.rel(index)
        if search.leaves_out(rel, filters, secrets):
            continue
        data = read_walked(run.dir_fd, name, limit, BINARY_SNIFF_BYTES)
        if isinstance(data, str):
            search.not_read(data)
            continue
        search.last_file = rel
        search_one(search, data, clock.deadline - now)


def _result(cmd: FsSearchTree, where: str, search: _Search) -> CommandResult:
    truncated = bool(search.stop_reason) or search.capped
    early, later = _early_caveats(search), _later_caveats(search)
    return CommandResult(
        id=cmd.id,
        ok=True,
        summary=_summary(cmd, where, search) + (" (truncated)" if truncated else ""),
        details="\n".join(_header(cmd, where, search, early, later) + search.matches),
        action=cmd.action,
        path=where,
        truncated=truncated,
        # what may be missing is said in String's /grep too, from the record
        outcome=WalkOutcome(path=where, rows=tuple(search.matches), caveats=tuple(early + later)),
    )


def _header(
    cmd: FsSearchTree, where: str, search: _Search, early: list[str], later: list[str]
) -> list[str]:
    """The "# name: value" lines above the matches: the question, then the counts, then what may
    be missing (`early`: what cut the search short; `later`: notes and what was not looked into),
    the secrets not searched between them."""
    header = [f"# query: {json.dumps(cmd.text)}{_options(cmd)}", f"# path: {where}"]
    header += [
        f"# {name}: {value}"
        for name, value in (("include", cmd.include), ("exclude", cmd.exclude))
        if value
    ]
    header.append(_matches_line(search))
    header += [f"# {caveat}" for caveat in early]
    if search.secrets:
        header.append(_secrets_line(search.secrets))
    return header + [f"# {caveat}" for caveat in later]


def _matches_line(search: _Search) -> str:
    shown, files = len(search.matches), count(search.files_shown, "file")
    scanned = f"{count(search.scanned, 'file')} scanned"
    if not search.capped:
        truncated = " (truncated)" if search.stop_reason else ""
        return f"# matches: {shown} in {files}; {scanned}{truncated}"
    return (
        f"# matches: {shown} shown, in {files}; {count(search.files_matching, 'file')} match "
        f"in all; {scanned} (truncated)"
    )


def _early_caveats(search: _Search) -> list[str]:
    """What cut the search short: the cap on matches shown, a time or size limit."""
    caveats = []
    if search.capped:
        caveats.append(
            f"truncated: only the first {FsSearchTree.MAX_MATCHES} matching lines are shown (in "
            "path order); refine the query, or narrow it with path, include or exclude"
        )
    if search.stop_reason:
        caveats.append(f"truncated: {search.stop_reason}")
    return caveats


def _later_caveats(search: _Search) -> list[str]:
    """A .gitignore cut, what the walk skipped ("skipped:") and what the filters left out ("not
    searched:")."""
    caveats = [f"note: {shown_name(note)}" for note in search.notes]
    skipped = sorted((r, n) for r, n in search.skipped.items() if r not in _FILTERED_REASONS)
    if skipped:
        caveats.append(f"skipped: {', '.join(_skipped(r, n) for r, n in skipped)}")
    filtered = sorted((r, n) for r, n in search.skipped.items() if r in _FILTERED_REASONS)
    if filtered:
        parts = [f"{n} {_FILTERED_REASONS[r]}" for r, n in filtered]
        caveats.append(f"not searched: {', '.join(parts)}")
    return caveats


def _secrets_line(secrets: list[str]) -> str:
    named = ", ".join(shown_name(rel) for rel in secrets[:SECRETS_NAMED])
    more = len(secrets) - SECRETS_NAMED
    return (
        f"# not searched, as they look like secrets: {named}"
        + (f" and {more} more" if more > 0 else "")
        + " (fs.read of one asks the person first)"
    )


def _summary(cmd: FsSearchTree, where: str, search: _Search) -> str:
    """The result's one line, without its "(truncated)"."""
    shown = len(search.matches)
    scanned = f"{count(search.scanned, 'file')} scanned"
    if search.capped:
        summary = (
            f"{shown} of the matches for {json.dumps(cmd.text)} shown, from {search.files_shown} "
            f"of the {count(search.files_matching, 'file')} that match under {where} ({scanned}"
        )
    else:
        noun = "match" if shown == 1 else "matches"
        files = count(search.files_shown, "file")
        summary = f"{shown} {noun} for {json.dumps(cmd.text)} in {files} under {where} ({scanned}"
    if search.stop_reason:
        summary += "; stopped early, see the header"
    if search.notes:
        summary += "; a .gitignore was cut, see the header"
    return summary + ")"


_FILTERED_REASONS = {"outside include": "outside include", "excluded": "excluded"}


def _options(cmd: FsSearchTree) -> str:
    options = [name for name, on in (("regex", cmd.regex), ("ignore case", cmd.ignore_case)) if on]
    return f" ({', '.join(options)})" if options else ""
