"""fs.searchTree's include and exclude: the globs (protocol/globs.py) matched against each path
relative to the folder searched. exclude is handed to the walk, which then does not enter an
excluded folder; include is asked of each file. Also the words the walks' results share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from ...protocol.globs import glob_list

if TYPE_CHECKING:
    from ...protocol.globs import GlobList
    from ..boundary.tree_walk import Exclude


class Filters(Struct, frozen=True):
    root: str  # the folder searched, as shown: paths below it start with root + "/"
    include: GlobList | None
    exclude_spec: GlobList | None

    @classmethod
    def of(cls, include: str | None, exclude: str | None, root: str) -> Filters:
        return cls(
            root,
            glob_list(include, "include") if include else None,
            glob_list(exclude, "exclude") if exclude else None,
        )

    @property
    def exclude(self) -> Exclude | None:
        spec = self.exclude_spec
        if spec is None:
            return None

        def excluded(inner: str, is_dir: bool) -> bool:
            return spec.match_file(inner + "/" if is_dir else inner)

        return excluded

    def inner(self, rel: str) -> str:
        """`rel` (a path as shown) relative to the folder searched; a file searched as itself is
        its own name."""
        if self.root == ".":
            return rel
        if rel.startswith(self.root + "/"):
            return rel[len(self.root) + 1 :]
        return rel.rpartition("/")[2]

    def included(self, rel: str) -> bool:
        spec = self.include
        return spec is None or spec.match_file(self.inner(rel))


def entries(n: int) -> str:
    """ "1 entry", "3 entries"."""
    return f"{n} {'entry' if n == 1 else 'entries'}"
