"""What a command changed in the workspace, read from the upper layer of the overlay it ran on
(engine/shell): a regular file there is a file written (created, or replacing what the tree has),
a folder is a folder made or entered, a character device 0/0 is a whiteout (the tree's entry was
deleted), and a folder marked opaque hides everything the tree's folder held. Read against the
tree as it is now, through descriptors opened without following symlinks.

Entries under ignored paths (a .git folder anywhere, what the tree's .gitignore files ignore) and
symlinks or special files the command made are left out of the set and counted by folder."""

from __future__ import annotations

import errno
import os
import stat as stat_module
from collections import Counter

from msgspec import Struct, field

from ...boundary.fsops import DIR_FLAGS
from ...boundary.gitignore import GitRules, IgnoreRulesTooSlow
from .items import Entry, Item, LeftOut

# The overlay's marks: trusted.* when it was mounted with privilege, user.* in a user namespace.
_OPAQUE = ("user.overlay.opaque", "trusted.overlay.opaque")
# Marks of overlay features a change-set cannot be read from (a folder renamed in place, a file
# whose data stayed below): the sandbox never turns them on; met anyway, the set is refused.
_UNREADABLE = ("overlay.redirect", "overlay.metacopy")


class UpperUnreadable(Exception):
    """The upper layer holds something a change-set cannot be made from."""


class Found(Struct):
    items: list[Item] = field(default_factory=list)
    left_out: Counter[tuple[str, str]] = field(default_factory=Counter)  # (why, folder) -> count
    files: Counter[str] = field(default_factory=Counter)  # changed / created / deleted

    def left(self) -> tuple[LeftOut, ...]:
        return tuple(
            LeftOut(why, folder, count)  # type: ignore[arg-type]
            for (why, folder), count in sorted(self.left_out.items())
        )


def _stat(dir_fd: int | None, name: str) -> os.stat_result | None:
    if dir_fd is None:
        return None
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _open_dir(dir_fd: int, name: str) -> int:
    return os.open(name, DIR_FLAGS, dir_fd=dir_fd)


def _is_whiteout(info: os.stat_result) -> bool:
    return stat_module.S_ISCHR(info.st_mode) and info.st_rdev == 0


def _xattrs(fd: int) -> list[str]:
    try:
        return os.listxattr(fd)
    except OSError:
        return []


def _opaque(fd: int, names: list[str]) -> bool:
    for name in _OPAQUE:
        if name in names:
            try:
                return os.getxattr(fd, name) == b"y"
            except OSError:
                return False
    return False


def _refuse_unreadable(names: list[str], rel: str) -> None:
    if any(name.endswith(mark) for name in names for mark in _UNREADABLE):
        raise UpperUnreadable(
            f"{rel} is marked by the overlay in a way a change-set cannot be read from"
        )


def _same_bytes(up_fd: int, tree_fd: int, name: str, size: int) -> bool:
    """Whether the upper file and the tree's file hold the same bytes (sizes already equal)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        a = os.open(name, flags, dir_fd=up_fd)
    except OSError:
        return False
    try:
        b = os.open(name, flags | os.O_NONBLOCK, dir_fd=tree_fd)
    except OSError:
        os.close(a)
        return False
    try:
        done = 0
        while done < size:
            chunk_a = os.pread(a, 1 << 20, done)
            if not chunk_a or chunk_a != os.pread(b, len(chunk_a), done):
                return False
            done += len(chunk_a)
        return True
    finally:
        os.close(a)
        os.close(b)


class _Reader:
    def __init__(self, rules: GitRules) -> None:
        self.rules = rules
        self.found = Found()
        self.rules_slow = False

    def ignored(self, parts: tuple[str, ...], name: str, is_dir: bool) -> bool:
        if name == ".git":
            return True
        if self.rules_slow:
            return False
        try:
            return self.rules.ignored_in(self.rules.folder(parts), name, is_dir=is_dir)
        except IgnoreRulesTooSlow:
            self.rules_slow = True  # past the budget every entry is in the set, none ignored
            return False

    def count_left(
        self, why: str, fd: int, name: str, parts: tuple[str, ...], is_dir: bool
    ) -> None:
        """An entry left out: a folder counts its entries (under its own path), else one entry
        under its folder."""
        folder = "/".join(parts) or "."
        if not is_dir:
            self.found.left_out[(why, folder)] += 1
            return
        own = "/".join((*parts, name))
        total = 0
        stack = [_open_dir(fd, name)]
        try:
            while stack:
                current = stack.pop()
                try:
                    for entry in os.scandir(current):
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(_open_dir(current, entry.name))
                        else:
                            total += 1
                finally:
                    os.close(current)
        finally:
            for rest in stack:
                os.close(rest)
        self.found.left_out[(why, own)] += max(total, 1)

    def delete_tree(
        self, tree_fd: int, name: str, info: os.stat_result, parts: tuple[str, ...]
    ) -> None:
        """The tree's entry `name` goes: a file or symlink is deleted, a folder emptied (its
        ignored entries stay, and then the folder with them) and removed."""
        rel = "/".join((*parts, name))
        entry = Entry.of(info)
        if entry.kind != "dir":
            link = None
            if entry.kind == "symlink":
                try:
                    link = os.readlink(name, dir_fd=tree_fd)
                except OSError:
                    link = None
            self.found.items.append(Item(rel, "delete", entry, link=link))
            if entry.kind == "file":
                self.found.files["deleted"] += 1
            return
        fd = _open_dir(tree_fd, name)
        try:
            pushed = self.rules.load(fd, (*parts, name)) if not self.rules_slow else 0
            try:
                for child in sorted(os.listdir(fd)):
                    child_info = _stat(fd, child)
                    if child_info is None:
                        continue
                    is_dir = stat_module.S_ISDIR(child_info.st_mode)
                    if self.ignored((*parts, name), child, is_dir):
                        self.count_left("ignored", fd, child, (*parts, name), is_dir)
                        continue
                    self.delete_tree(fd, child, child_info, (*parts, name))
            finally:
                self.rules.pop(pushed)
        finally:
            os.close(fd)
        self.found.items.append(Item(rel, "rmdir", entry))

    def folder(self, up_fd: int, tree_fd: int | None, parts: tuple[str, ...], opaque: bool) -> None:
        """Compare the upper folder open at `up_fd` with the tree's folder at `tree_fd` (None: the
        folder is new), both at `parts`."""
        names = sorted(os.listdir(up_fd))
        if opaque and tree_fd is not None:
            present = set(names)
            for gone in sorted(os.listdir(tree_fd)):
                info = _stat(tree_fd, gone)
                if gone in present or info is None:
                    continue
                is_dir = stat_module.S_ISDIR(info.st_mode)
                if self.ignored(parts, gone, is_dir):
                    continue  # an ignored entry stays whatever the command did to it
                self.delete_tree(tree_fd, gone, info, parts)
        for name in names:
            self.entry(up_fd, tree_fd, name, parts)

    def entry(self, up_fd: int, tree_fd: int | None, name: str, parts: tuple[str, ...]) -> None:
        """One entry of the upper folder: ignored (counted), a whiteout (the tree's entry goes), a
        folder (made or entered), a symlink or special file (left out, counted), or a file."""
        up = os.stat(name, dir_fd=up_fd, follow_symlinks=False)
        tree = _stat(tree_fd, name)
        up_dir = stat_module.S_ISDIR(up.st_mode)
        tree_dir = tree is not None and stat_module.S_ISDIR(tree.st_mode)
        if self.ignored(parts, name, up_dir or tree_dir):
            if not _is_whiteout(up) or tree is not None:
                self.count_left("ignored", up_fd, name, parts, up_dir)
        elif _is_whiteout(up):
            if tree is not None and tree_fd is not None:
                self.delete_tree(tree_fd, name, tree, parts)
        elif up_dir:
            self.upper_folder(up_fd, tree_fd, name, parts, up, tree)
        elif stat_module.S_ISLNK(up.st_mode):
            self.count_left("symlink", up_fd, name, parts, False)
        elif not stat_module.S_ISREG(up.st_mode):
            self.count_left("special", up_fd, name, parts, False)
        else:
            self.upper_file(up_fd, tree_fd, name, parts, up, tree)

    def upper_folder(
        self,
        up_fd: int,
        tree_fd: int | None,
        name: str,
        parts: tuple[str, ...],
        up: os.stat_result,
        tree: os.stat_result | None,
    ) -> None:
        """A folder of the upper layer: made (what stood in its way in the tree goes), or the
        tree's own entered; then compared entry by entry."""
        rel = "/".join((*parts, name))
        fd = _open_dir(up_fd, name)
        try:
            marks = _xattrs(fd)
            _refuse_unreadable(marks, rel)
            opaque = _opaque(fd, marks)
            if tree is not None and tree_fd is not None and not stat_module.S_ISDIR(tree.st_mode):
                self.delete_tree(tree_fd, name, tree, parts)
                tree = None
            sub_tree: int | None = None
            if tree is None:
                self.found.items.append(
                    Item(rel, "mkdir", None, new_mode=stat_module.S_IMODE(up.st_mode))
                )
            elif tree_fd is not None:
                sub_tree = _open_dir(tree_fd, name)
            try:
                self.compare_below(fd, sub_tree, (*parts, name), opaque)
            finally:
                if sub_tree is not None:
                    os.close(sub_tree)
        finally:
            os.close(fd)

    def compare_below(
        self, fd: int, sub_tree: int | None, parts: tuple[str, ...], opaque: bool
    ) -> None:
        """Compare the upper folder open at `fd` with the tree's at `sub_tree`, under the
        .gitignore of the tree's folder (or, for a folder the command made, its own: pytest's
        cache folder ignores itself with "*", as git would see it)."""
        pushed = 0
        try:
            if not self.rules_slow:
                pushed = self.rules.load(sub_tree if sub_tree is not None else fd, parts)
            self.folder(fd, sub_tree, parts, opaque)
        finally:
            self.rules.pop(pushed)

    def upper_file(
        self,
        up_fd: int,
        tree_fd: int | None,
        name: str,
        parts: tuple[str, ...],
        up: os.stat_result,
        tree: os.stat_result | None,
    ) -> None:
        """A regular file of the upper layer: written (created, or replacing what the tree has
        there), unless it was only copied up and left with its bytes and mode."""
        rel = "/".join((*parts, name))
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=up_fd)
        try:
            _refuse_unreadable(_xattrs(fd), rel)
        finally:
            os.close(fd)
        new_mode = stat_module.S_IMODE(up.st_mode)
        before = Entry.of(tree) if tree is not None else None
        if (
            tree is not None
            and tree_fd is not None
            and before is not None
            and before.kind != "file"
        ):
            self.delete_tree(tree_fd, name, tree, parts)
            before = None
        if (
            before is not None
            and tree_fd is not None
            and before.size == up.st_size
            and before.mode == new_mode
            and _same_bytes(up_fd, tree_fd, name, up.st_size)
        ):
            return  # copied up (opened for writing, touched) but left as it was
        item = Item(rel, "write", before, new_mode=new_mode, new_size=up.st_size)
        self.found.items.append(item)
        self.found.files["changed" if before is not None else "created"] += 1


def _drop_hollow_folders(found: Found) -> None:
    """A folder the command made that holds nothing the set takes, only ignored entries (a cache
    folder ignoring itself), is left out with them: git would not show it either."""
    ignored = [folder for (why, folder) in found.left_out if why == "ignored"]
    taken = [item.rel for item in found.items]
    hollow = {
        item.rel
        for item in found.items
        if item.op == "mkdir"
        and any(folder == item.rel or folder.startswith(item.rel + "/") for folder in ignored)
        and not any(rel.startswith(item.rel + "/") for rel in taken)
    }
    found.items = [item for item in found.items if item.rel not in hollow]


def read_upper(root: str, upper: str) -> Found:
    """The changes the upper layer at `upper` makes to the workspace tree at `root`."""
    rules = GitRules()
    reader = _Reader(rules)
    up_fd = os.open(upper, DIR_FLAGS)
    try:
        tree_fd = os.open(root, DIR_FLAGS)
        try:
            pushed = rules.load(tree_fd, ())
            try:
                reader.folder(up_fd, tree_fd, (), False)
            finally:
                rules.pop(pushed)
        finally:
            os.close(tree_fd)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise UpperUnreadable(f"the command's changes cannot be read ({exc.strerror})") from exc
        raise
    finally:
        os.close(up_fd)
    _drop_hollow_folders(reader.found)
    return reader.found
