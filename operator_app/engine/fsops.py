"""Descriptor-level filesystem steps for the workspace: open what was checked, never follow a link.

Callers hand in path components that were already resolved and checked against the workspace
root. These helpers only guarantee that what gets opened is still that path -- one component at
a time relative to the previous directory's descriptor, each with O_NOFOLLOW -- and that nothing
but a regular file is ever opened for reading (FIFOs, sockets and devices are refused from an
lstat, before any open). The tree walk below a folder descriptor lives here too, with git's
ignore rules, and the one-pass symlink resolution the workspace checks paths with. Errors are
plain OSError subclasses; workspace.py turns them into OperatorError values for the model.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pathspec



DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO swapped in after the lstat must not hang the open; O_NOCTTY: a terminal
# swapped in the same way must not become our controlling terminal.
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY

MAX_GITIGNORE_BYTES = 1 << 20

KIND_NAMES = {
    stat.S_IFREG: "file",
    stat.S_IFDIR: "dir",
    stat.S_IFLNK: "symlink",
    stat.S_IFIFO: "fifo",
    stat.S_IFSOCK: "socket",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
}


def kind_of(mode: int) -> str:
    """"file", "dir", "symlink", "fifo", "socket", "character device", "block device" or "other"."""
    return KIND_NAMES.get(stat.S_IFMT(mode), "other")


class StepError(Exception):
    """An OSError met while opening component `index` of a chain (-1 is the root itself)."""

    def __init__(self, error: OSError, index: int) -> None:
        super().__init__(error, index)
        self.error = error
        self.index = index


class NotRegular(Exception):
    """The entry is not a regular file; `kind` is a kind_of() name. Nothing was opened for it."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def resolve_steps(root: str, parts: Sequence[str]) -> Iterator[tuple[int, str, bool]]:
    """(index, realpath of root/parts[:index + 1], whether it exists) for each component, in one
    pass: os.path.realpath's own walk, kept so that each prefix is resolved from the one before
    instead of from the root again (a path through a symlink to "." was quadratic). `root` must
    be a realpath; a missing component and the rest are joined as written, as realpath does."""
    resolved = root
    for index, name in enumerate(parts):
        candidate = os.path.join(resolved, name)
        try:
            is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
            exists = True
        except OSError:
            is_link = exists = False
        if is_link:
            resolved = os.path.realpath(candidate)
            exists = os.path.lexists(resolved)
        else:
            resolved = candidate
        yield index, resolved, exists


def open_dir_chain(root: str, parts: Sequence[str], *, create: bool = False) -> tuple[int, list[int]]:
    """Open root, then each of `parts` below it as a directory; return (fd of the last, indexes created).

    With create=True a missing component is made with mkdir relative to its parent's descriptor.
    On failure every directory made here is removed again (best effort, they are empty) and
    StepError carries the index of the component that failed.
    """
    try:
        fds = [os.open(root, DIR_FLAGS)]
    except OSError as error:
        raise StepError(error, -1) from error
    created: list[int] = []
    try:
        for index, name in enumerate(parts):
            try:
                fds.append(_open_dir_step(fds[-1], name, create, created, index))
            except OSError as error:
                raise StepError(error, index) from error
    except BaseException:
        for index in reversed(created):
            try:
                os.rmdir(parts[index], dir_fd=fds[index])
            except OSError:
                pass
        for fd in fds:
            os.close(fd)
        raise
    for fd in fds[:-1]:
        os.close(fd)
    return fds[-1], created


def open_subdir(parent_fd: int, name: str) -> int:
    """Open folder `name` in `parent_fd` without following it; a symlink there raises ELOOP."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except NotADirectoryError:
        # Linux reports O_DIRECTORY|O_NOFOLLOW on a symlink as ENOTDIR; callers need to tell
        # "a symlink appeared here" from "a file is in the way".
        if stat.S_ISLNK(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def _open_dir_step(parent_fd: int, name: str, create: bool, created: list[int], index: int) -> int:
    try:
        return open_subdir(parent_fd, name)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, 0o777, dir_fd=parent_fd)
        created.append(index)
    except FileExistsError:
        pass  # made by someone else meanwhile; the O_NOFOLLOW open below still checks what it is
    return open_subdir(parent_fd, name)


def open_regular(dir_fd: int, name: str) -> tuple[int, os.stat_result]:
    """Open `name` in `dir_fd` for reading if it is a regular file; return (fd, fstat).

    The lstat first keeps FIFOs, sockets and devices from ever being opened; the fstat after the
    open catches one swapped in between the two calls.
    """
    kind = kind_of(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    if kind != "file":
        raise NotRegular(kind)
    fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        kind = kind_of(info.st_mode)
        if kind != "file":
            raise NotRegular(kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_exactly(fd: int, size: int) -> bytes:
    """Read `size` bytes (fewer only if the file shrank meanwhile).

    One os.read of the whole size where the system allows it: reading a 2 MB file in 1 MB chunks
    and joining them cost 25 times a single read, on every plan and commit."""
    data = os.read(fd, size) if size > 0 else b""
    if len(data) >= size or not data:
        return data
    chunks = [data]
    remaining = size - len(data)
    while remaining > 0:  # a short read (a large file, a signal): carry on where it stopped
        chunk = os.read(fd, min(remaining, 1 << 30))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_small_text(dir_fd: int, name: str, limit: int) -> str | None:
    """The text of a regular file such as .gitignore, or None if absent, unreadable or over `limit`."""
    try:
        fd, info = open_regular(dir_fd, name)
    except (OSError, NotRegular):
        return None
    try:
        if info.st_size > limit:
            return None
        return read_exactly(fd, info.st_size).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def scan_dir(fd: int) -> list[tuple[str, str, int]]:
    """(name, kind_of(lstat), size) of each entry of the folder open at `fd`, in no set order."""
    entries: list[tuple[str, str, int]] = []
    with os.scandir(fd) as scan:
        for entry in scan:
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed while we listed
            entries.append((entry.name, kind_of(info.st_mode), info.st_size))
    return entries


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
                f"matching .gitignore patterns took over {GITIGNORE_BUDGET_S:g} s (a pattern with many * or a very "
                "long .gitignore)"
            )

    def load(self, fd: int, parts: tuple[str, ...]) -> int:
        """Push the .gitignore of the folder open at `fd` (at `parts`), if any; return how many were pushed."""
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
                    setattr(pattern, "regex", _BoundedRegex(regex.compile(compiled.pattern), self))
                except regex.error:
                    pass  # a pattern `regex` reads differently keeps `re`: still bounded by the budget checks
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
                f"matching .gitignore patterns took over {GITIGNORE_BUDGET_S:g} s (a pattern with many *)"
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
    top_fd: int, top_entries: list[tuple[str, str, int]], rel: str, parts: tuple[str, ...], rules: GitRules | None
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
        frames.append((top_fd, rel, parts, sorted(top_entries, key=_walk_order, reverse=True), pushed))
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
