"""Symlinks carried to another place by fs.copy, fs.move or fs.rename. A relative link means
"from where I stand": put at another depth, `../../shared` can lead out of the workspace, and a
link that goes through another link that travels with it (`s -> .` beside
`l -> s/../../outside`) leads somewhere else once both have moved. Operator itself never follows
a link, but git, editors and build tools do, so a transfer after which a carried link would lead
outside (somewhere it did not lead before) is refused, before anything is shown or changed.

Where a link leads is worked out the way the kernel would resolve it, one name at a time, in
the workspace as it will be after the transfer (the entry at its new place, and for a move no
longer at its old one), not from a destination that does not exist yet. A link that already led
outside, to the same place, is the person's own and is carried as it is. Everything inside the
workspace is read through descriptors (the tree by tree_scan.py, each name looked up from the
root with O_NOFOLLOW), so a symlink swapped in meanwhile cannot make the check name or read
anything outside."""

from __future__ import annotations

import os
import stat as stat_module
from pathlib import Path

from msgspec import Struct

from ....protocol.errors import ErrorCode, OperatorError
from ....protocol.escapes import escape_name as shown
from ...boundary.fsops import StepError, open_dir_chain
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.tree_scan import scan_tree

MAX_HOPS = 40  # symlinks followed in one resolution, as Linux's ELOOP limit

Parts = tuple[str, ...]
# Where a link leads: ("in", parts below the root), ("out", a real path outside), ("loop", ())
Place = tuple[str, object]


class _Disk:
    """Names inside the workspace looked up on disk: "dir", "link" (with its target), "other",
    or "missing"; each from the root's descriptor down with O_NOFOLLOW, remembered."""

    def __init__(self, ws: Workspace) -> None:
        self.root = str(ws.root)
        self.seen: dict[Parts, tuple[str, str]] = {}

    def look(self, parts: Parts) -> tuple[str, str]:
        known = self.seen.get(parts)
        if known is not None:
            return known
        found = self._look(parts)
        self.seen[parts] = found
        return found

    def _look(self, parts: Parts) -> tuple[str, str]:
        if not parts:
            return "dir", ""
        try:
            fd = open_dir_chain(self.root, parts[:-1])[0]
        except (StepError, OSError):
            return "missing", ""  # a name on the way is no folder (or no longer one)
        try:
            info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            if stat_module.S_ISLNK(info.st_mode):
                return "link", os.readlink(parts[-1], dir_fd=fd)
            return ("dir" if stat_module.S_ISDIR(info.st_mode) else "other"), ""
        except OSError:
            return "missing", ""
        finally:
            os.close(fd)


class _After:
    """The workspace as it will be once the entry at `src` is at `dst` (and, for a move, no
    longer at `src`)."""

    def __init__(self, disk: _Disk, src: Parts, dst: Parts, moving: bool) -> None:
        self.disk, self.src, self.dst, self.moving = disk, src, dst, moving

    def look(self, parts: Parts) -> tuple[str, str]:
        if parts[: len(self.dst)] == self.dst:
            return self.disk.look(self.src + parts[len(self.dst) :])
        if self.moving and parts[: len(self.src)] == self.src:
            return "missing", ""
        return self.disk.look(parts)


def resolve(view: _Disk | _After, root: Path, folder: Parts, target: str) -> Place:
    """Where a link in `folder` (parts below `root`) holding `target` leads in `view`: names
    that do not exist are taken as they are written, as realpath does, which can only make a
    link look like it leads outside sooner."""
    walk = _Walk(None if target.startswith("/") else list(folder))
    pending = _names(target)
    while pending:
        name = pending.pop()
        link = (
            walk.outside_step(name, root)
            if walk.inside is None
            else walk.inside_step(name, view, root)
        )
        if link is None:
            continue
        walk.hops += 1
        if walk.hops > MAX_HOPS:
            return "loop", ()
        pending += _names(link)
        if link.startswith("/"):
            walk.inside, walk.outside = None, Path("/")
    if walk.inside is None:
        return "out", str(walk.outside)
    return "in", tuple(walk.inside)


def _names(target: str) -> list[str]:
    """A link target's names, last first (what `resolve` pops), without empty ones and "."."""
    return [part for part in reversed(target.split("/")) if part not in ("", ".")]


class _Walk(Struct):
    """Where `resolve` stands: inside the workspace (names below the root), or outside it (a real
    path of the file system, never shown to anyone); and how many links it followed."""

    inside: list[str] | None
    outside: Path = Path("/")
    hops: int = 0

    def outside_step(self, name: str, root: Path) -> str | None:
        """One name outside the workspace; the target of a link met there, to follow."""
        if name == "..":
            self.outside = self.outside.parent
            return None
        candidate = self.outside / name
        if candidate == root:
            self.inside = []
        elif candidate.is_symlink():
            return os.readlink(candidate)
        else:
            self.outside = candidate
        return None

    def inside_step(self, name: str, view: _Disk | _After, root: Path) -> str | None:
        """One name inside it, in `view`; the target of a link met there, to follow."""
        assert self.inside is not None
        if name == "..":
            if self.inside:
                self.inside.pop()
            else:
                self.inside, self.outside = None, root.parent
            return None
        kind, link = view.look((*self.inside, name))
        if kind != "link":
            self.inside.append(name)
            return None
        return link


def check_links(action: str, ws: Workspace, src: Target, dst: Target) -> None:
    """ERR_SYMLINK_WOULD_ESCAPE when a symlink the transfer carries (the entry itself, or one
    inside the folder being copied or moved) would lead outside the workspace from its new
    place, somewhere it did not lead before."""
    src_at, dst_at = ws.entry_parts(src), ws.entry_parts(dst)
    disk = _Disk(ws)
    after = _After(disk, src_at, dst_at, moving=action != "fs.copy")
    parent_fd, name, _ = ws.open_parent_dir(src, create=False)
    walk = scan_tree(parent_fd, name)
    try:
        for node in walk:
            if not stat_module.S_ISLNK(node.info.st_mode):
                continue
            target = os.readlink(node.name, dir_fd=node.dir_fd)
            old_place, new_place = src_at + node.parts, dst_at + node.parts
            now = resolve(disk, ws.root, old_place[:-1], target)
            then = resolve(after, ws.root, new_place[:-1], target)
            if then[0] != "out" or then == now:
                continue
            raise OperatorError(
                ErrorCode.ERR_SYMLINK_WOULD_ESCAPE,
                f"{action} of {src.rel} to {dst.rel} would put the symlink "
                f"{shown('/'.join(old_place))} (-> {shown(target)}) at "
                f"{shown('/'.join(new_place))}, where it leads outside the workspace; nothing "
                "was changed; copy or move what it points to instead, or ask the person to "
                "change the link",
            )
    finally:
        walk.close()
        os.close(parent_fd)
