"""The question a walk asks every entry first, "can any pattern of this .gitignore match it?"
(engine/boundary/ignore_screen.py, asked of the entry's name for the patterns without a "/"),
never changes what a .gitignore decides: on real folders of drawn names, with a .gitignore of
drawn patterns at the root and another in a subfolder (the shapes real trees hold, and the odd
ones pathspec reads its own way: negated classes, a range over "/", "**", escapes), a walk leaves
out exactly what the exact rules (git's, protocol/glob_match.py, made from the same lines),
asked of every entry with the deepest .gitignore deciding, leave out."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from operator_app.engine.boundary.gitignore import _prepare
from operator_app.engine.boundary.tree_walk import FileRun, Skipped
from operator_app.engine.boundary.workspace import Workspace
from operator_app.protocol.globs import GlobList

FOLDERS = ["a", "b", "x", "build", "docs", "foo"]
FILES = ["a", "b", "y", "ab", "xy", "x+y", "x,y", "_build", "site", "bar", "x.log", "keep.log"]
FILES += ["a.pyc", "c.so", ".env", "x b", "abc def", "abcdef", "!x", "a]"]
PATTERNS = ["*.log", "!keep.log", "build/", "/site", "docs/_build/", "**/foo/bar", "a/**/b"]
PATTERNS += ["[!a]b", "a[!x]b", "x[+-0]y", "*.py[cod]", "?b", "a*", "foo", "!foo", "b/", "*.so"]
PATTERNS += [".env", "\\!x", "x\\ b", "ab/", "[ab]", "**/ab", "a/b", "!a/b", "bar/**", "abc**def"]
PATTERNS += ["*", "a\\]", "x?y", "[a-c]b", "*b", "!*b", "#comment", "", "xy/", "*/b", "a*/"]
PATTERNS += ["!build/", "!build", "docs", "!docs/", "x", "!x/", "bu*/", "!b*", "[ab]*", "*[ab]"]
PATTERNS += ["a[bx]y*", "[ax][by]", "/x b/y", "/a?/b", "/a*/b", "a\\*b/c", "/x+y", "!/x+y"]

paths = st.lists(
    st.tuples(st.lists(st.sampled_from(FOLDERS), max_size=2), st.sampled_from(FILES)),
    max_size=25,
)
patterns = st.lists(st.sampled_from(PATTERNS), max_size=8)


def make_tree(root: Path, drawn: list[tuple[list[str], str]]) -> None:
    for folders, name in drawn:
        folder = root.joinpath(*folders)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not (folder / name).exists():
                (folder / name).write_text("x\n")
        except (FileExistsError, NotADirectoryError):
            pass  # a name drawn as a file and as a folder: the first one stands


def walked(root: Path) -> tuple[set[str], set[str]]:
    """(files walked, entries left out by .gitignore), by the engine's walk."""
    ws = Workspace(root)
    files, ignored = set(), set()
    for event in ws.walk(ws.target(".")):
        if isinstance(event, FileRun):
            files.update(event.rel(i) for i in range(len(event.names)))
        elif isinstance(event, Skipped) and event.reason == "gitignore":
            ignored.add(event.rel)
    return files, ignored


def exact(root: Path) -> tuple[set[str], set[str]]:
    """The same, with the exact rules asked of every entry, deepest .gitignore first."""
    files: set[str] = set()
    ignored: set[str] = set()

    def visit(folder: Path, rel: str, layers: list[tuple[str, GlobList]]) -> None:
        if (folder / ".gitignore").is_file():
            lines = (folder / ".gitignore").read_text().split("\n")
            globs = _prepare(lines, float("inf"))[0]
            layers = [*layers, (rel, GlobList(tuple(globs)))]
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            path = f"{rel}/{entry.name}" if rel else entry.name
            asked = path + "/" if entry.is_dir() else path
            decided = None
            for base, spec in reversed(layers):
                decided = spec.decide(asked[len(base) + 1 :] if base else asked)
                if decided is not None:
                    break
            if decided:
                ignored.add(path)
            elif entry.is_dir():
                visit(Path(entry.path), path, layers)
            else:
                files.add(path)

    visit(root, "", [])
    return files, ignored


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths, patterns, patterns, st.sampled_from(FOLDERS))
# a folder that a pattern without "/" names, and that a later negation takes back: the deeper
# .gitignore has a say on every entry below it (not ignored), though no entry's name shows it
@example([(["a", "build"], "x.log")], ["*.log"], ["build/", "!build/"], "a")
# "[!x]" is "[^x]" to pathspec, whose expression (the screen's) matches the "/" of a/b, though
# git's rule does not: the screen may say yes where the exact rules say no, never the other way
@example([(["a"], "b"), ([], "ab")], ["a[!x]b"], [], "a")
def test_the_screen_leaves_out_what_the_exact_rules_leave_out(
    drawn: list[tuple[list[str], str]], at_root: list[str], inside: list[str], subfolder: str
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        make_tree(root, drawn)
        (root / ".gitignore").write_text("\n".join(at_root) + "\n")
        if (root / subfolder).is_dir():
            (root / subfolder / ".gitignore").write_text("\n".join(inside) + "\n")
        assert walked(root) == exact(root)
