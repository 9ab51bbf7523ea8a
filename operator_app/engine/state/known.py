"""Which workspaces Operator has a session for, and which of them holds a given folder: what the
companions of `exec` (`undo`, `results`) act on when no --workspace is named. The rule (docs/cli.md,
"Which workspace"): the nearest folder, from the one you stand in up to /, that is a workspace
with a session; with --state-dir, the workspace that state folder serves, when you stand in it.
Nothing here writes."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from msgspec import Struct

from .session import WORKSPACE_RECORD, default_state_dir, state_home


class KnownWorkspace(Struct, frozen=True):
    root: Path
    state_dir: Path
    last_used: float  # when its session last recorded a message (or was made)


def has_session(state_dir: Path) -> bool:
    return (state_dir / "session").is_dir()


def recorded_workspace(state_dir: Path) -> Path | None:
    """The workspace a state folder serves, as its session recorded it (None: a session made by an
    Operator from before the record, or none at all)."""
    try:
        raw = (state_dir / WORKSPACE_RECORD).read_bytes()
    except OSError:
        return None
    return Path(raw.decode("utf-8", "surrogateescape")) if raw else None


def enclosing_workspace(folder: Path, state_dir: Path | None = None) -> Path | None:
    """The nearest of `folder` and the folders above it that is a workspace with a session (in
    its default state folder; with `state_dir`, the one that folder serves), or None. Folders
    are compared resolved, as a workspace's root is."""
    here = Path(os.path.realpath(folder))
    served = None if state_dir is None else recorded_workspace(state_dir)
    if state_dir is not None and (served is None or not has_session(state_dir)):
        return None
    for candidate in (here, *here.parents):
        if served is not None:
            if candidate == served:
                return candidate
        elif has_session(default_state_dir(candidate)):
            return candidate
    return None


def known_workspaces(also: Iterable[Path] = ()) -> list[KnownWorkspace]:
    """Every workspace with a session in the default state folders that still exists, the most
    recently used first: those whose session recorded its workspace, and of `also` (the TUI's
    recent workspaces: sessions made before the record) those that have one."""
    found: dict[Path, KnownWorkspace] = {}
    try:
        folders = [entry for entry in (state_home() / "workspaces").iterdir() if entry.is_dir()]
    except OSError:
        folders = []
    pairs: list[tuple[Path | None, Path | None]] = [
        (recorded_workspace(folder), folder) for folder in folders
    ]
    pairs += [(Path(os.path.realpath(root)), None) for root in also]
    for root, state_dir in pairs:
        if root is None or root in found:
            continue
        state_dir = state_dir or default_state_dir(root)
        if not (has_session(state_dir) and root.is_dir()):
            continue
        found[root] = KnownWorkspace(root, state_dir, _last_used(state_dir))
    return sorted(found.values(), key=lambda known: known.last_used, reverse=True)


def _last_used(state_dir: Path) -> float:
    for path in (state_dir / "session" / "messages.jsonl", state_dir / "session"):
        try:
            return path.stat().st_mtime
        except OSError:
            continue
    return 0.0
