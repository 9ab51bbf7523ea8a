"""The temporary files of commits and undos that a killed app left beside their targets, removed:
only what the journal announced, by its exact name, and only regular files, except a copy's
temporary folder (or symlink), announced as such. Every commit, recovery and undo sweeps first."""

from __future__ import annotations

import os
import stat as stat_module

from ...protocol.errors import OperatorError
from ..boundary.workspace import Workspace
from ..ondisk.atomic import TEMP_NAME_RE
from ..ondisk.moves import remove_entry
from .journal import Journal


def sweep_temps(ws: Workspace, journal: Journal) -> None:
    """Remove the temporary files of commits (or undos) that an app killed mid-way left beside
    their targets. Only what the journal announced, by its exact name, and only regular files,
    except a copy's temporary folder (or symlink), announced as such."""
    for seq, rel, temp, tree in journal.stale_temps():
        try:
            if TEMP_NAME_RE.fullmatch(temp):
                dir_fd, _, _ = ws.open_parent_dir(ws.target(rel), create=False)
                try:
                    mode = os.stat(temp, dir_fd=dir_fd, follow_symlinks=False).st_mode
                    if stat_module.S_ISREG(mode):
                        os.unlink(temp, dir_fd=dir_fd)
                    elif tree:
                        remove_entry(dir_fd, temp)
                except FileNotFoundError:
                    pass  # the commit got as far as installing it, or failed and removed it
                finally:
                    os.close(dir_fd)
        except (OperatorError, OSError):
            pass  # the folder is gone or out of reach: nothing more can be done about it
        journal.mark_swept(seq)
