"""The commit of a change-set: every entry checked to be as planned (else a conflict, nothing
touched), the pre-image of every file it replaces or removes kept in the journal with a manifest
of the set, then the steps taken in order; a failure half-way takes the steps done back, so the
set lands whole or not at all. The command's upper layer holds the new bytes."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ...boundary.workspace import Workspace
from ...ondisk.private import FOLDER_MODE, private_folder
from ...safety.journal import Journal, JournalEntry
from ..outcomes import CommitOutcome
from ..plan import WritePlan
from .items import ChangeSet, Item
from .manifest import Manifest
from .steps import (
    WORKERS,
    backward,
    check_before,
    forward,
    in_order,
    keep_pre_image,
    new_job,
    prepare,
    sweep,
    sync_folders,
)


def commit_changeset(
    plan: WritePlan, ws: Workspace, state_dir: Path, journal: Journal
) -> CommitOutcome:
    changes = plan.changes
    assert changes is not None
    items = changes.items
    check_before(ws, items)
    seq = journal.next_seq()
    folder = journal.set_dir(seq)
    private_folder(folder.parent, top=journal.dir)  # the person's alone (ondisk/private.py)
    os.mkdir(folder, FOLDER_MODE)  # a seq's folder is made once (it exists: the pre-images mix)
    Manifest(items, _keep_pre_images(ws, items, folder)).write(folder)
    entry = JournalEntry(
        seq=seq,
        time=time.time(),
        command_id=plan.command_id,
        action=plan.action,
        rel=plan.target.rel,
        kind="changeset",
        old_sha=None,
        new_sha=None,
        summary=plan.summary,
        root=str(ws.root),
    )
    journal.begin(entry, None)
    notes = _take_steps(ws, journal, seq, folder, changes)
    sweep(ws, folder)
    journal.mark_swept(seq)
    synced = sync_folders(ws, items)
    journal.commit(entry, sync=True)
    extra = "; ".join(notes + ([synced] if synced else []))
    return CommitOutcome(plan.summary + (f" ({extra})" if extra else ""), seq, extra)


def _keep_pre_images(ws: Workspace, items: tuple[Item, ...], folder: Path) -> dict[int, str]:
    """Keep in `folder` the bytes of every file the set replaces or removes: item index -> the
    pre-image's sha256."""
    kept = [
        index
        for index, item in enumerate(items)
        if item.before is not None and item.before.kind == "file" and item.op in ("write", "delete")
    ]
    # fsyncs made in parallel share the file system's journal commits
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        shas = list(pool.map(lambda i: keep_pre_image(ws, items[i], folder, i), kept))
    return dict(zip(kept, shas, strict=True))


def _take_steps(
    ws: Workspace, journal: Journal, seq: int, folder: Path, changes: ChangeSet
) -> list[str]:
    """Take the set's steps in order, and what they had to say; a failure takes back the steps
    done (and sweeps the new files' bytes) before it goes on."""
    steps = in_order(changes.items)
    done: list[tuple[int, Item]] = []
    notes = []
    ready: dict[str, str] | None = None
    try:
        for index, item in steps:
            if item.op == "write" and ready is None:
                # The new folders are made by now: every new file's bytes are written beside it
                # at once, then each is renamed into place.
                writes = [new_job(changes.upper, it) for _, it in steps if it.op == "write"]
                ready = prepare(ws, folder, writes)
            note = forward(ws, journal, seq, changes.upper, index, item, ready)
            done.append((index, item))
            if note:
                notes.append(note)
    except BaseException:
        sweep(ws, folder)
        for index, item in reversed(done):
            try:
                backward(ws, journal, seq, folder, index, item)
            except OSError:
                pass
        journal.mark_swept(seq)
        raise
    return notes
