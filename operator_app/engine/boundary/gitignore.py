"""git's ignore rules during a walk: the .gitignore files in force at each folder, each relative to
its own folder, the deepest deciding (GitRules). A .gitignore is bounded while it is read, not
after: at most MAX_GITIGNORE_BYTES of it and lines of at most MAX_LINE_CHARS, read and made
ready within LOAD_SLICE_S; what is past a bound is left out and the walk says so (`cut`).
Loading and matching share one time budget per walk, so a hostile .gitignore cannot make a walk
take minutes: past it a check raises IgnoreRulesTooSlow.

Most entries of a tree match no pattern at all, so each .gitignore is first asked whether any of
its patterns can match the entry (ignore_screen.py: most of it without a regular expression, the
rest as expressions of the `regex` module, compiled in small chunks and searched with a timeout
where a pattern could backtrack); only an entry one could match goes through the exact rules
(negation, directory patterns, the last pattern winning), decided by protocol/glob_match.py,
whose cost is bounded by construction.
"""

from __future__ import annotations

import re
import time
from typing import Any, NoReturn

from ...protocol.glob_match import Glob, GlobError, compile_glob
from ...protocol.globs import GlobList
from .fsops import read_text_head
from .ignore_screen import Screen

MAX_GITIGNORE_BYTES = 256 * 1024
MAX_LINE_CHARS = 1024  # a longer pattern costs milliseconds to compile and no project needs it

# Seconds a walk may spend loading and matching .gitignore patterns in all. A hostile .gitignore
# (a pattern such as *a*a*a*...*b, or tens of thousands of lines) must not make one walk take
# minutes; past the budget the walk stops and says why.
GITIGNORE_BUDGET_S = 2.0
# Seconds one .gitignore may take to be read and made ready; the patterns not ready by then are
# left out (and the walk says so), so a 1 MB .gitignore costs a second, not 100 s and 2 GB. A
# pattern takes about a millisecond to make ready (the `regex` module parses it in Python).
LOAD_SLICE_S = 1.0
# Patterns per combined expression: compiling one expression of thousands of patterns took
# gigabytes; chunks keep each compile small and let the clock be read between them.
_CHUNK_SOURCE_CHARS = 8_000

# A pattern whose expression has more unbounded repeats than this can backtrack on a long name:
# its .gitignore is searched with a timeout (which costs some microseconds a search) instead of
# without. "*.pyc" has two, "build/" one, "*a*a*a*b" five.
_SAFE_REPEATS = 3
_REPEAT_RE = re.compile(r"(?<!\\)[*+]")
_GROUP_NAME_RE = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


class IgnoreRulesTooSlow(Exception):
    """Matching .gitignore patterns used up the walk's GITIGNORE_BUDGET_S; the walk stops here."""


class _Layer:
    """One .gitignore: the folder it stands in (resolved parts), its exact rules, the screens
    (one per chunk of patterns) one of which says yes to whatever any of its patterns could match,
    and whether a search of them needs a timeout (a pattern that could backtrack)."""

    __slots__ = ("base", "bounded", "exact", "screens")

    def __init__(
        self, base: tuple[str, ...], globs: list[Glob], screens: list[Screen], bounded: bool
    ) -> None:
        self.base = base
        self.exact = GlobList(tuple(globs))
        self.screens = screens
        self.bounded = bounded


# What a folder's entries are checked against: (the folder's path relative to the .gitignore's
# folder, with a trailing "/" unless it is that folder, the layer, and whether its entries are
# screened first: not when one of its patterns names a folder above them, which their own names
# would not show), deepest .gitignore first.
FolderRules = tuple[tuple[str, _Layer, bool], ...]


class GitRules:
    """The .gitignore files in force at one point of a walk, outermost first.

    git's precedence: the deepest .gitignore with a matching pattern decides, and within one file
    the last matching pattern wins (a pattern of the path itself before one of a folder above
    it). Paths are resolved components relative to the workspace root. Loading and matching
    share one time budget per walk; past it they raise IgnoreRulesTooSlow. `cuts` says which
    .gitignore files were not read whole, for the walk's result.
    """

    def __init__(self) -> None:
        self._stack: list[_Layer] = []
        self._budget = GITIGNORE_BUDGET_S
        self._call_started = 0.0
        self.cuts: list[str] = []

    def time_left(self) -> float:
        return max(self._budget - (time.monotonic() - self._call_started), 1e-6)

    def _spend(self) -> None:
        self._budget -= time.monotonic() - self._call_started
        if self._budget <= 0:
            raise IgnoreRulesTooSlow(
                f"matching .gitignore patterns took over {GITIGNORE_BUDGET_S:g} s "
                "(a pattern with many * or a very long .gitignore)"
            )

    def load(self, fd: int, parts: tuple[str, ...]) -> int:
        """Push the .gitignore of the folder open at `fd` (at `parts`), if any; return the count."""
        head = read_text_head(fd, ".gitignore", MAX_GITIGNORE_BYTES)
        if head is None:
            return 0
        text, size = head
        if not text:
            return 0
        self._call_started = time.monotonic()
        deadline = self._call_started + min(LOAD_SLICE_S, self.time_left())
        where = "/".join((*parts, ".gitignore"))
        cut: list[str] = []
        if size > MAX_GITIGNORE_BYTES:
            cut.append(f"only its first {MAX_GITIGNORE_BYTES // 1024} KB of {size:,} bytes")
        # git splits on "\n" and drops a "\r" before it.
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        globs, screens, bounded, long_lines, ready = _prepare(lines, deadline)
        if long_lines:
            cut.append(f"{long_lines} line(s) over {MAX_LINE_CHARS} characters left out")
        if ready < len(lines):
            cut.append(
                f"only its first {ready:,} of {len(lines):,} lines (reading it took over "
                f"{LOAD_SLICE_S:g} s)"
            )
        if cut:
            self.cuts.append(
                f"{where} was cut: {'; '.join(cut)}; what the rest of it ignores is listed"
            )
        self._stack.append(_Layer(parts, globs, screens, bounded))
        self._spend()
        return 1

    def pop(self, count: int) -> None:
        del self._stack[len(self._stack) - count :]

    def clear(self) -> None:
        self._stack.clear()

    def folder(self, parts: tuple[str, ...]) -> FolderRules:
        """The rules the entries of the folder at `parts` are checked against."""
        if not self._stack:
            return ()
        found = []
        self._call_started = time.monotonic()
        try:
            for layer in reversed(self._stack):
                base = layer.base
                if len(parts) >= len(base) and parts[: len(base)] == base:
                    folders = list(parts[len(base) :])
                    timeout = self.time_left() if layer.bounded else None
                    screened = not any(
                        screen.names_a_folder_of(folders, timeout) for screen in layer.screens
                    )
                    inner = "/".join(folders)
                    found.append((inner + "/" if inner else "", layer, screened))
        except TimeoutError:  # from the `regex` module: this one match used up what was left
            self._too_slow()
        self._spend()
        return tuple(found)

    def ignored(self, parts: tuple[str, ...], *, is_dir: bool) -> bool:
        """Whether the entry at `parts` (resolved, below the root) is ignored."""
        if not self._stack or not parts:
            return False
        return self.ignored_in(self.folder(parts[:-1]), parts[-1], is_dir=is_dir)

    def ignored_in(self, rules: FolderRules, name: str, *, is_dir: bool) -> bool:
        """Whether entry `name` of a folder whose rules are `rules` is ignored."""
        self._call_started = time.monotonic()
        try:
            decided = self._decision(rules, name + "/" if is_dir else name)
        except TimeoutError:  # from the `regex` module: this one match used up what was left
            self._too_slow()
        self._spend()
        return decided

    def _too_slow(self) -> NoReturn:
        self._budget = 0
        raise IgnoreRulesTooSlow(
            f"matching .gitignore patterns took over {GITIGNORE_BUDGET_S:g} s "
            "(a pattern with many *)"
        ) from None

    def _decision(self, rules: FolderRules, name: str) -> bool:
        for prefix, layer, screened in rules:
            relative = prefix + name
            timeout = self.time_left() if layer.bounded else None
            if screened and not any(
                screen.may_match(name, relative, timeout) for screen in layer.screens
            ):
                continue  # no pattern of this file matches: it has no say
            include = layer.exact.decide(relative)
            if include is not None:
                return include
        return False


def _prepare(lines: list[str], deadline: float) -> tuple[list[Glob], list[Screen], bool, int, int]:
    """The patterns of a .gitignore's lines ready by `deadline`: their exact globs, the screens
    (every glob's pattern is in exactly one), whether a pattern could backtrack, how many lines
    were too long, and how many lines were taken (a pattern is taken once its screen is made)."""
    import regex  # only tree walks need it; keeps `exec` start-up short
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    def compile_dotall(source: str) -> Any:
        # (?s): a name may hold a line break; a screen must never miss what the exact rules match
        return regex.compile("(?s)" + source)

    globs: list[Glob] = []
    screens: list[Screen] = []
    chunk: list[tuple[Glob, str]] = []
    chunk_chars = long_lines = taken = 0
    bounded = False

    def combine() -> None:
        nonlocal chunk_chars
        try:
            screens.append(Screen([source for _, source in chunk], compile_dotall))
            globs.extend(glob for glob, _ in chunk)
        except regex.error:  # one pattern `regex` reads otherwise than `re`: leave it out
            for glob, source in chunk:
                try:
                    screens.append(Screen([source], compile_dotall))
                except regex.error:
                    continue
                globs.append(glob)
        chunk.clear()
        chunk_chars = 0

    for index, line in enumerate(lines):
        if time.monotonic() > deadline:
            return globs, screens, bounded, long_lines, taken
        if len(line) > MAX_LINE_CHARS:
            long_lines += 1
            continue
        try:
            glob = compile_glob(line, MAX_LINE_CHARS)
            source, include = GitIgnoreSpecPattern.pattern_to_regex(line)
        except (GlobError, ValueError, TypeError):
            glob = None  # git ignores a pattern it cannot read; so does the walk
            source = include = None
        if glob is not None and source is not None and include is not None:
            source = _GROUP_NAME_RE.sub("(?:", source)
            bounded |= len(_REPEAT_RE.findall(source)) > _SAFE_REPEATS
            chunk.append((glob, source))
            chunk_chars += len(source)
        if chunk_chars > _CHUNK_SOURCE_CHARS or index == len(lines) - 1:
            if chunk:
                combine()
            taken = index + 1
    return globs, screens, bounded, long_lines, len(lines)
