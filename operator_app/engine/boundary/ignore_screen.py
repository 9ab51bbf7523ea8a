"""Whether any pattern of one .gitignore can match an entry: the question a walk asks of every
entry it meets, nearly always answered "no", before pathspec's exact rules (negation, folder-only
patterns, the last match winning) settle the few entries some pattern matches. A "no" is certain;
a "yes" only sends the entry on to the exact rules.

Most patterns hold no "/" but a trailing one ("*.pyc", "build/", ".env"), and git applies such a
pattern to one name at any depth. pathspec writes each as an expression over the whole path
("^(?:.+/)?build/"), and a search for sixty of them joined tried them all again after every "/"
of the path: some 20 microseconds an entry, more than the read and search of a 10 KB file. Here
they are asked of the entry's own name, most without an expression: a name by a set ("build/",
".env", "*.py[cod]" spelt out), "*" and an ending by `str.endswith` ("*.log"), a beginning and
"*" by `str.startswith` (".coverage.*"); the rest as one expression matched at the start of the
name. Whether one of them names a folder above the entry is asked once per folder
(`names_a_folder_of`). The patterns with a "/" before their end ("/site", "docs/_build/",
"**/a/b") are matched in the path as pathspec writes them, after a `str.startswith` of the plain
text they begin with.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import product
from typing import Any

# How pathspec writes a pattern git applies at any depth: any folders, the pattern, then the end
# of the name or a "/" (its group names already dropped).
_ANY_DEPTH = "^(?:.+/)?"
_NAME_ENDS = ("(?:/)", "(?:(?:/)|$)")
# The parts such a pattern may be made of for it to match within one name: a character or an
# escaped one, "[^/]*" (pathspec's "*"), "[^/]" (its "?") and classes that are not negated. A
# negated class ("[!a]" becomes "[^a]") or a range spanning "/" can match a "/": such a pattern
# goes with those matched in the path, as pathspec would match it.
_NAME_PART = re.compile(r"(\[\^/\]\*?)|\\([^/])|\[(?!\^)([^\]\\/]*)\]|([^\\\[\].^$|()*+?{}/])")
_RANGE = re.compile(r"(.)-(.)")
# The plain text an expression over the path begins with ("^docs/_build(?:/)": "docs/_build"),
# less a last character a quantifier follows.
_PLAIN_START = re.compile(r"\^((?:\\.|[^\\\[\].^$|()*+?{}])*)")
_MOST_SPELLINGS = 16  # "*.py[cod]": 3; more is left to the expression

Part = tuple[str, ...] | None  # the characters a position may hold; None: any run of them ("*")
_OTHER = ("",)  # a part that is no choice of characters: "?", a class with a range


def _name_parts(source: str) -> tuple[list[Part], str] | None:
    """A pattern within one name as its parts, and its expression without the folders before it;
    None for a pattern that needs the whole path."""
    if not source.startswith(_ANY_DEPTH):
        return None
    rest = source[len(_ANY_DEPTH) :]
    end = next((end for end in _NAME_ENDS if rest.endswith(end)), None)
    if end is None:
        return None
    own, at, parts = rest[: -len(end)], 0, []
    while at < len(own):
        found = _NAME_PART.match(own, at)
        if found is None:
            return None
        wildcard, escaped, members, plain = found.groups()
        part: Part
        if wildcard is not None:
            part = None if wildcard.endswith("*") else _OTHER
        elif members is not None:
            if any(low <= "/" <= high for low, high in _RANGE.findall(members)):
                return None
            part = tuple(members) if members and "-" not in members else _OTHER
        else:
            part = (escaped or plain,)
        parts.append(part)
        at = found.end()
    return parts, rest


def _spellings(parts: list[Part]) -> list[str] | None:
    """Every text the parts can spell, when each is a choice of characters and they are few."""
    if not parts or any(part is None or part is _OTHER for part in parts):
        return None
    count = 1
    for part in parts:
        count *= len(part or ())
    if count > _MOST_SPELLINGS:
        return None
    return ["".join(letters) for letters in product(*(part or () for part in parts))]


def _plain_start(source: str) -> str:
    """The plain text an expression over the path must begin with ("" when none)."""
    found = _PLAIN_START.match(source)
    if found is None:
        return ""
    text = found.group(1)
    if source[found.end() : found.end() + 1] in ("*", "?", "+", "{"):
        text = text[:-2] if text.endswith("\\", 0, len(text) - 1) else text[:-1]
    return re.sub(r"\\(.)", r"\1", text)


Find = Callable[..., Any]  # a compiled expression's match or search

# How a pattern within one name is asked (the index of its list in Screen's constructor): by
# the name's spellings, its endings, its beginnings, or as an expression.
_NAMES, _ENDINGS, _BEGINNINGS, _IN_NAME = range(4)


def _asked_of_a_name(parts: list[Part], expression: str) -> tuple[int, list[str]]:
    """How a pattern within one name is asked, and what of: its spellings ("build", ".env",
    "x.pyc" to "x.pyd"), the endings after its leading "*", the beginnings before its last "*",
    or else its expression."""
    whole = _spellings(parts)
    if whole is not None:
        return _NAMES, whole
    ending = _spellings(parts[1:]) if parts[0] is None else None
    if ending is not None:
        return _ENDINGS, ending
    beginning = _spellings(parts[:-1]) if parts[-1] is None else None
    if beginning is not None:
        return _BEGINNINGS, beginning
    return _IN_NAME, [expression]


def _either(expressions: list[str]) -> str:
    return "|".join(f"(?:{e})" for e in expressions)


def _asked_of_a_path(
    sources: list[str], compile: Callable[[str], Any]
) -> tuple[Find | None, tuple[str, ...]]:
    """The patterns matched in the path: the one expression that asks all of them, and the
    plain texts one of which a path must begin with to match (none when one has no such text)."""
    if not sources:
        return None, ()
    joined = compile(_either(sources))
    # pathspec anchors nearly every expression at the start ("^site"): `regex` would still try
    # one at every position of the path, as many times the work
    if not all(source.startswith("^") for source in sources):
        return joined.search, ()
    starts = tuple(_plain_start(source) for source in sources)
    return joined.match, starts if all(starts) else ()


def _found(find: Find, text: str, timeout: float | None) -> bool:
    # `regex` reads the clock as it goes when given a timeout, even None: some microseconds a call
    return (find(text) if timeout is None else find(text, timeout=timeout)) is not None


class Screen:
    """The patterns of one .gitignore (pathspec's expressions, group names dropped), sorted for
    the question. `compile` is the regular expression module's (`regex`: see gitignore.py);
    whatever it raises for expressions it cannot read comes out of the constructor."""

    __slots__ = ("beginnings", "endings", "in_name", "in_path", "names", "path_starts")

    def __init__(self, sources: list[str], compile: Callable[[str], Any]) -> None:
        asked: tuple[list[str], ...] = ([], [], [], [])  # indexed by _NAMES, _ENDINGS, ... above
        in_path: list[str] = []
        for source in sources:
            within = _name_parts(source)
            if within is None:
                in_path.append(source)
            else:
                how, items = _asked_of_a_name(*within)
                asked[how].extend(items)
        names, endings, beginnings, in_name = asked
        self.names = frozenset(names)
        self.endings = tuple(endings)
        self.beginnings = tuple(beginnings)
        self.in_name: Find | None = compile(_either(in_name)).match if in_name else None
        self.in_path, self.path_starts = _asked_of_a_path(in_path, compile)

    def _names(self, bare: str, name: str, timeout: float | None) -> bool:
        if (
            bare in self.names
            or (self.endings and bare.endswith(self.endings))
            or (self.beginnings and bare.startswith(self.beginnings))
        ):
            return True
        return self.in_name is not None and _found(self.in_name, name, timeout)

    def names_a_folder_of(self, folders: list[str], timeout: float | None) -> bool:
        """Whether a pattern within one name may match one of `folders` (names): then it has a
        say on every entry below them, which an entry's own name would not show."""
        return any(
            folder.endswith("\n") or self._names(folder, folder + "/", timeout)
            for folder in folders
        )

    def may_match(self, name: str, relative: str, timeout: float | None) -> bool:
        """Whether some pattern may match the entry `name` at `relative` (the path from the
        .gitignore's folder), both with a trailing "/" for a folder."""
        bare = name[:-1] if name.endswith("/") else name
        # pathspec's "$" also matches before a line break ending a name: rare enough to leave to
        # the exact rules
        if bare.endswith("\n") or self._names(bare, name, timeout):
            return True
        if self.in_path is None or (self.path_starts and not relative.startswith(self.path_starts)):
            return False
        return _found(self.in_path, relative, timeout)
