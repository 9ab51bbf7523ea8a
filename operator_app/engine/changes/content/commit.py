"""The commit of a change to a file's content: re-read the target through the checked directory
descriptor, refuse with ERR_CONFLICT if it is no longer what the plan was made from, journal the
pre-image, then replace it atomically, with a last look just before the replace."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ...boundary.workspace import Workspace
from ...ondisk.atomic import NEW_FILE_MODE, discard_temp, install_temp, temp_name, write_temp
from ...ondisk.current import Current, identity_now, read_current, remove_dirs
from ...safety.journal import Journal, JournalEntry
from ...safety.pre_delta import small_delta
from ..outcomes import CommitOutcome, conflict
from ..plan import WritePlan, sha256


class _Background:
    """`work` run on a thread; `wait()` gives its result or raises what it raised. A commit writes
    and fsyncs its temporary file this way (the slow part, and free of the GIL) while it does the
    journal steps, instead of one after the other; the replace still waits for both."""

    def __init__(self, work: Callable[[], object]) -> None:
        self._work = work
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._work()
        except BaseException as exc:
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def commit_content(
    plan: WritePlan, ws: Workspace, state_dir: Path, journal: Journal
) -> CommitOutcome:
    """Replace the target's bytes with the plan's, atomically, its pre-image journaled first."""
    assert plan.new_bytes is not None
    current = read_current(ws, plan.target)
    _check_unchanged(plan, current)
    dir_fd, name, created = ws.open_parent_dir(plan.target, create=True)
    try:
        entry, note = _replace(plan, ws, journal, current, dir_fd, name, created)
        journal.commit(entry)
    finally:
        os.close(dir_fd)
    summary = plan.summary + (f" ({note})" if note else "")
    return CommitOutcome(summary, entry.seq, new_sha=entry.new_sha)


def _check_unchanged(plan: WritePlan, current: Current | None) -> None:
    """ERR_CONFLICT unless the target still holds the bytes the plan was made from."""
    # The bytes themselves, not a hash: the plan holds them anyway and memcmp is cheapest.
    if (current.data if current else None) == plan.base:
        return
    if plan.base is None:
        what = "was created by something else"
    elif current is None:
        what = "was removed"
    else:
        what = "changed"
    raise conflict(plan.target, what)


def _replace(
    plan: WritePlan,
    ws: Workspace,
    journal: Journal,
    current: Current | None,
    dir_fd: int,
    name: str,
    created: list[str],
) -> tuple[JournalEntry, str | None]:
    """The journal's entry of the change and the replace's note, once the new bytes are in
    place: written beside the target while the journal keeps the pre-image, then renamed over
    it. A failure on the way leaves nothing changed: no temporary file, no pre-image, no folder
    made on the way."""
    assert plan.new_bytes is not None
    seq = journal.next_seq()
    temp = temp_name(name)
    # so a commit killed from here on leaves no litter
    journal.note_temp(seq, plan.target.rel, temp)
    mode, owner = (current.mode, current.owner) if current else (NEW_FILE_MODE, None)
    new_bytes = plan.new_bytes
    writer = _Background(lambda: write_temp(dir_fd, name, new_bytes, mode, owner, temp))
    installing = False
    entry: JournalEntry | None = None
    try:
        entry = _entry(plan, ws, seq, current, created)
        _keep_pre_image(plan, journal, entry, current, dir_fd, name)
        writer.wait()  # the temporary file is whole and fsynced; the journal is durable
        _last_look(plan, current, dir_fd, name)
        installing = True
        return entry, install_temp(dir_fd, temp, name)
    except BaseException:
        try:
            writer.wait()  # never leave it writing into a folder about to be closed
        except BaseException:
            pass
        discard_temp(dir_fd, temp)
        if entry is not None and not installing:
            journal.discard(entry)  # no pre-image kept for a change that never happened
        journal.mark_swept(seq)
        # "Nothing was changed" holds for the folders made on the way too. Should the replace
        # have happened after all, the file keeps its folder non-empty and nothing is removed.
        remove_dirs(ws, created)
        raise


def _entry(
    plan: WritePlan, ws: Workspace, seq: int, current: Current | None, created: list[str]
) -> JournalEntry:
    assert plan.new_bytes is not None
    return JournalEntry(
        seq=seq,
        time=time.time(),
        command_id=plan.command_id,
        action=plan.action,
        rel=plan.target.rel,
        kind=plan.kind,
        old_sha=None,
        new_sha=sha256(plan.new_bytes),
        mode=current.mode if current else None,
        created_dirs=created,
        summary=plan.summary,
        root=str(ws.root),
    )


def _keep_pre_image(
    plan: WritePlan,
    journal: Journal,
    entry: JournalEntry,
    current: Current | None,
    dir_fd: int,
    name: str,
) -> None:
    """Begin the change in the journal with what undo needs: a delta for a small change to a
    large file, else the old bytes (hard-linked where the file system allows)."""
    assert plan.new_bytes is not None
    delta = small_delta(current.data, plan.new_bytes) if current is not None else None
    if delta is not None:  # a small change to a large file: only what it changed
        assert current is not None
        entry.delta, entry.old_sha = delta, sha256(current.data)
        journal.begin(entry, None)
        return
    kept = (
        "copy"
        if current is None
        else journal.link_pre_image(entry, dir_fd, name, current.identity, current.links)
    )
    if kept == "changed":
        raise conflict(plan.target, "changed")
    linked = kept == "linked"
    journal.begin(entry, None if current is None or linked else current.data, linked=linked)


def _last_look(plan: WritePlan, current: Current | None, dir_fd: int, name: str) -> None:
    """ERR_CONFLICT when the target is no longer the file read. It was read (and its pre-image
    kept) before the slow part, the write and fsync of the new bytes and of the journal: a save
    (or a create) by an editor in between would be wiped out without a trace."""
    if identity_now(dir_fd, name) != (current.identity if current else None):
        raise conflict(
            plan.target, "was created by something else" if current is None else "changed"
        )
