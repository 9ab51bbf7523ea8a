"""The globs of fs.searchTree's include/exclude and fs.find's pattern, read the way .gitignore
lines are (git's wildmatch): `*` within a name, `**` across folders, `?`, `[abc]`; a pattern
without a slash matches a name at any depth, one with a slash is anchored to the folder
searched, a trailing slash matches folders only. Each glob is matched by glob_match.py, whose
cost is bounded by construction; a glob or a list over the size limits is
ERR_PATTERN_TOO_COSTLY, and a glob that cannot mean anything is an ERR_INVALID_PATTERN saying
why, never a filter that silently matches nothing. Pure: no I/O.
"""

from __future__ import annotations

from functools import lru_cache

from msgspec import Struct

from .errors import ErrorCode, OperatorError
from .glob_match import MAX_GLOB_CHARS, Glob, GlobError, GlobTooLong, compile_glob

MAX_GLOBS = 50
# All the globs of one field together: a match costs up to (path components x names in the globs)
# name matches, so the list's length bounds what one entry can cost (under a second with a path
# 2,000 folders deep).
MAX_LIST_CHARS = 1_000


def split_globs(value: str) -> tuple[str, ...]:
    """The globs of a comma-separated list, each trimmed, empty ones dropped."""
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _invalid(field: str, glob: str, why: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_INVALID_PATTERN,
        f"{field} glob {glob!r} {why}; globs are like .gitignore lines: *.py, src/**/*.ts, "
        "docs/ (several separated by commas)",
    )


def _too_costly(field: str, what: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_PATTERN_TOO_COSTLY,
        f"{field} {what}; globs are limited to {MAX_GLOB_CHARS} characters each, "
        f"{MAX_GLOBS} in a list and {MAX_LIST_CHARS} characters in all; use shorter globs, ** "
        "or a folder as path",
    )


class GlobList(Struct, frozen=True):
    """Comma-separated globs with .gitignore's precedence: the last glob that matches a path
    itself decides, else the last one that matches a folder above it; a glob starting with !
    takes what it matches back out."""

    globs: tuple[Glob, ...]

    def match_file(self, path: str) -> bool:
        """Whether `path` (a folder's with a trailing "/") is in the list."""
        return bool(self.decide(path))

    def decide(self, path: str) -> bool | None:
        """What the list says of `path`: True in it, False taken back out by a ! glob, None when
        no glob matches (a .gitignore then leaves the decision to the one above it)."""
        decided: bool | None = None
        for glob in reversed(self.globs):
            found = glob.match(path)
            if found is None:
                continue
            if not found.marked:
                return glob.include
            if decided is None:
                decided = glob.include
        return decided


@lru_cache(maxsize=32)
def glob_list(value: str, field: str) -> GlobList:
    """The comma-separated globs of `field`, or ERR_INVALID_PATTERN / ERR_PATTERN_TOO_COSTLY."""
    globs = split_globs(value)
    if not globs:
        raise OperatorError(
            ErrorCode.ERR_INVALID_PATTERN,
            f"{field} holds no glob; give one or more, separated by commas (*.py, docs/)",
        )
    if len(globs) > MAX_GLOBS:
        raise _too_costly(field, f"holds {len(globs)} globs, over the limit of {MAX_GLOBS}")
    if len(value) > MAX_LIST_CHARS:
        raise _too_costly(field, f"is {len(value)} characters long, over {MAX_LIST_CHARS}")
    compiled = []
    for glob in globs:
        if glob.startswith("#"):
            raise _invalid(field, glob, r"reads as a comment; write \# for a name starting with #")
        try:
            pattern = compile_glob(glob)
        except GlobTooLong as long:
            raise _too_costly(field, f"glob {glob[:40]!r}... {long}") from None
        except GlobError as error:
            raise _invalid(field, glob, str(error)) from None
        if pattern is None:
            raise _invalid(
                field, glob, "is not a pattern" if glob in ("!", "/") else "matches nothing"
            )
        compiled.append(pattern)
    return GlobList(tuple(compiled))


def own_match(spec: GlobList, path: str, *, is_dir: bool) -> bool:
    """Whether `path` itself (not a folder above it) matches a glob of `spec`: fs.find lists the
    entries a pattern names, where in .gitignore a folder's match also covers what is inside."""
    tested = path + "/" if is_dir else path
    for glob in spec.globs:
        found = glob.match(tested)
        if found is not None and found.own:
            return True
    return False


def find_globs(value: str) -> GlobList:
    """fs.find's pattern: one glob, or several separated by commas (any may match); no negation,
    which only an include/exclude list can use."""
    for glob in split_globs(value):
        if glob.startswith("!"):
            raise _invalid("pattern", glob, "starts with !; fs.find lists what a pattern matches")
    return glob_list(value, "pattern")
