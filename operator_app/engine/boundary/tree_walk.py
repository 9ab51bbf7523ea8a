"""The walk of a folder tree below a descriptor, for fs.searchTree: depth first, in the plain
string order of full paths, nothing followed and no special file opened, with git's ignore
rules (.gitignore files, each relative to its own folder, the deepest deciding). Matching the
patterns shares one time budget per walk, so a hostile .gitignore cannot make a search take
minutes: past it the walk raises IgnoreRulesTooSlow."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .fsops import open_subdir, read_small_text, scan_dir

if TYPE_CHECKING:
    import pathspec

MAX_GITIGNORE_BYTES = 1 << 20


@dataclass(frozen=True)
class WalkItem:
    rel: str
    kind: Literal["file", "skipped"]
    size: int  # bytes for a file, 0 for skipped items
    reason: Literal["symlink", "special", "gitignore", "unreadable"] | None


class IgnoreRulesTooSlow(Exception):
    """Matching .gitignore patterns used up the walk's GITIGNORE_BUDGET_S; the walk stops here."""


# Seconds a walk may spend loading and matching .gitignore patterns in all. A hostile .gitignore
# (a pattern such as *a*a*a*...*b, or tens of thousands of lines) must not make one fs.searchTree
# take minutes; past the budget the search stops and says why.
GITIGNORE_BUDGET_S = 2.0


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


class GitRules:
    """The .gitignore files in force at one point of a walk, outermost first.

    git's precedence: the deepest .gitignore with a matching pattern decides, and within one file
    the last matching pattern wins (GitIgnoreSpec handles negation). Paths are resolved
    components relative to the workspace root. Loading and matching share one time budget per
    walk; past it they raise IgnoreRulesTooSlow.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[tuple[str, ...], pathspec.GitIgnoreSpec]] = []
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
        import pathspec  # only tree walks need these; keeps `exec` start-up short
        import regex

        spec = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
        for pattern in spec.patterns:
            compiled = getattr(pattern, "regex", None)
            if compiled is not None:
                try:
                    bounded = _BoundedRegex(regex.compile(compiled.pattern), self)
                    # duck-typed: pathspec calls match() only
                    pattern.regex = bounded  # type: ignore[assignment]
                except regex.error:
                    # a pattern `regex` reads differently keeps `re`, still bounded by the budget
                    pass
        self._stack.append((parts, spec))
        self._spend()
        return 1

    def pop(self, count: int) -> None:
        del self._stack[len(self._stack) - count :]

    def clear(self) -> None:
        self._stack.clear()

    def ignored(self, parts: tuple[str, ...], *, is_dir: bool) -> bool:
        if not self._stack:
            return False
        self._call_started = time.monotonic()
        try:
            include = self._decision(parts, is_dir)
        except TimeoutError:  # from the `regex` module: this one match used up what was left
            self._budget = 0
            raise IgnoreRulesTooSlow(
                "matching .gitignore patterns took over "
                f"{GITIGNORE_BUDGET_S:g} s (a pattern with many *)"
            ) from None
        self._spend()
        return include

    def _decision(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        for base, spec in reversed(self._stack):
            if len(parts) <= len(base) or parts[: len(base)] != base:
                continue
            relative = "/".join(parts[len(base) :]) + ("/" if is_dir else "")
            include = spec.check_file(relative).include
            if include is not None:
                return bool(include)
        return False


def _join(prefix: str, name: str) -> str:
    return name if prefix in ("", ".") else f"{prefix}/{name}"


def _walk_order(entry: tuple[str, str, int]) -> str:
    # A folder sorts as "name/": the walk then comes out in the plain string order of full paths.
    return entry[0] + "/" if entry[1] == "dir" else entry[0]


def walk_below(
    top_fd: int,
    top_entries: list[tuple[str, str, int]],
    rel: str,
    parts: tuple[str, ...],
    rules: GitRules | None,
) -> Generator[WalkItem, None, None]:
    """Depth-first walk of the folder open at `top_fd` (shown as `rel`, resolved `parts`).

    `top_entries` is scan_dir(top_fd), taken by the caller so that errors about the folder itself
    are the caller's. With `rules` (git mode), entries named .git are left out and ignored entries
    come out as one skipped item each; without, everything is walked. Nothing is followed, no
    special file is opened, a subfolder that cannot be opened is a skipped "unreadable" item.
    Subfolder descriptors opened here are closed here; `top_fd` stays the caller's.
    """
    # One frame per open folder: (fd, display prefix, resolved parts, entries left, rules pushed).
    frames: list[tuple[int, str, tuple[str, ...], list[tuple[str, str, int]], int]] = []
    try:
        pushed = rules.load(top_fd, parts) if rules is not None else 0
        frames.append(
            (top_fd, rel, parts, sorted(top_entries, key=_walk_order, reverse=True), pushed)
        )
        while frames:
            fd, prefix, dir_parts, pending, pushed = frames[-1]
            if not pending:
                frames.pop()
                if rules is not None:
                    rules.pop(pushed)
                if fd != top_fd:
                    os.close(fd)
                continue
            name, kind, size = pending.pop()
            shown_rel, entry_parts = _join(prefix, name), (*dir_parts, name)
            if rules is not None and name == ".git":
                continue
            if rules is not None and rules.ignored(entry_parts, is_dir=kind == "dir"):
                yield WalkItem(shown_rel, "skipped", 0, "gitignore")
            elif kind == "file":
                yield WalkItem(shown_rel, "file", size, None)
            elif kind == "symlink":
                yield WalkItem(shown_rel, "skipped", 0, "symlink")
            elif kind != "dir":
                yield WalkItem(shown_rel, "skipped", 0, "special")
            else:
                child = _open_child(fd, name)
                if not isinstance(child, int):
                    if child is not None:
                        yield WalkItem(shown_rel, "skipped", 0, child)
                    continue
                try:
                    entries = sorted(scan_dir(child), key=_walk_order, reverse=True)
                    pushed = rules.load(child, entry_parts) if rules is not None else 0
                except OSError:
                    os.close(child)
                    yield WalkItem(shown_rel, "skipped", 0, "unreadable")
                    continue
                frames.append((child, shown_rel, entry_parts, entries, pushed))
    finally:
        for fd, *_ in frames:
            if fd != top_fd:
                os.close(fd)


def _open_child(parent_fd: int, name: str) -> int | Literal["symlink", "unreadable"] | None:
    """The subfolder's fd, or why it is skipped (None: it vanished and needs no mention)."""
    try:
        return open_subdir(parent_fd, name)
    except FileNotFoundError:
        return None
    except OSError as error:
        # ELOOP: it became a symlink after the listing.
        return "symlink" if error.errno == errno.ELOOP else "unreadable"
