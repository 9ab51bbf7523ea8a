"""Planning fs.delete: what goes to the trash, shown as the person will approve it (a file's
removed lines, a folder's files), and its fingerprint, which the commit checks again. The
workspace root is refused. Nothing here writes; delete/commit.py does."""

from __future__ import annotations

import os
import stat as stat_module
from typing import TYPE_CHECKING

from ....protocol.errors import ErrorCode, OperatorError
from ....protocol.results import count
from ...boundary.target import Target
from ...boundary.workspace import Workspace
from ...ondisk.fingerprint import tree_fingerprint
from ...textops.diff import unified_diff
from ...textops.textfile import TextDoc, split_lines
from ..plan import WritePlan, entry_description

if TYPE_CHECKING:
    from ....protocol.commands.base import Command

DELETE_PREVIEW_FILES = 200
DELETE_PREVIEW_BYTES = 200_000


def plan_delete(cmd: Command, ws: Workspace) -> WritePlan:
    target = ws.target(cmd.path_or_none or "")
    if not target.parts:
        raise OperatorError(
            ErrorCode.ERR_DELETE_ROOT,
            ("fs.delete of the workspace root is refused; delete the entries inside it one by one"),
        )
    st = ws.lstat(target)
    if st is None:
        close = ws.close_names(target)
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise OperatorError(
            ErrorCode.ERR_NOT_FOUND, f"{target.rel} does not exist{hint}; nothing to delete"
        )
    fingerprint, files, listing = tree_fingerprint(ws, target, st)
    is_dir = stat_module.S_ISDIR(st.st_mode)
    if is_dir:
        diff, summary, removed = _folder_preview(target, files, listing)
    else:
        diff, summary, removed = _entry_preview(ws, target, st)
    return WritePlan(
        action=cmd.action,
        command_id=cmd.id,
        target=target,
        kind="delete",
        base_hash=fingerprint,
        new_bytes=None,
        diff=diff,
        added=0,
        removed=removed,
        summary=summary,
        is_dir=is_dir,
        file_count=files if is_dir else 1,
    )


def _folder_preview(target: Target, files: int, listing: list[str]) -> tuple[str, str, int]:
    """(the preview, the summary, lines removed) of a folder going to the trash: the files in it,
    the first DELETE_PREVIEW_FILES of them named."""
    listed = listing[:DELETE_PREVIEW_FILES]
    more = f"\n... and {len(listing) - len(listed)} more" if len(listing) > len(listed) else ""
    diff = (
        f"Folder {target.rel}/ goes to the trash with {count(files, 'file')}:\n"
        + "\n".join(listed)
        + more
        + "\n"
    )
    return diff, f"Moved folder {target.rel}/ ({count(files, 'file')}) to the trash", 0


def _entry_preview(ws: Workspace, target: Target, st: os.stat_result) -> tuple[str, str, int]:
    """(the preview, the summary, lines removed) of a file or another entry going to the trash:
    a small text file as the diff that removes its lines, anything else as what it is."""
    removed = 0
    what = entry_description(ws, target, st)
    diff = f"{target.rel} goes to the trash ({what})\n"
    if stat_module.S_ISREG(st.st_mode) and 0 < st.st_size <= DELETE_PREVIEW_BYTES:
        try:
            text = TextDoc.decode(
                ws.read_file(target, max_bytes=DELETE_PREVIEW_BYTES), label=target.rel
            ).text
            diff, _, removed = unified_diff(text, "", target.rel, deleted=True)
            what = f"{count(len(split_lines(text)), 'line')}, {count(st.st_size, 'byte')}"
        except OperatorError:
            pass  # binary: the one-line description above is the preview
    # What left the workspace, not a line count as if the file had been edited ("-2 lines").
    return diff, f"Moved {target.rel} ({what}) to the trash", removed
