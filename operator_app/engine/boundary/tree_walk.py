"""The walk of a folder tree below a descriptor, for fs.searchTree, fs.find and fs.tree: depth
first, in the plain string order of full paths (a folder sorts as "name/", so the order is what
`git ls-files` gives), nothing followed and no special file opened, with git's ignore rules
(gitignore.py) when asked.

What comes out is a stream of events, not one object per file: the consecutive regular files of
a folder come as one `FileRun` (the folder's descriptor and their names, read from the directory
entry's type, no stat), so a walk over 20,000 files costs little more than the reads it feeds.
A `FileRun`'s descriptor is valid until the next event is asked for.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Literal, NamedTuple

from .fsops import open_subdir

if TYPE_CHECKING:  # the rules are handed in by the workspace, which loads them only for a walk
    from .gitignore import FolderRules, GitRules

SkipReason = Literal["symlink", "special", "gitignore", "unreadable", "excluded"]


class FileRun(NamedTuple):
    """Regular files (by their directory entry) of the folder open at `dir_fd`, in walk order."""

    dir_fd: int
    prefix: str  # the folder's path as shown ("." or "" for the workspace root)
    names: list[str]
    depth: int  # 1: directly in the folder walked
    # the paths as shown, when they are not prefix/name: a file walked as itself through a symlink
    shown: tuple[str, ...] | None = None

    def rel(self, index: int) -> str:
        """The path of names[index] as the model is shown it."""
        if self.shown is not None:
            return self.shown[index]
        return join(self.prefix, self.names[index])


class Folder(NamedTuple):
    """A folder met on the way, before its entries; `opened` is False at the depth limit."""

    rel: str
    depth: int
    opened: bool


class Skipped(NamedTuple):
    rel: str
    reason: SkipReason
    depth: int
    is_dir: bool = False


class Notice(NamedTuple):
    """Something the walk's result must say: a .gitignore that was not read whole."""

    text: str


WalkEvent = FileRun | Folder | Skipped | Notice
# Called with an entry's path relative to the folder walked and whether it is a folder: True
# leaves it out (a Skipped "excluded" event; a folder is not entered).
Exclude = Callable[[str, bool], bool]
Entry = tuple[str, str]  # (name, kind): kind is "dir", "file", "symlink" or "other"


def scan_kinds(fd: int) -> list[Entry]:
    """(name, kind) of each entry of the folder open at `fd`, from the directory entry's type:
    no stat per entry where the file system records types (where it does not, os.scandir stats)."""
    entries: list[Entry] = []
    with os.scandir(fd) as scan:
        for entry in scan:
            try:
                if entry.is_dir(follow_symlinks=False):
                    kind = "dir"
                elif entry.is_file(follow_symlinks=False):
                    kind = "file"
                elif entry.is_symlink():
                    kind = "symlink"
                else:
                    kind = "other"
            except OSError:
                continue  # removed while we listed
            entries.append((entry.name, kind))
    return entries


def join(prefix: str, name: str) -> str:
    return name if prefix in ("", ".") else f"{prefix}/{name}"


def _walk_order(entry: Entry) -> str:
    # A folder sorts as "name/": the walk then comes out in the plain string order of full paths.
    return entry[0] + "/" if entry[1] == "dir" else entry[0]


class _Frame:
    __slots__ = ("depth", "fd", "inner", "parts", "pending", "prefix", "pushed", "rules")

    def __init__(
        self,
        fd: int,
        prefix: str,
        inner: str,
        parts: tuple[str, ...],
        entries: list[Entry],
        pushed: int,
        depth: int,
        rules: FolderRules,
    ) -> None:
        self.fd, self.prefix, self.inner, self.parts = fd, prefix, inner, parts
        self.pending = sorted(entries, key=_walk_order, reverse=True)
        self.pushed, self.depth, self.rules = pushed, depth, rules


def walk_events(
    top_fd: int,
    top_entries: list[Entry],
    rel: str,
    parts: tuple[str, ...],
    rules: GitRules | None,
    *,
    exclude: Exclude | None = None,
    max_depth: int | None = None,
) -> Generator[WalkEvent, None, None]:
    """Depth-first walk of the folder open at `top_fd` (shown as `rel`, resolved `parts`).

    `top_entries` is scan_kinds(top_fd), taken by the caller so that errors about the folder
    itself are the caller's. With `rules` (git mode), entries named .git are left out and ignored
    entries come out as one Skipped event each (an ignored folder is not entered). Nothing is
    followed, no special file is opened, a subfolder that cannot be opened is Skipped
    "unreadable". Folders deeper than `max_depth` are met (Folder, opened=False) but not entered.
    Subfolder descriptors opened here are closed here; `top_fd` stays the caller's.
    """
    frames: list[_Frame] = []
    told = 0  # notices of `rules` given so far
    try:
        pushed = rules.load(top_fd, parts) if rules is not None else 0
        folder_rules = rules.folder(parts) if rules is not None else ()
        frames.append(_Frame(top_fd, rel, "", parts, top_entries, pushed, 1, folder_rules))
        while frames:
            if rules is not None and len(rules.cuts) > told:
                yield from (Notice(text) for text in rules.cuts[told:])
                told = len(rules.cuts)
            frame = frames[-1]
            if (yield from _entries(frame, frames, rules, exclude, max_depth)):
                continue  # into the subfolder it pushed; back to this frame after it
            frames.pop()
            if rules is not None:
                rules.pop(frame.pushed)
            if frame.fd != top_fd:
                os.close(frame.fd)
    finally:
        for frame in frames:
            if frame.fd != top_fd:
                os.close(frame.fd)


def _entries(
    frame: _Frame,
    frames: list[_Frame],
    rules: GitRules | None,
    exclude: Exclude | None,
    max_depth: int | None,
) -> Generator[WalkEvent, None, bool]:
    """The events of `frame`'s pending entries, up to a subfolder entered (pushed on `frames`:
    True) or the folder's end (False). Every entry of a tree passes here, so a regular file
    takes no call but the rules' and `exclude`'s (bench_search.py measures the walk)."""
    pending, prefix, depth = frame.pending, frame.prefix, frame.depth
    checked = rules if frame.rules else None
    left_out = ".git" if rules is not None else None  # git mode leaves git's own folder out
    run: list[str] = []
    while pending:
        name, kind = pending.pop()
        if name == left_out:
            continue
        is_dir = kind == "dir"
        reason: SkipReason | None = None
        if checked is not None and checked.ignored_in(frame.rules, name, is_dir=is_dir):
            reason = "gitignore"
        elif exclude is not None and exclude(frame.inner + name, is_dir):
            reason = "excluded"
        elif kind == "file":
            run.append(name)
            continue
        if run:
            yield FileRun(frame.fd, prefix, run, depth)
            run = []
        if reason is not None:
            yield Skipped(join(prefix, name), reason, depth, is_dir)
            continue
        event = _not_a_file(frame, frames, name, kind, rules, max_depth)
        if event is not None:
            yield event
        if frames[-1] is not frame:
            return True
    if run:
        yield FileRun(frame.fd, prefix, run, depth)
    return False


def _not_a_file(
    frame: _Frame,
    frames: list[_Frame],
    name: str,
    kind: str,
    rules: GitRules | None,
    max_depth: int | None,
) -> WalkEvent | None:
    """What an entry that is no regular file comes out as (None: a folder that vanished); a
    folder entered is pushed on `frames`, whose owner closes it from then on."""
    shown = join(frame.prefix, name)
    if kind == "symlink":
        return Skipped(shown, "symlink", frame.depth)
    if kind != "dir":
        return Skipped(shown, "special", frame.depth)
    if max_depth is not None and frame.depth >= max_depth:
        return Folder(shown, frame.depth, False)
    entered, event = _enter(frame, name, shown, rules)
    if entered is not None:
        frames.append(entered)
    return event


def _enter(
    frame: _Frame, name: str, shown: str, rules: GitRules | None
) -> tuple[_Frame | None, WalkEvent | None]:
    """Open subfolder `name` of `frame`: the frame to walk it with (None: it cannot be entered)
    and the event that says so (its Folder, or why it was Skipped; None when it vanished)."""
    depth = frame.depth
    child = _open_child(frame.fd, name)
    if child is None:
        return None, None  # it vanished since the listing: nothing to say
    if not isinstance(child, int):
        return None, Skipped(shown, child, depth, True)
    parts = (*frame.parts, name)
    try:
        entries = scan_kinds(child)
        pushed = rules.load(child, parts) if rules is not None else 0
    except OSError:
        os.close(child)
        return None, Skipped(shown, "unreadable", depth, True)
    except BaseException:
        os.close(child)
        raise
    folder_rules: FolderRules = ()
    if rules is not None:
        try:
            folder_rules = rules.folder(parts)
        except BaseException:  # IgnoreRulesTooSlow: the walk stops here
            os.close(child)
            raise
    entered = _Frame(
        child, shown, f"{frame.inner}{name}/", parts, entries, pushed, depth + 1, folder_rules
    )
    return entered, Folder(shown, depth, True)


def _open_child(parent_fd: int, name: str) -> int | Literal["symlink", "unreadable"] | None:
    """The subfolder's fd, or why it is skipped (None: it vanished and needs no mention)."""
    try:
        return open_subdir(parent_fd, name)
    except FileNotFoundError:
        return None
    except OSError as error:
        # ELOOP: it became a symlink after the listing.
        return "symlink" if error.errno == errno.ELOOP else "unreadable"
