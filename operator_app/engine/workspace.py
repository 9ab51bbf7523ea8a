"""The workspace boundary: every path the model gives is checked here, and everything read is read here.

`Workspace.target()` turns the model's path into a `Target` or an OperatorError: relative, no
control characters or backslashes, no `..` above the root, and no symlink anywhere along it that
leads outside (resolved paths are compared by components, never by string prefix). Reads then open
what was checked: the resolved components are walked from a descriptor of the root with
O_NOFOLLOW (fsops.py), so a folder swapped for a symlink after the check is refused, and only
regular files are ever opened. Symlinks inside the workspace that stay inside are followed by
target() itself; `lstat()` and `open_parent_dir()` keep the final component as written, so a
writer can see (and refuse) a symlinked target.
"""

from __future__ import annotations

import errno
import os
import unicodedata
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from operator_app.engine.fsops import (
    DIR_FLAGS,
    GitRules,
    NotRegular,
    StepError,
    WalkItem,
    kind_of,
    open_dir_chain,
    open_regular,
    open_subdir,
    read_exactly,
    resolve_steps,
    scan_dir,
    walk_below,
)
from operator_app.protocol.errors import ErrorCode, OperatorError

MAX_CLOSE_NAMES = 5
# Linux's PATH_MAX, and a depth no real tree needs: resolving a path costs a step per component,
# and a symlink to "." inside the workspace would otherwise let "s/s/s/..." cost without end.
MAX_PATH_CHARS = 4096
MAX_PATH_COMPONENTS = 256
LIST_HINT = "list the folder with fs.list"
_ENTRY_KINDS: dict[str, Literal["dir", "file", "symlink", "other"]] = {"dir": "dir", "file": "file", "symlink": "symlink"}


class WorkspaceUnusable(Exception):
    """The workspace root is missing, not a directory, or unreadable."""


@dataclass(frozen=True)
class Target:
    rel: str  # normalised path as the model wrote it: "." for the root, no "./", no trailing "/"
    abs: Path  # realpath of the existing part + the missing rest
    parts: tuple[str, ...]  # components of rel (empty for the root)


@dataclass(frozen=True)
class DirEntry:
    name: str
    kind: Literal["dir", "file", "symlink", "other"]
    size: int  # bytes for a file, 0 otherwise


def shown(text: str) -> str:
    """`text` with control characters escaped, so a name from disk cannot break a one-line message."""
    return "".join(
        ch if unicodedata.category(ch) != "Cc" else f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
        for ch in text
    )


def _error(code: ErrorCode, message: str) -> OperatorError:
    return OperatorError(code, message)


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
        if not raw.strip():
            raise _error(ErrorCode.ERR_INVALID_PATH, "the path is empty; give a path relative to the workspace root, . for the root")
        for position, ch in enumerate(raw):
            if unicodedata.category(ch) == "Cc":
                raise _error(
                    ErrorCode.ERR_INVALID_PATH,
                    f'the path "{shown(raw)}" has a control character ({shown(ch)}) at position {position}; '
                    "remove it and use / as the separator",
                )
        if "\\" in raw:
            raise _error(
                ErrorCode.ERR_INVALID_PATH,
                f'the path "{raw}" contains a backslash; use / as the separator ({raw.replace(chr(92), "/")})',
            )
        if raw.startswith("/"):
            inside = PurePosixPath(os.path.normpath(raw))
            hint = ""
            if inside.is_relative_to(self.root):
                hint = f" (did you mean {inside.relative_to(self.root).as_posix()}?)"
            raise _error(
                ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                f"{raw} is absolute; paths are relative to the workspace root; use . for the root{hint}",
            )
        if raw.startswith("~"):
            raise _error(
                ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                f"{raw} starts with ~, which is not expanded; paths are relative to the workspace root; use . for the root",
            )
        if len(raw) > MAX_PATH_CHARS:
            raise _error(ErrorCode.ERR_INVALID_PATH, (
                f"the path is {len(raw)} characters long; the limit is {MAX_PATH_CHARS}; use a shorter path"
            ))
        parts: list[str] = []
        for name in raw.split("/"):
            if name in ("", "."):
                continue
            if name == "..":
                if not parts:
                    raise _error(
                        ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
                        f"{raw} climbs above the workspace root with ..; paths are relative to the workspace root; use . for the root",
                    )
                parts.pop()
            else:
                parts.append(name)
        if len(parts) > MAX_PATH_COMPONENTS:
            raise _error(ErrorCode.ERR_INVALID_PATH, (
                f"the path has {len(parts)} components; the limit is {MAX_PATH_COMPONENTS}; use a shorter path"
            ))
        rel = "/".join(parts) or "."
        resolved = str(self.root)
        # Every prefix must resolve inside too: a link out and a link back in would otherwise
        # make the answer depend on a folder outside the workspace.
        for index, resolved, _exists in resolve_steps(str(self.root), parts):
            if not self._inside(Path(resolved)):
                raise self._outside(rel, "/".join(parts[: index + 1]))
        return Target(rel, Path(resolved), tuple(parts))

    def walked(self, rel: str) -> Target:
        """The Target of a path that `walk_files` produced: a name read from disk, not from the
        model, so it skips the model-path rules (a real file may be called "~x" or "a\\b")."""
        parts = tuple(rel.split("/"))
        return Target(rel, self.root.joinpath(*parts), parts)

    def _inside(self, path: Path) -> bool:
        return path.is_relative_to(self.root)

    def _outside(self, rel: str, link: str) -> OperatorError:
        return _error(
            ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
            f"{rel} resolves through a symlink to outside the workspace ({link} is a symlink that leads out); "
            "use a path inside the workspace",
        )

    def _resolved_parts(self, t: Target) -> tuple[str, ...]:
        if not self._inside(t.abs):
            raise self._outside(t.rel, t.rel)
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
            raise self._fail(t, step.error, step.index, "checking", self._parent_parts(t)) from step.error
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise self._fail(t, error, len(t.parts) - 1, "checking", t.parts) from error
        finally:
            os.close(fd)

    def read_file(self, t: Target, *, max_bytes: int | None) -> bytes:
        fd, info = self._open_regular(t)
        try:
            if max_bytes is not None and info.st_size > max_bytes:
                raise _error(ErrorCode.ERR_FILE_TOO_LARGE, f"{t.rel} is {info.st_size} bytes, over the {max_bytes}-byte limit")
            return read_exactly(fd, info.st_size)
        except OSError as error:
            raise self._fail(t, error, len(t.parts) - 1, "reading", t.parts) from error
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
            raise _error(ErrorCode.ERR_NOT_A_FILE, ". is the workspace root, a folder; name an entry inside it")
        try:
            fd, name, created = self._parent_chain(t, create=create)
        except StepError as step:
            raise self._fail(t, step.error, step.index, "opening", self._parent_parts(t)) from step.error
        return fd, name, created

    def _parent_parts(self, t: Target) -> tuple[str, ...]:
        parent = Path(os.path.realpath(self.root.joinpath(*t.parts[:-1])))
        if not self._inside(parent):
            raise self._outside(t.rel, "/".join(t.parts[:-1]))
        return parent.relative_to(self.root).parts

    def _parent_chain(self, t: Target, *, create: bool) -> tuple[int, str, list[str]]:
        parts = self._parent_parts(t)
        fd, created = open_dir_chain(str(self.root), parts, create=create)
        return fd, t.parts[-1], ["/".join(parts[: index + 1]) for index in created]

    def _chain(self, t: Target, parts: tuple[str, ...], doing: str, *, whole: bool = False) -> int:
        """`whole`: parts[-1] is the target itself (so ENOTDIR there means "the target is no folder")."""
        try:
            return open_dir_chain(str(self.root), parts)[0]
        except StepError as step:
            raise self._fail(t, step.error, step.index, doing, parts, whole=whole) from step.error

    def _open_regular(self, t: Target) -> tuple[int, os.stat_result]:
        parts = self._resolved_parts(t)
        if not parts:
            raise self._not_a_file(t)
        dir_fd = self._chain(t, parts[:-1], "reading")
        try:
            return open_regular(dir_fd, parts[-1])
        except NotRegular as refused:
            raise self._refuse_kind(t, refused.kind) from None
        except OSError as error:
            raise self._fail(t, error, len(parts) - 1, "reading", parts) from error
        finally:
            os.close(dir_fd)

    # -- listing and walking ---------------------------------------------------------------------

    def list_dir(self, t: Target) -> list[DirEntry]:
        """The folder's entries sorted by name; nothing is followed or opened, nothing is hidden."""
        fd = self.open_dir(t)
        try:
            scanned = scan_dir(fd)
        except OSError as error:
            raise self._fail(t, error, len(t.parts) - 1, "listing", t.parts) from error
        finally:
            os.close(fd)
        entries = [DirEntry(name, _ENTRY_KINDS.get(kind, "other"), size if kind == "file" else 0) for name, kind, size in scanned]
        return sorted(entries, key=lambda entry: entry.name)

    def walk_files(self, t: Target, *, ignore_git: bool = True) -> Generator[WalkItem, None, None]:
        """Files under `t` in plain string order of their full relative path (a folder's name sorts
        as "name/", so the output is what `git ls-files` order would be), depth first.

        Symlinks are never followed and FIFOs, sockets and devices never opened: both come out as
        skipped items, as does each gitignored entry (one item for an ignored folder, which is not
        descended) and each subfolder that cannot be opened ("unreadable"). With ignore_git,
        entries named .git are left out silently and .gitignore files apply (the root's, those of
        the folders above `t`, and nested ones, each relative to its own folder); a target that
        is itself ignored is still walked, with only the .gitignore files inside it. Errors about
        `t` itself are raised at the first next(); close the iterator if you stop early.
        """
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
                    raise self._fail(t, error, depth, "walking", parts) from error
                if kind == "symlink":
                    raise self._changed(t)
                if depth < len(parts) - 1:
                    raise self._fail(t, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)), depth, "walking", parts)
                yield WalkItem(t.rel, "file", info.st_size, None) if kind == "file" else WalkItem(t.rel, "skipped", 0, "special")
                return
            if rules.ignored(parts, is_dir=True):
                rules.clear()
            try:
                top = scan_dir(fds[-1])
            except OSError as error:
                raise self._fail(t, error, len(parts) - 1, "walking", parts, whole=True) from error
            yield from walk_below(fds[-1], top, t.rel, parts, rules if ignore_git else None)
        finally:
            for fd in fds:
                os.close(fd)

    # -- errors for the model --------------------------------------------------------------------

    def close_names(self, t: Target) -> list[str]:
        missing = self._first_missing(t)
        if missing is None:
            return []
        parent = self.root.joinpath(*t.parts[:missing])
        resolved = Path(os.path.realpath(parent))
        if not self._inside(resolved):
            return []
        try:
            fd, _ = open_dir_chain(str(self.root), resolved.relative_to(self.root).parts)
        except StepError:
            return []
        try:
            with os.scandir(fd) as scan:
                names = sorted(entry.name for entry in scan)
        except OSError:
            return []
        finally:
            os.close(fd)
        by_folded: dict[str, list[str]] = {}
        for name in names:
            by_folded.setdefault(name.casefold(), []).append(name)
        import difflib  # only a not-found message needs it; keeps start-up short

        matches = difflib.get_close_matches(t.parts[missing].casefold(), list(by_folded), n=MAX_CLOSE_NAMES)
        prefix = "/".join(t.parts[:missing])
        return [name if not prefix else f"{prefix}/{name}" for folded in matches for name in by_folded[folded]][:MAX_CLOSE_NAMES]

    def _first_missing(self, t: Target) -> int | None:
        return next((index for index, _, exists in resolve_steps(str(self.root), t.parts) if not exists), None)

    def resolved(self, t: Target) -> Target:
        """The Target of where `t` leads once its symlinks are followed (checked inside by target())."""
        parts = self._resolved_parts(t)
        return Target("/".join(parts) or ".", t.abs, parts)

    def not_found(self, t: Target) -> OperatorError:
        """ERR_NOT_FOUND for `t`: which component is missing, and close names in its folder."""
        return self._not_found(t)

    def _not_found(self, t: Target) -> OperatorError:
        missing = self._first_missing(t)
        gap = ""
        if missing is not None:
            lexical = self.root.joinpath(*t.parts[: missing + 1])
            if os.path.islink(lexical):
                # A dangling symlink is listed by fs.list: "does not exist" alone would contradict it.
                shown_link = "/".join(t.parts[: missing + 1])
                return _error(ErrorCode.ERR_NOT_FOUND, (
                    f"{t.rel} does not exist: {shown_link} is a symlink to {shown(os.readlink(lexical))}, "
                    f"which does not exist; {LIST_HINT}"
                ))
            if missing < len(t.parts) - 1:
                gap = f": there is no {'/'.join(t.parts[: missing + 1])}"
        names = self.close_names(t)
        close = f"; close names: {', '.join(shown(name) for name in names)}" if names else ""
        quoted = ""
        if len(t.rel) > 2 and t.rel[0] == t.rel[-1] and t.rel[0] in "\"'`":
            quoted = "; values are taken literally: write the path without quotes"
        return _error(ErrorCode.ERR_NOT_FOUND, f"{t.rel} does not exist{gap}{close}{quoted}; {LIST_HINT}")

    def _not_a_file(self, t: Target) -> OperatorError:
        return _error(ErrorCode.ERR_NOT_A_FILE, f"{t.rel} is a folder, not a file; list it with fs.list or search it with fs.searchTree")

    def _refuse_kind(self, t: Target, kind: str) -> OperatorError:
        if kind == "dir":
            return self._not_a_file(t)
        if kind == "symlink":
            return self._changed(t)
        return _error(
            ErrorCode.ERR_SPECIAL_FILE,
            f"{t.rel} is a {kind}, not a regular file; Operator never opens FIFOs, sockets or devices; pick a regular file",
        )

    def _changed(self, t: Target) -> OperatorError:
        return _error(
            ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE,
            f"{t.rel} met a symlink while being opened (the path changed after it was checked, or a symlink loops); "
            "nothing was opened; use a path inside the workspace that does not go through it",
        )

    def _fail(
        self, t: Target, error: OSError, index: int, doing: str, parts: tuple[str, ...], *, whole: bool = False
    ) -> OperatorError:
        """Turn an OSError met at component `index` of `parts` (resolved, relative to the root) into an error."""
        code = error.errno
        if index < 0:
            return _error(ErrorCode.ERR_IO, f"the workspace folder itself cannot be opened ({error.strerror}); ask the person to check it")
        if code == errno.ENOENT:
            return self._not_found(t)
        if code == errno.ENOTDIR:
            if whole and index == len(parts) - 1:
                if os.path.isfile(t.abs) and not os.path.islink(t.abs):
                    return _error(ErrorCode.ERR_NOT_A_DIRECTORY, f"{t.rel} is a file, not a folder; read it with fs.read")
                return _error(ErrorCode.ERR_NOT_A_DIRECTORY, f"{t.rel} is not a folder; {LIST_HINT}")
            blocker = "/".join(parts[: index + 1])
            return _error(
                ErrorCode.ERR_NOT_A_DIRECTORY,
                f"{t.rel} goes through {blocker}, which is a file, not a folder; {LIST_HINT}",
            )
        if code == errno.ELOOP:
            return self._changed(t)
        if code in (errno.EACCES, errno.EPERM):
            return _error(ErrorCode.ERR_PERMISSION_DENIED, f"permission denied {doing} {t.rel}; ask the person to fix the permissions")
        if code == errno.EISDIR:
            return self._not_a_file(t)
        if code == errno.ENXIO:
            return self._refuse_kind(t, "socket")
        if code == errno.ENAMETOOLONG:
            return _error(ErrorCode.ERR_INVALID_PATH, f"{t.rel} has a name that is too long for the filesystem; use a shorter name")
        name = errno.errorcode.get(code or 0, "?")
        return _error(ErrorCode.ERR_IO, f"{doing} {t.rel} failed: {error.strerror} ({name}); try again or ask the person to check it")
