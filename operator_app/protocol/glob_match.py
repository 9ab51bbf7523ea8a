"""One glob, read the way git reads a .gitignore line (pathspec's gitwildmatch: `*` within a
name, `**` across folders, `?`, `[abc]`, a leading `/` anchors, a trailing `/` is for folders),
matched against a path without a regular expression that can backtrack.

A glob is cut at its slashes into one pattern per path component, `**` standing for any number
of whole components; a component's pattern is cut at its `*`s into pieces of fixed width, each
found at its first place after the one before (the first place always leaves the most room for
the rest, so no choice is ever taken back). The components are matched left to right, keeping
the set of places the glob can have reached (an int used as a bit set). So one match costs at
most (components x component patterns) piece searches, each linear in one name: polynomial by
construction, whatever the glob. `re` is used only for a piece holding `?` or `[...]`, which has
no repeat and cannot backtrack past its own width.

Where pathspec's regular expressions differ from git, this follows git: a `[...]` never matches
the `/` between names, and a name holding a line break is matched like any other name. Pure: no
I/O.
"""

from __future__ import annotations

import re
import warnings
from typing import Literal

from msgspec import Struct

# A glob longer than this is refused before anything runs (ERR_PATTERN_TOO_COSTLY): no path
# needs one, and the cost of a match grows with the glob's length.
MAX_GLOB_CHARS = 256


class GlobError(ValueError):
    """A glob that cannot mean anything; the text says why (for the model)."""


class GlobTooLong(GlobError):
    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"is {length} characters long, over the limit of {limit}")
        self.length = length


class _Piece(Struct, frozen=True):
    """A run of a name's pattern between two `*`: fixed width, literal text or a small `re`."""

    width: int
    literal: str | None
    compiled: re.Pattern[str] | None

    def at(self, name: str, pos: int) -> bool:
        if self.literal is not None:
            return name.startswith(self.literal, pos)
        assert self.compiled is not None
        return self.compiled.match(name, pos) is not None

    def first(self, name: str, pos: int, end: int) -> int:
        """Where the piece first occurs in name[pos:end], or -1."""
        if self.literal is not None:
            return name.find(self.literal, pos, end)
        assert self.compiled is not None
        found = self.compiled.search(name, pos, end)
        return -1 if found is None else found.start()


class _Name(Struct, frozen=True):
    """The pattern of one path component: pieces, with a `*` between each two."""

    pieces: tuple[_Piece, ...]
    nonempty: bool  # the component pattern is exactly "*": git's `[^/]+`

    def match(self, name: str) -> bool:
        pieces = self.pieces
        if len(pieces) == 1:
            only = pieces[0]
            return len(name) == only.width and only.at(name, 0)
        if self.nonempty and not name:
            return False
        head, tail = pieces[0], pieces[-1]
        end = len(name) - tail.width
        if end < head.width or not head.at(name, 0) or not tail.at(name, end):
            return False
        pos = head.width
        for piece in pieces[1:-1]:
            found = piece.first(name, pos, end)
            if found < 0:
                return False
            pos = found + piece.width
        return True


def _source(kind: str, value: str) -> str:
    """An item of a piece as `re` reads it: a literal escaped, "?" any one character (a name holds
    no "/"), a bracket expression as pathspec translates it."""
    if kind == "lit":
        return re.escape(value)
    return "(?s:.)" if kind == "any" else value


def _piece(items: list[tuple[str, str]]) -> _Piece:
    if all(kind == "lit" for kind, _ in items):
        text = "".join(value for _, value in items)
        return _Piece(len(text), text, None)
    source = "".join(_source(kind, value) for kind, value in items)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" in [[:alpha:]]: still a set
            compiled = re.compile(source)
    except re.error as error:
        raise GlobError(f"has a [...] that cannot be read ({error.msg})") from None
    return _Piece(len(items), None, compiled)


def _class(text: str, start: int) -> tuple[str, int] | None:
    """The `re` class of the bracket expression opening at text[start] ("[") and where it ends,
    or None when it has no closing bracket (the rules of pathspec's translation, from fnmatch)."""
    end = len(text)
    j = start + 1
    if j < end and text[j] in "!^":
        j += 1
    if j < end and text[j] == "]":
        j += 1
    while j < end and text[j] != "]":
        j += 1
    if j >= end:
        return None
    inner = text[start + 1 : j]
    negate = inner[:1] in ("!", "^")
    body = inner[1:] if negate else inner
    return "[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]", j + 1


def _name(text: str) -> _Name:
    pieces: list[_Piece] = []
    items: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 == len(text):
                raise GlobError("ends with a \\ that escapes nothing")
            items.append(("lit", text[i + 1]))
            i += 2
        elif char == "*":
            pieces.append(_piece(items))
            items = []
            i += 1
        elif char == "?":
            items.append(("any", ""))
            i += 1
        elif char == "[":
            found = _class(text, i)
            if found is None:
                raise GlobError("has a [ without its ]")
            items.append(("class", found[0]))
            i = found[1]
        else:
            items.append(("lit", char))
            i += 1
    pieces.append(_piece(items))
    return _Name(tuple(pieces), nonempty=text == "*")


# What a whole glob is, once normalised as git does: a path of component patterns (None: `**`),
# or one of the shapes that match every path ("any") or every path below a folder ("slash").
Shape = Literal["path", "any", "slash"]


class Match(Struct, frozen=True):
    """How a glob matched a path: `marked` when it matched only a folder above the path (git's
    directory match, which .gitignore ranks below a match of the path itself); `own` when it
    matched the path itself (a folder's path ending in "/")."""

    marked: bool
    own: bool


class Glob(Struct, frozen=True):
    text: str  # as written, without a leading "!"
    include: bool  # False: "!glob", which takes paths back out of a list
    shape: Shape
    folders_only: bool  # the glob ended with "/"
    names: tuple[_Name | None, ...]  # shape "path": component patterns, None for `**`
    trailing_any: bool  # shape "path": the glob ends in `**` (everything below)

    def match(self, path: str) -> Match | None:
        """Whether `path` (a folder's with a trailing "/") matches, and how."""
        if self.shape == "any":
            return Match(False, True) if path else None
        if self.shape == "slash":
            return self._below_a_folder(path)
        # The components matched left to right, in one frame: every walk with an `include` or a
        # .gitignore asks this of its entries (benchmarks/bench_search.py)
        parts = path.split("/")
        reached = 1  # bit i: the glob so far can have matched parts[:i]
        below = (1 << len(parts)) - 1  # the places a component still follows
        for name in self.names:
            if name is None:  # `**`: from the lowest place reached, any place further on
                reached = below & ~((reached & -reached) - 1)
            else:
                after = 0
                candidates = reached & below
                while candidates:
                    low = candidates & -candidates
                    if name.match(parts[low.bit_length() - 1]):
                        after |= low << 1
                    candidates ^= low
                reached = after
            if not reached:
                return None
        return self._how(reached, parts)

    def _below_a_folder(self, path: str) -> Match | None:
        """Shape "slash": every path below a folder (the folder itself too, unless `/`-only)."""
        if "/" not in path:
            return None
        marked = self.folders_only
        return Match(marked, not marked or path.endswith("/"))

    def _how(self, reached: int, parts: list[str]) -> Match | None:
        """How a glob that reached `reached` in `parts` matches the path: a match of the path
        itself, or (marked) of a folder above it."""
        count = len(parts)
        folder_itself = count >= 2 and parts[-1] == "" and bool(reached >> (count - 1) & 1)
        if self.trailing_any:
            if not reached & ((1 << count) - 1):
                return None
            marked = self.folders_only
            return Match(marked, not marked or folder_itself)
        if reached >> count & 1:
            return Match(False, True)
        return Match(True, folder_itself)


def compile_glob(line: str, limit: int = MAX_GLOB_CHARS) -> Glob | None:
    """The glob of one .gitignore-style line, None for a line that is no pattern (blank, a
    comment, "/"), or GlobError saying why it cannot mean anything (GlobTooLong past `limit`)."""
    if len(line) > limit:
        raise GlobTooLong(len(line), limit)
    text = line if line.endswith("\\ ") else line.rstrip()
    if not text or text.startswith("#") or text == "/":
        return None
    include = not text.startswith("!")
    body = text if include else text[1:]
    folders_only = body.endswith("/")
    segments = _segments(body)
    shape = _shape(segments, folders_only)
    if shape != "path":
        return Glob(body, include, shape, folders_only, (), False)
    trailing = segments[-1] == "**"
    kept = segments[:-1] if trailing else segments
    names = tuple(None if part == "**" else _name(part) for part in kept)
    return Glob(body, include, shape, folders_only, names, trailing)


def _segments(body: str) -> list[str]:
    """The glob's components as git reads them: a leading "/" anchors it (and goes), a glob of
    one name (a folder's too) applies at any depth (a `**` before it), a trailing "/" stands for
    everything below (a `**`), and `**` repeated is one."""
    segments = body.split("/")
    if not segments[0]:
        del segments[0]
    elif segments[0] != "**" and segments[1:] in ([], [""]):
        segments.insert(0, "**")
    if not segments:
        raise GlobError("is not a pattern")
    if not segments[-1]:
        segments[-1] = "**"
    return [
        part for i, part in enumerate(segments) if part != "**" or i == 0 or segments[i - 1] != "**"
    ]


def _shape(segments: list[str], folders_only: bool) -> Shape:
    """The shapes that match every path ("any") or every path below a folder ("slash")."""
    if segments == ["**"]:
        return "slash" if folders_only else "any"
    if segments == ["**", "*"]:
        return "any"
    if segments == ["**", "*", "**"]:
        return "slash"
    return "path"
