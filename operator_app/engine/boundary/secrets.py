"""Which workspace paths look like secrets: a file whose name says it holds keys, tokens or
passwords (`.env`, `id_rsa`, `*.pem`, what lies in `.aws/` or `.ssh/`...). A model that reads one
sends its content to the chat's provider, and a prompt-injected model can be told to do exactly
that: so a read of such a path waits for the person's yes like a write (changes/secret_read.py),
and a tree search leaves such files out (reads/search_tree.py).

The patterns are gitignore's (pathspec), matched against the workspace-relative path without
regard to case: a bare name matches at any depth, a trailing `/` names a folder and everything in
it, `!` exempts what an earlier pattern caught. Operator's own list is DEFAULT_PATTERNS; the
person's settings may replace it and add patterns per workspace (settings.py, `secret_paths`).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

DEFAULT_PATTERNS: tuple[str, ...] = (
    ".env*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials*",
    ".aws/",
    ".ssh/",
    ".gnupg/",
    ".docker/config.json",
)


class SecretPaths:
    """A set of gitignore patterns naming the paths that look like secrets."""

    def __init__(self, patterns: Iterable[str]) -> None:
        kept = (pattern.strip() for pattern in patterns)
        self.patterns = tuple(pattern for pattern in kept if pattern and pattern[0] != "#")

    @classmethod
    def configured(cls, everywhere: list[str] | None, here: list[str]) -> SecretPaths:
        """`everywhere`: the settings' list for every workspace (None: Operator's own); `here`:
        the patterns the settings add for this workspace (later ones win, `!` exempts)."""
        return cls([*(DEFAULT_PATTERNS if everywhere is None else everywhere), *here])

    @cached_property
    def _last_parts(self) -> _Segments:
        """Each pattern's last path segment ("id_rsa*", ".aws", "config.json"), lower-cased, as
        the first look tests it."""
        return _Segments.of(
            {p.lstrip("!").rstrip("/").rsplit("/", 1)[-1].lower() for p in self.patterns} - {""}
        )

    def _may_match(self, path: str) -> bool:
        """A cheap first look, with the standard library only: a path can match only if one of
        its components matches some pattern's last segment. Most paths go no further, and a read
        of an ordinary file never loads pathspec (the headless path stays light)."""
        return any(self._last_parts.match(part) for part in path.split("/"))

    @cached_property
    def _spec(self) -> pathspec.GitIgnoreSpec:
        import pathspec  # only when a path is first checked

        return pathspec.GitIgnoreSpec.from_lines([p.lower() for p in self.patterns])

    def matches(self, rel: str) -> str | None:
        """The pattern that makes `rel` (a workspace-relative path, "/"-separated) look like a
        secret, or None when it does not."""
        path = rel.strip("/").lower()
        if not path or path == "." or not self._may_match(path):
            return None
        if not self._spec.match_file(path):
            return None
        import pathspec

        for pattern in reversed(self.patterns):  # the last pattern that matches decides
            if pattern.startswith("!"):
                continue
            if pathspec.GitIgnoreSpec.from_lines([pattern.lower()]).match_file(path):
                return pattern
        return self.patterns[-1]  # (unreachable in practice: the spec matched through one)

    def __repr__(self) -> str:
        return f"SecretPaths({list(self.patterns)!r})"


class _Segments:
    """Glob segments tested as strings where they are plain ones (a name, "name*", "*.ext": all
    of Operator's own are), by fnmatch otherwise. fnmatch compiles a regular expression for each
    pattern the first time it sees it: for Operator's list some 5 M instructions, a tenth of what
    every `exec` of one read costs beyond Python's start and pydantic (docs/design.md,
    "Start-up")."""

    def __init__(
        self,
        names: frozenset[str],
        prefixes: tuple[str, ...],
        suffixes: tuple[str, ...],
        globs: tuple[str, ...],
    ) -> None:
        self.names, self.prefixes, self.suffixes, self.globs = names, prefixes, suffixes, globs

    @classmethod
    def of(cls, segments: Iterable[str]) -> _Segments:
        names: set[str] = set()
        prefixes: list[str] = []
        suffixes: list[str] = []
        globs: list[str] = []
        for segment in sorted(segments):
            stars, body = segment.count("*"), segment.strip("*")
            if any(magic in segment for magic in "?[") or stars > 1 or "*" in body:
                globs.append(segment)
            elif not stars:
                names.add(segment)
            elif segment.endswith("*"):
                prefixes.append(body)
            else:
                suffixes.append(body)
        return cls(frozenset(names), tuple(prefixes), tuple(suffixes), tuple(globs))

    def match(self, part: str) -> bool:
        return (
            part in self.names
            or part.startswith(self.prefixes)
            or part.endswith(self.suffixes)
            or any(fnmatchcase(part, glob) for glob in self.globs)
        )


OPERATORS_OWN = SecretPaths(DEFAULT_PATTERNS)
