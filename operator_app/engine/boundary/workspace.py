"""The workspace boundary: every path the model gives is checked here, and every read is made here.

`Workspace.target()` turns the model's path into a `Target` or an OperatorError: relative, no
control characters or backslashes, no `..` above the root, and no symlink anywhere along it that
leads outside (resolved paths are compared by components, never by string prefix). Reads then open
what was checked: the resolved components are walked from a descriptor of the root with
O_NOFOLLOW (fsops.py), so a folder swapped for a symlink after the check is refused, and only
regular files are ever opened. Symlinks inside the workspace that stay inside are followed by
target() itself; `lstat()` and `open_parent_dir()` keep the final component as written, so a
writer can see (and refuse) a symlinked target. What the model is told when a check or an open
fails is worded in refusals.py; the walk below a folder is tree_walk.py.
"""

from __future__ import annotations

import errno
import os
import unicodedata
from collections.abc import Generator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from msgspec import Struct

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.escapes import escape_name
from .fsops import (
    DIR_FLAGS,
    NotRegular,
    StepError,
    kind_of,
    open_dir_chain,
    open_regular,
    open_subdir,
    read_exactly,
    resolve_steps,
    scan_dir,
)
from .refusals import changed, fail, not_a_file, outside, refuse_kind
from .refusals import close_names as names_close_to
from .refusals import not_found as not_found_error
from .target import DirEntry, Target

if TYPE_CHECKING:
    from .tree_walk import Exclude, FileRun, WalkEvent

__all__ = [
    "MAX_PATH_CHARS",
    "MAX_PATH_COMPONENTS",
    "DirEntry",
    "Target",
    "WalkItem",
    "Workspace",
    "WorkspaceUnusable",
]

# Linux's PATH_MAX, and a depth no real tree needs: resolving a path costs a step per component,
# and a symlink to "." inside the workspace would otherwise let "s/s/s/..." cost without end.
# Bidirectional overrides, isolates and marks: invisible, they reorder how a name is drawn
# ("Trojan Source"), so a path holding one is refused, never looked up.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
MAX_PATH_CHARS = 4096
MAX_PATH_COMPONENTS = 256
_ENTRY_KINDS: dict[str, Literal["dir", "file", "symlink", "other"]] = {
    "dir": "dir",
    "file": "file",
    "symlink": "symlink",
}


class WalkItem(Struct, frozen=True):
    """One entry of `Workspace.walk_files`: a file with its size, or an entry skipped and why."""

    rel: str
    kind: Literal["file", "skipped"]
    size: int  # bytes for a file, 0 for skipped items
    reason: Literal["symlink", "special", "gitignore", "unreadable", "excluded"] | None


class WorkspaceUnusable(Exception):
    """The workspace root is missing, not a directory, or unreadable."""


class Workspace:
    root: Path

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.exists():
            raise WorkspaceUnusable(f"{self.root} does not exist")
        if not self.root.is_dir():
            raise WorkspaceUnusable(f"{self.root} is not a directory")
        try:
            fd = os.open(self.root, DIR_FLAGS)
            try:
                with os.scandir(fd) as entries:
                    next(entries, None)
            finally:
                os.close(fd)
        except OSError as error:
            raise WorkspaceUnusable(f"{self.root} cannot be read: {error.strerror}") from error

    # -- checking a path -------------------------------------------------------------------

    def target(self, raw: str) -> Target:
        self._refuse_malformed(raw)
        parts = self._spelled_as_on_disk(_components(raw))
        rel = "/".join(parts) or "."
        resolved = str(self.root)
        # Every prefix must resolve inside too: a link out and a link back in would otherwise
        # make the answer depend on a folder outside the workspace.
        for index, resolved, _exists in resolve_steps(str(self.root), parts):
            if not self._inside(Path(resolved)):
                raise outside(rel, "/".join(parts[: index + 1]))
        return Target(rel, Path(resolved), tuple(parts))

    def _refuse_malformed(self, raw: str) -> None:
        """The path as written, before it is split: never empty, no control character or
        backslash, not absolute or ~-rooted (with the relative path meant, when it is inside),
        not longer than the limit."""
        if not raw.strip():
            raise OperatorError(
                ErrorCode.ERR_INVALID_PATH,
                "the path is empty; give a path relative to the workspace root, . for the root",
            )
        for position, ch in enumerate(raw):
            if unicodedata.category(ch) == "Cc":
                raise OperatorError(
                    ErrorCode.ERR_INVALID_PATH,
                    f'the path "{escape_name(raw)}" has a control character ({escape_name(ch)}) '
                    f"at position {position}; remove it and use / as the separator",
                )
            if ch in _BIDI_CONTROLS:
                # (escape_name writes the control as its \u escape)
                raise OperatorError(
                    ErrorCode.ERR_INVALID_PATH,
                    f'the path "{escape_name(raw)}" has an invisible bidirectional control '
                    f"(U+{ord(ch):04X} {unicodedata.name(ch, '')}) at position {position}, which "
                    "makes a name read other than it is; remove it (a file named with one is for "
                    "the person to rename)",
                )
        if "\\" in raw:
            raise OperatorError(
                ErrorCode.ERR_INVALID_PATH,
                f'the path "{raw}" contains a backslash; use / '
                f"as the separator ({raw.replace(chr(92), '/')})",
            )
        if raw.startswith("/"):
            inside = PurePosixPath(os.path.normpath(raw))
            if inside.is_relative_to(self.root):
                # Not quoted: what the model is told has the workspace's own path made relative
                # (internal_failure.py), which would turn the quote into the answer.
                rel = inside.relative_to(self.root).as_posix() or "."
                raise OperatorError(
                    ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                    "an absolute path is never taken, even one inside the workspace; paths are "
                    f"relative to the workspace root: send {rel}",
                )
            raise OperatorError(
                ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                f"{raw} is absolute; paths are relative to the workspace root; use . for the root",
            )
        if raw.startswith("~"):
            raise OperatorError(
                ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                f"{raw} starts with ~, which is not expanded; paths are "
                "relative to the workspace root; use . for the root",
            )
        if len(raw) > MAX_PATH_CHARS:
            raise OperatorError(
                ErrorCode.ERR_INVALID_PATH,
                (
                    f"the path is {len(raw)} characters long; the "
                    f"limit is {MAX_PATH_CHARS}; use a shorter path"
                ),
            )

    def _spelled_as_on_disk(self, parts: list[str]) -> list[str]:
        """`parts` with a missing name that the folder holds in another Unicode normalization
        (é as one code point or as e and a combining accent: NFC and NFD look alike, and macOS
        and some editors write NFD) replaced by the folder's own spelling, so the model reaches
        the entry it can see. Only names that are not ASCII are looked at (ASCII has one form)."""
        if all(name.isascii() for name in parts):
            return parts
        for index, resolved, exists in resolve_steps(str(self.root), parts):
            if exists:
                continue
            name = parts[index]
            parent = os.path.dirname(resolved)
            if name.isascii() or not self._inside(Path(parent)):
                return parts
            try:
                names = os.listdir(parent)
            except OSError:
                return parts
            wanted = unicodedata.normalize("NFC", name)
            same = [n for n in names if n != name and unicodedata.normalize("NFC", n) == wanted]
            if len(same) != 1:
                return parts
            return self._spelled_as_on_disk([*parts[:index], same[0], *parts[index + 1 :]])
        return parts

    def walked(self, rel: str) -> Target:
        """The Target of a path that `walk_files` produced: a name read from disk, not from the
        model, so it skips the model-path rules (a real file may be called "~x" or "a\\b")."""
        parts = tuple(rel.split("/"))
        return Target(rel, self.root.joinpath(*parts), parts)

    def _inside(self, path: Path) -> bool:
        return path.is_relative_to(self.root)

    def _resolved_parts(self, t: Target) -> tuple[str, ...]:
        if not self._inside(t.abs):
            raise outside(t.rel, t.rel)
        return t.abs.relative_to(self.root).parts

    # -- opening what was checked ------------------------------------------------------------

    def lstat(self, t: Target) -> os.stat_result | None:
        if not t.parts:
            fd = self._chain(t, (), "checking")
            try:
                return os.fstat(fd)
            finally:
                os.close(fd)
        try:
            fd, name, _ = self._parent_chain(t, create=False)
        except StepError as step:
            if step.error.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            raise fail(
                self.root, t, step.error, step.index, "checking", self._parent_parts(t)
            ) from step.error
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise fail(self.root, t, error, len(t.parts) - 1, "checking", t.parts) from error
        finally:
            os.close(fd)

    def read_file(self, t: Target, *, max_bytes: int | None) -> bytes:
        fd, info = self._open_regular(t)
        try:
            if max_bytes is not None and info.st_size > max_bytes:
                raise OperatorError(
                    ErrorCode.ERR_FILE_TOO_LARGE,
                    f"{t.rel} is {info.st_size} bytes, over the {max_bytes}-byte limit",
                )
            return read_exactly(fd, info.st_size)
        except OSError as error:
            raise fail(self.root, t, error, len(t.parts) - 1, "reading", t.parts) from error
        finally:
            os.close(fd)

    def file_size(self, t: Target) -> int:
        fd, info = self._open_regular(t)
        os.close(fd)
        return info.st_size

    def open_dir(self, t: Target) -> int:
        """A directory descriptor for a folder target; the caller closes it."""
        return self._chain(t, self._resolved_parts(t), "opening", whole=True)

    def open_parent_dir(self, t: Target, *, create: bool) -> tuple[int, str, list[str]]:
        """(fd of the target's resolved parent folder, final component as written, folders created).

        The final component is not resolved, so a symlink there is still visible to an lstat
        relative to the fd. Folders created are relative to the root (resolved), parents first;
        on failure none are left behind. The caller closes the fd.
        """
        if not t.parts:
            raise OperatorError(
                ErrorCode.ERR_NOT_A_FILE,
                ". is the workspace root, a folder; name an entry inside it",
            )
        try:
            fd, name, created = self._parent_chain(t, create=create)
        except StepError as step:
            raise fail(
                self.root, t, step.error, step.index, "opening", self._parent_parts(t)
            ) from step.error
        return fd, name, created

    def _parent_parts(self, t: Target) -> tuple[str, ...]:
        parent = Path(os.path.realpath(self.root.joinpath(*t.parts[:-1])))
        if not self._inside(parent):
            raise outside(t.rel, "/".join(t.parts[:-1]))
        return parent.relative_to(self.root).parts

    def _parent_chain(self, t: Target, *, create: bool) -> tuple[int, str, list[str]]:
        parts = self._parent_parts(t)
        fd, created = open_dir_chain(str(self.root), parts, create=create)
        return fd, t.parts[-1], ["/".join(parts[: index + 1]) for index in created]

    def _chain(self, t: Target, parts: tuple[str, ...], doing: str, *, whole: bool = False) -> int:
        """`whole`: parts[-1] is the target itself (ENOTDIR there: "the target is no folder")."""
        try:
            return open_dir_chain(str(self.root), parts)[0]
        except StepError as step:
            raise fail(
                self.root, t, step.error, step.index, doing, parts, whole=whole
            ) from step.error

    def _open_regular(self, t: Target) -> tuple[int, os.stat_result]:
        parts = self._resolved_parts(t)
        if not parts:
            raise not_a_file(t)
        dir_fd = self._chain(t, parts[:-1], "reading")
        try:
            return open_regular(dir_fd, parts[-1])
        except NotRegular as refused:
            raise refuse_kind(t, refused.kind) from None
        except OSError as error:
            raise fail(self.root, t, error, len(parts) - 1, "reading", parts) from error
        finally:
            os.close(dir_fd)

    # -- listing and walking ---------------------------------------------------------------------

    def list_dir(self, t: Target) -> list[DirEntry]:
        """The folder's entries sorted by name; nothing is followed or opened, nothing is hidden."""
        fd = self.open_dir(t)
        try:
            scanned = scan_dir(fd)
        except OSError as error:
            raise fail(self.root, t, error, len(t.parts) - 1, "listing", t.parts) from error
        finally:
            os.close(fd)
        entries = [
            DirEntry(name, _ENTRY_KINDS.get(kind, "other"), size if kind == "file" else 0)
            for name, kind, size in scanned
        ]
        return sorted(entries, key=lambda entry: entry.name)

    def walk(
        self,
        t: Target,
        *,
        ignore_git: bool = True,
        exclude: Exclude | None = None,
        max_depth: int | None = None,
    ) -> Generator[WalkEvent, None, None]:
        """The entries under `t` as tree_walk events, in the plain string order of their full
        relative paths (a folder's name sorts as "name/", so the order is what `git ls-files`
        would give), depth first; a file target is one FileRun of itself.

        Symlinks are never followed and FIFOs, sockets and devices never opened: both come out as
        Skipped, as does each gitignored entry (one for an ignored folder, which is not entered),
        each subfolder that cannot be opened ("unreadable") and each entry `exclude` leaves out.
        With ignore_git, entries named .git are left out silently and .gitignore files apply (the
        root's, those of the folders above `t`, and nested ones, each relative to its own folder);
        a target that is itself ignored is still walked, with only the .gitignore files inside it.
        Errors about `t` itself are raised at the first next(); close the iterator if you stop
        early.
        """
        # Only a walk reads .gitignore files and walks a tree: a plain read loads neither.
        from .gitignore import GitRules
        from .tree_walk import FileRun, Skipped, scan_kinds, walk_events

        parts = self._resolved_parts(t)
        rules = GitRules()
        fds: list[int] = []
        try:
            fds.append(self._chain(t, (), "walking"))
            for depth, name in enumerate(parts):
                if ignore_git:
                    rules.load(fds[-1], parts[:depth])
                try:
                    info = os.stat(name, dir_fd=fds[-1], follow_symlinks=False)
                    kind = kind_of(info.st_mode)
                    if kind == "dir":
                        fds.append(open_subdir(fds[-1], name))
                        continue
                except OSError as error:
                    raise fail(self.root, t, error, depth, "walking", parts) from error
                if kind == "symlink":
                    raise changed(t)
                if depth < len(parts) - 1:
                    raise fail(
                        self.root,
                        t,
                        NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)),
                        depth,
                        "walking",
                        parts,
                    )
                if kind == "file":
                    yield FileRun(fds[-1], "", [name], 1, (t.rel,))
                else:
                    yield Skipped(t.rel, "special", 1)
                return
            if rules.ignored(parts, is_dir=True):
                rules.clear()
            try:
                top = scan_kinds(fds[-1])
            except OSError as error:
                raise fail(
                    self.root, t, error, len(parts) - 1, "walking", parts, whole=True
                ) from error
            yield from walk_events(
                fds[-1],
                top,
                t.rel,
                parts,
                rules if ignore_git else None,
                exclude=exclude,
                max_depth=max_depth,
            )
        finally:
            for fd in fds:
                os.close(fd)

    def walk_files(self, t: Target, *, ignore_git: bool = True) -> Generator[WalkItem, None, None]:
        """The files of `walk` one by one with their sizes, and the entries it skipped (folders
        and notices are not items). Close the iterator if you stop early."""
        from .tree_walk import FileRun, Skipped

        for event in self.walk(t, ignore_git=ignore_git):
            if isinstance(event, Skipped):
                yield WalkItem(event.rel, "skipped", 0, event.reason)

            elif isinstance(event, FileRun):
                for index, name in enumerate(event.names):
                    yield self._walked_file(event, name, event.rel(index))

    def _walked_file(self, run: FileRun, name: str, rel: str) -> WalkItem:
        try:
            info = os.stat(name, dir_fd=run.dir_fd, follow_symlinks=False)
        except OSError:
            return WalkItem(rel, "skipped", 0, "unreadable")
        kind = kind_of(info.st_mode)
        if kind == "file":
            return WalkItem(rel, "file", info.st_size, None)
        return WalkItem(rel, "skipped", 0, "symlink" if kind == "symlink" else "special")

    # -- what the model is told ------------------------------------------------------------------

    def entry_parts(self, t: Target) -> tuple[str, ...]:
        """Where the entry `t` names lies, as components below the root: its folder resolved
        (symlinks inside followed), its own name as written (a symlink there is the entry itself).
        Two targets naming one place have the same entry parts."""
        if not t.parts:
            return ()
        return self._parent_parts(t) + (t.parts[-1],)

    def resolved(self, t: Target) -> Target:
        """The Target `t` leads to once its symlinks are followed (checked inside by target())."""
        parts = self._resolved_parts(t)
        return Target("/".join(parts) or ".", t.abs, parts)

    def not_found(self, t: Target) -> OperatorError:
        """ERR_NOT_FOUND for `t`: which component is missing, and close names in its folder."""
        return not_found_error(self.root, t)

    def close_names(self, t: Target) -> list[str]:
        """Names close to the missing component of `t`, in the folder where it stops existing."""
        return names_close_to(self.root, t)


def _components(raw: str) -> list[str]:
    """The names of a relative path, "." and empty ones dropped and ".." taken back, never above
    the root; at most MAX_PATH_COMPONENTS of them."""
    parts: list[str] = []
    for name in raw.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if not parts:
                raise OperatorError(
                    ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                    f"{raw} climbs above the workspace root with ..; paths "
                    "are relative to the workspace root; use . for the root",
                )
            parts.pop()
        else:
            parts.append(name)
    if len(parts) > MAX_PATH_COMPONENTS:
        raise OperatorError(
            ErrorCode.ERR_INVALID_PATH,
            (
                f"the path has {len(parts)} components; the limit "
                f"is {MAX_PATH_COMPONENTS}; use a shorter path"
            ),
        )
    return parts
