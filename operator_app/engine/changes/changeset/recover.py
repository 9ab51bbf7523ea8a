"""A change-set the app died in the middle of applying is taken back: every entry the set had
reached is put as it found it (from the pre-images the journal kept), so the set is not applied
at all (False); None when some entry is neither as the set found it nor as it would leave it
(someone changed it since), and then it is left alone."""

from __future__ import annotations

from ...boundary.workspace import Workspace
from ...safety.journal import Journal, JournalEntry
from .manifest import read_manifest
from .steps import backward, in_order, state_of, sweep


def changeset_outcome(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | None:
    folder = journal.set_dir(entry.seq)
    manifest = read_manifest(folder)
    if manifest is None:
        return None  # the manifest was never made durable: no step was taken
    sweep(ws, folder)  # temporary files of the commit it died in
    known = True
    for index, item in reversed(in_order(manifest.items)):
        state = state_of(ws, item, manifest.pre.get(index))
        if state == "after":
            try:
                backward(ws, journal, entry.seq, folder, index, item)
            except OSError:
                known = False
        elif state == "other" and item.op != "rmdir":
            known = False
    journal.mark_swept(entry.seq)
    return False if known else None
