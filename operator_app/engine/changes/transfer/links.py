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
    pending = [part for part in reversed(target.split("/")) if part not in ("", ".")]
    inside: list[str] | None = list(folder)
    outside = Path("/")
    if target.startswith("/"):
        inside = None
    hops = 0
    while pending:
        name = pending.pop()
        if name == ".":
            continue
        if inside is None:  # outside the workspace: the real file system, never shown to anyone
            if name == "..":
                outside = outside.parent
                continue
            candidate = outside / name
            if candidate == root:
                inside = []
            elif candidate.is_symlink():
                hops += 1
                if hops > MAX_HOPS:
                    return "loop", ()
                link = os.readlink(candidate)
                pending += [p for p in reversed(link.split("/")) if p not in ("", ".")]
                if link.startswith("/"):
                    outside = Path("/")
            else:
                outside = candidate
            continue
        if name == "..":
            if inside:
                inside.pop()
            else:
                inside, outside = None, root.parent
            continue
        kind, link = view.look((*inside, name))
        if kind != "link":
            inside.append(name)
            continue
        hops += 1
        if hops > MAX_HOPS:
            return "loop", ()
        pending += [p for p in reversed(link.split("/")) if p not in ("", ".")]
        if link.startswith("/"):
            inside, outside = None, Path("/")
    if inside is None:
        return "out", str(outside)
    return "in", tuple(inside)


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
