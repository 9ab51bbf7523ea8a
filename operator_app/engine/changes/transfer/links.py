"""Relative symlinks carried to another place by fs.copy, fs.move or fs.rename. A relative link
means "from where I stand": put at another depth, `../../shared` can lead out of the workspace.
Operator itself never follows such a link, but git, editors and build tools do, so a transfer
that would leave a link leading outside (somewhere it did not lead before) is refused, before
anything is shown or changed. Absolute links point where they pointed wherever they stand, and a
link that already led outside, to the same place, is the person's own: both are carried as they
are."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ....protocol.errors import ErrorCode, OperatorError
from ....protocol.escapes import escape_name as shown
from ...boundary.target import Target
from ...boundary.workspace import Workspace


def check_links(action: str, ws: Workspace, src: Target, dst: Target, is_link: bool) -> None:
    """ERR_SYMLINK_WOULD_ESCAPE when a relative symlink placed at `dst` (the entry itself, or one
    inside the folder being copied or moved) would lead outside the workspace."""
    source = ws.root.joinpath(*ws.entry_parts(src))
    destination = ws.root.joinpath(*ws.entry_parts(dst))
    links = [source] if is_link else list(_links_below(source))
    for link in links:
        target = os.readlink(link)
        if os.path.isabs(target):
            continue
        new_place = destination / link.relative_to(source)
        before = Path(os.path.realpath(link))
        after = Path(os.path.realpath(new_place.parent / target))
        if after.is_relative_to(ws.root) or after == before:
            continue
        moved = link.relative_to(ws.root).as_posix()
        raise OperatorError(
            ErrorCode.ERR_SYMLINK_WOULD_ESCAPE,
            f"{action} of {src.rel} to {dst.rel} would put the symlink {shown(moved)} (-> "
            f"{shown(target)}) at {shown(new_place.relative_to(ws.root).as_posix())}, where it "
            "leads outside the workspace; nothing was changed; copy or move what it points to "
            "instead, or ask the person to change the link",
        )


def _links_below(folder: Path) -> Iterator[Path]:
    """The symlinks anywhere below `folder`, nothing followed, in a fixed order."""
    for where, dirs, names in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(names + dirs):
            path = Path(where, name)
            if path.is_symlink():
                yield path
