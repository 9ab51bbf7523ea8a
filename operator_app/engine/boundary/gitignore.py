"""git's ignore rules during a walk: the .gitignore files in force at each folder, each relative to
its own folder, the deepest deciding (GitRules). Matching shares one time budget per walk, so a
hostile .gitignore cannot make a walk take minutes: past it a check raises IgnoreRulesTooSlow.

Most entries of a tree match no pattern at all, so each .gitignore is first asked whether any of
its patterns can match the entry (ignore_screen.py, most of it without a regular expression);
only an entry some pattern matches goes through pathspec's exact rules (negation, directory
patterns, the last pattern winning). Patterns with many wildcards, the ones that can backtrack,
are matched with a timeout.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, NoReturn

from .fsops import read_small_text
from .ignore_screen import Screen

if TYPE_CHECKING:
    import pathspec

MAX_GITIGNORE_BYTES = 1 << 20

# Seconds a walk may spend loading and matching .gitignore patterns in all. A hostile .gitignore
# (a pattern such as *a*a*a*...*b, or tens of thousands of lines) must not make one walk take
# minutes; past the budget the walk stops and says why.
GITIGNORE_BUDGET_S = 2.0

# A pattern whose expression has more unbounded repeats than this can backtrack on a long name:
# its .gitignore is searched with a timeout (which costs some microseconds a search) instead of
# without. "*.pyc" has two, "build/" one, "*a*a*a*b" five.
_SAFE_REPEATS = 3
_REPEAT_RE = re.compile(r"(?<!\\)[*+]")
_GROUP_NAME_RE = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


class IgnoreRulesTooSlow(Exception):
    """Matching .gitignore patterns used up the walk's GITIGNORE_BUDGET_S; the walk stops here."""


class _BoundedRegex:
    """A pathspec pattern's regular expression run by the `regex` module instead of `re`: `re`
    backtracks exponentially on *a*a*a*...*b against a long name of a's (34 took 10 s); `regex`
    avoids that, and its `timeout` bounds whatever backtracking is left by the walk's budget."""

    __slots__ = ("compiled", "rules")

    def __init__(self, compiled: Any, rules: GitRules) -> None:
        self.compiled = compiled
        self.rules = rules

    def search(self, text: str) -> Any:
        return self.compiled.search(text, timeout=self.rules.time_left())


class _Layer:
    """One .gitignore: the folder it stands in (resolved parts), its exact rules, and the screen
    that says whether any of its patterns can match an entry (None when `regex` cannot compile
    its expressions: then every entry goes through the exact rules)."""

    __slots__ = ("base", "bounded", "screen", "spec")

    def __init__(
        self, base: tuple[str, ...], spec: pathspec.GitIgnoreSpec, rules: GitRules
    ) -> None:
        import regex  # only tree walks need it; keeps `exec` start-up short

        self.base = base
        self.spec = spec
        sources = []
        self.bounded = False
        for pattern in spec.patterns:
            compiled = getattr(pattern, "regex", None)
            if compiled is None:
                continue
            sources.append(_GROUP_NAME_RE.sub("(?:", compiled.pattern))
            self.bounded |= len(_REPEAT_RE.findall(compiled.pattern)) > _SAFE_REPEATS
            try:
                # duck-typed: pathspec calls match()/search() only
                pattern.regex = _BoundedRegex(regex.compile(compiled.pattern), rules)  # type: ignore[assignment]
            except regex.error:
                pass  # a pattern `regex` reads differently keeps `re`, still bounded by the budget
        try:
            self.screen: Screen | None = Screen(sources, regex.compile)
        except regex.error:
            self.screen = None
            self.bounded = True


# What a folder's entries are checked against: (the folder's path relative to the .gitignore's
# folder, with a trailing "/" unless it is that folder, the layer, the screen its entries are
# asked first, or None when every entry goes through the layer's exact rules), deepest
# .gitignore first.
FolderRules = tuple[tuple[str, _Layer, Screen | None], ...]


class GitRules:
    """The .gitignore files in force at one point of a walk, outermost first.

    git's precedence: the deepest .gitignore with a matching pattern decides, and within one file
    the last matching pattern wins (GitIgnoreSpec handles negation). Paths are resolved
    components relative to the workspace root. Loading and matching share one time budget per
    walk; past it they raise IgnoreRulesTooSlow.
    """

    def __init__(self) -> None:
        self._stack: list[_Layer] = []
        self._budget = GITIGNORE_BUDGET_S
        self._call_started = 0.0

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
        text = read_small_text(fd, ".gitignore", MAX_GITIGNORE_BYTES)
        if not text:
            return 0
        self._call_started = time.monotonic()
        # git splits on "\n" and drops a "\r" before it.
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        import pathspec  # only tree walks need it; keeps `exec` start-up short

        spec = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
        self._stack.append(_Layer(parts, spec, self))
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
                    screen = layer.screen
                    if screen is not None and screen.names_a_folder_of(
                        folders, self.time_left() if layer.bounded else None
                    ):
                        screen = None
                    inner = "/".join(folders)
                    found.append((inner + "/" if inner else "", layer, screen))
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
        for prefix, layer, screen in rules:
            relative = prefix + name
            if screen is not None and not screen.may_match(
                name, relative, self.time_left() if layer.bounded else None
            ):
                continue  # no pattern of this file matches: it has no say
            include = layer.spec.check_file(relative).include
            if include is not None:
                return bool(include)
        return False
