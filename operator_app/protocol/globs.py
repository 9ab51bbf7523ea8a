"""The globs of fs.searchTree's include/exclude and fs.find's pattern, read the way .gitignore
lines are (pathspec's git wildmatch): `*` within a name, `**` across folders, `?`, `[abc]`; a
pattern without a slash matches a name at any depth, one with a slash is anchored to the folder
searched, a trailing slash matches folders only. A glob that cannot mean anything is an
ERR_INVALID_PATTERN saying why, never a filter that silently matches nothing. Pure: no I/O.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .errors import ErrorCode, OperatorError

if TYPE_CHECKING:
    import pathspec

MAX_GLOBS = 50


def split_globs(value: str) -> tuple[str, ...]:
    """The globs of a comma-separated list, each trimmed, empty ones dropped."""
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _invalid(field: str, glob: str, why: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_INVALID_PATTERN,
        f"{field} glob {glob!r} {why}; globs are like .gitignore lines: *.py, src/**/*.ts, "
        "docs/ (several separated by commas)",
    )


@lru_cache(maxsize=32)
def glob_list(value: str, field: str) -> pathspec.GitIgnoreSpec:
    """The comma-separated globs of `field` as one gitignore-style spec (later globs win, a glob
    starting with ! takes paths back out), or ERR_INVALID_PATTERN."""
    globs = split_globs(value)
    if not globs:
        raise OperatorError(
            ErrorCode.ERR_INVALID_PATTERN,
            f"{field} holds no glob; give one or more, separated by commas (*.py, docs/)",
        )
    if len(globs) > MAX_GLOBS:
        raise OperatorError(
            ErrorCode.ERR_INVALID_PATTERN,
            f"{field} holds {len(globs)} globs, over the limit of {MAX_GLOBS}; use ** or a folder",
        )
    import pathspec

    patterns = []
    for glob in globs:
        if glob.startswith("#"):
            raise _invalid(field, glob, r"reads as a comment; write \# for a name starting with #")
        try:
            pattern = pathspec.GitIgnoreSpec.from_lines([glob]).patterns[0]
        except (ValueError, IndexError) as error:  # GitIgnorePatternError is a ValueError
            raise _invalid(field, glob, f"is not a valid glob ({error})") from None
        if pattern.include is None:
            raise _invalid(field, glob, _why_nothing(glob))
        patterns.append(glob)
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _why_nothing(glob: str) -> str:
    if glob.count("[") > glob.count("]"):
        return "has a [ without its ]"
    if glob in ("!", "/"):
        return "is not a pattern"
    return "matches nothing"


def own_match(spec: pathspec.GitIgnoreSpec, path: str, *, is_dir: bool) -> bool:
    """Whether `path` itself (not a folder above it) matches a glob of `spec`: fs.find lists the
    entries a pattern names, where in .gitignore a folder's match also covers what is inside."""
    tested = path + "/" if is_dir else path
    for pattern in spec.patterns:
        compiled: Any = pattern.regex
        found = compiled.search(tested) if compiled is not None else None
        if found is None:
            continue
        marker = found.groupdict().get("ps_d")
        if marker is None or found.end() == len(tested):
            return True
    return False


def find_globs(value: str) -> pathspec.GitIgnoreSpec:
    """fs.find's pattern: one glob, or several separated by commas (any may match); no negation,
    which only an include/exclude list can use."""
    for glob in split_globs(value):
        if glob.startswith("!"):
            raise _invalid("pattern", glob, "starts with !; fs.find lists what a pattern matches")
    return glob_list(value, "pattern")
