"""The undo of a change-set: refused whole, nothing touched, unless every entry it changed is
still exactly as it left it; then every step is taken back, newest first (files it created
removed, files it replaced or deleted restored from their pre-images, folders made again or
removed)."""

from __future__ import annotations

from pathlib import Path

from ...boundary.workspace import Workspace
from ...safety.journal import Journal, JournalEntry
from ..outcomes import UndoOutcome, UndoRefused
from .items import Item
from .manifest import Manifest, read_manifest
from .steps import backward, in_order, old_job, prepare, restores, state_of, sweep, sync_folders


def undo_changeset(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    folder = journal.set_dir(entry.seq)
    manifest = read_manifest(folder)
    what = f"cannot undo {entry.action} {entry.command_id}"
    if manifest is None:
        raise UndoRefused(f"{what}: its manifest in the journal is missing; nothing was touched")
    changed = _changed_since(ws, manifest)
    if changed:
        shown = ", ".join(changed[:5]) + (
            f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        )
        raise UndoRefused(
            f"{what}: {shown} changed since the command's changes were applied; nothing was touched"
        )
    sweep(ws, folder)
    _take_back(ws, journal, entry.seq, folder, in_order(manifest.items))
    sweep(ws, folder)
    journal.mark_swept(entry.seq)
    note = sync_folders(ws, manifest.items)
    journal.mark_undone(entry)
    files = sum(1 for item in manifest.items if item.op in ("write", "delete"))
    return UndoOutcome(
        entry,
        f"Took back the changes of {entry.command_id} ({entry.action}): "
        f"{files} file{'s' if files != 1 else ''} as they were before"
        + (f" ({note})" if note else ""),
    )


def _changed_since(ws: Workspace, manifest: Manifest) -> list[str]:
    """The entries of the set that are no longer as it left them."""
    # An entry the set removed and then put something else at (a file become a folder) is looked
    # at through what took its place.
    replaced = {item.rel for item in manifest.items if item.op in ("write", "mkdir")}
    changed = []
    for index, item in in_order(manifest.items):
        if item.op in ("delete", "rmdir") and item.rel in replaced:
            continue
        state = state_of(ws, item, manifest.pre.get(index))
        # a folder left because it still held what the set does not take is as the set left it
        if state != "after" and not (item.op == "rmdir" and state == "before"):
            changed.append(item.rel)
    return changed


def _take_back(
    ws: Workspace, journal: Journal, seq: int, folder: Path, steps: list[tuple[int, Item]]
) -> None:
    """Take every step back, newest first. The files the set replaced get their old bytes back
    in parallel first; those it deleted, once their folders are made again."""
    ready = prepare(
        ws,
        folder,
        [old_job(folder, i, item) for i, item in steps if item.op == "write" and restores(item)],
        undo=True,
    )
    later: dict[str, str] | None = None
    for index, item in reversed(steps):
        if item.op == "delete" and restores(item) and later is None:
            later = prepare(
                ws,
                folder,
                [old_job(folder, i, it) for i, it in steps if it.op == "delete" and restores(it)],
                undo=True,
            )
        backward(ws, journal, seq, folder, index, item, ready if item.op == "write" else later)
