"""Undo of committed changes, newest first, from the journal: restore the pre-image, remove a
file Operator created, bring a deleted entry back from the trash, or reverse a copy or move
(transfer_undo.py). A change is only undone
when the file still holds exactly what Operator wrote (or, for a delete, the trash still holds
exactly what Operator put there), in the workspace it was made in; otherwise the undo is refused
with the reason, and nothing is touched. The journal is not trusted blindly: trash locations
must lie in a trash folder, created folders inside the workspace, and every step on the
workspace is taken relative to checked folder descriptors."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..protocol.errors import OperatorError
from .atomic import NEW_FILE_MODE, discard_temp, install_temp, temp_name, write_temp
from .commit import Current, identity_now, read_current, remove_dirs, sweep_temps
from .journal import Journal, JournalEntry, PreImageMismatch
from .plan import sha256
from .trash import TrashError
from .trash_restore import restore_from_trash, trash_location
from .workspace import Target, Workspace


class UndoRefused(Exception):
    pass


@dataclass(frozen=True)
class UndoOutcome:
    entry: JournalEntry
    summary: str


def undoable(ws: Workspace, journal: Journal) -> list[JournalEntry]:
    """Changes that took effect and are not undone yet, newest first. A "begin" without its
    "commit" (the app died mid-commit) counts when the file holds the planned bytes."""
    out = []
    for entry in reversed(journal.entries()):
        if entry.undone:
            continue
        if not entry.committed:
            if entry.kind == "delete" or entry.new_sha is None:
                continue
            try:
                current = read_current(ws, ws.target(entry.rel))
            except OperatorError:
                continue
            if sha256(current.data if current else None) != entry.new_sha:
                continue
        out.append(entry)
    return out


def _refuse_elsewhere(ws: Workspace, entry: JournalEntry) -> None:
    if entry.root is not None and entry.root != str(ws.root):
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.where}: it was made in the workspace {entry.root}, "
            f"not in {ws.root}; run undo with --workspace {entry.root}"
        )


def trashed_place(ws: Workspace, journal: Journal, entry: JournalEntry, target: Target, why: str) -> tuple[str, str]:
    """Where the trash holds what `entry` took from `target`; checked before anything moves, so an
    unusable record refuses the whole undo."""
    try:
        return trash_location(entry.trash or {}, journal.state_dir, entry.seq, target.parts[-1],
                              ws.root.joinpath(*target.parts[:-1]))
    except TrashError as exc:
        raise UndoRefused(f"{why}: {exc}") from None


def parent_to_restore_into(ws: Workspace, target: Target, why: str) -> tuple[int, str, list[str]]:
    """The folder `target` goes back into, made again where it was removed since."""
    try:
        return ws.open_parent_dir(target, create=True)
    except OperatorError as exc:
        raise UndoRefused(f"{why}: {exc.message}; nothing was touched") from None


def _undo_delete(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    target = ws.target(entry.rel)
    why = f"cannot undo the delete of {entry.rel}"
    if not target.parts:
        raise UndoRefused(f"{why}: the journal names the workspace root")
    folder, trashed = trashed_place(ws, journal, entry, target, why)
    dir_fd, name, created = parent_to_restore_into(ws, target, why)
    try:
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            raise UndoRefused(f"{why}: something exists at that path again; move it away first")
        except FileNotFoundError:
            pass
        restore_from_trash(entry.trash or {}, folder, trashed, dir_fd, name)
    except BaseException as exc:
        remove_dirs(ws, created)
        if isinstance(exc, TrashError):
            raise UndoRefused(f"{why}: {exc}") from None
        raise
    finally:
        os.close(dir_fd)
    journal.mark_undone(entry)
    return UndoOutcome(entry, f"Restored {entry.rel} from the trash (undid {entry.action} {entry.command_id})")


def _refuse_if_changed(entry: JournalEntry, dir_fd: int, name: str, checked: Current | None) -> None:
    """The file must still be the very one whose bytes were checked, right before it is replaced."""
    if checked is None or identity_now(dir_fd, name) != checked.identity:
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.rel}: the file changed since Operator wrote it; "
            "nothing was touched"
        )


def undo_entry(ws: Workspace, journal: Journal, entry: JournalEntry) -> UndoOutcome:
    _refuse_elsewhere(ws, entry)
    if entry.kind == "delete":
        return _undo_delete(ws, journal, entry)
    if entry.kind in ("copy", "move"):
        from .transfer_undo import undo_transfer

        return undo_transfer(ws, journal, entry)
    target = ws.target(entry.rel)
    current = read_current(ws, target)
    if sha256(current.data if current else None) != entry.new_sha:
        state = "is gone" if current is None else "changed"
        raise UndoRefused(
            f"cannot undo {entry.action} {entry.command_id} on {entry.rel}: the file {state} since Operator wrote it; "
            "nothing was touched"
        )
    if entry.kind != "create":
        try:
            old = journal.pre_image(entry)
        except (OSError, PreImageMismatch) as exc:
            raise UndoRefused(
                f"cannot undo {entry.action} {entry.command_id} on {entry.rel}: its saved copy in the journal is missing or "
                f"is not the one this change kept ({exc}); nothing was touched"
            ) from None
    unsynced: str | None = None
    dir_fd, name, _ = ws.open_parent_dir(target, create=False)
    try:
        if entry.kind == "create":
            _refuse_if_changed(entry, dir_fd, name, current)
            os.unlink(name, dir_fd=dir_fd)
        else:
            temp = temp_name(name)
            journal.note_temp(entry.seq, entry.rel, temp, undo=True)
            write_temp(dir_fd, name, old, entry.mode if entry.mode is not None else NEW_FILE_MODE,
                       current.owner if current else None, temp)
            try:
                # Writing and fsyncing the old bytes takes a while: a save made meanwhile is kept.
                _refuse_if_changed(entry, dir_fd, name, current)
                unsynced = install_temp(dir_fd, temp, name)
            except BaseException:
                discard_temp(dir_fd, temp)
                raise
            finally:
                journal.mark_swept(entry.seq)
    finally:
        os.close(dir_fd)
    # Undone from here on, whatever happens to the folders: the file itself is back as it was.
    journal.mark_undone(entry)
    if entry.kind == "create":
        left = remove_dirs(ws, entry.created_dirs)
        note = f"; {left}" if left else ""
        return UndoOutcome(entry, f"Removed {entry.rel}, which {entry.command_id} ({entry.action}) had created{note}")
    return UndoOutcome(entry, f"Restored {entry.rel} as it was before {entry.command_id} ({entry.action})"
                              + (f" ({unsynced})" if unsynced else ""))


def undo_last(ws: Workspace, state_dir: Path, steps: int = 1, *, newest: int | None = None) -> list[UndoOutcome]:
    """Undo up to `steps` changes, newest first; stops at the first refusal (raised after the
    ones before it were undone, so the outcomes so far are on the exception). `newest`: the seq
    of the change the person was shown and confirmed; refused if another is the newest now (one
    committed since, by another process or a followed file, must not be undone in its place)."""
    journal = Journal(state_dir)
    sweep_temps(ws, journal)
    done: list[UndoOutcome] = []
    entries = undoable(ws, journal)
    if newest is not None and (not entries or entries[0].seq != newest):
        now = f"the newest change now is {entries[0].action} on {entries[0].rel} ({entries[0].command_id})" if entries \
            else "it can no longer be undone"
        raise UndoRefused(f"the change you confirmed is not the last one any more: {now}; nothing was touched; "
                          "look again and confirm the one to undo")
    for entry in entries[:steps]:
        try:
            done.append(undo_entry(ws, journal, entry))
        except (UndoRefused, OperatorError) as exc:
            refused = UndoRefused(str(exc))
            refused.done = done  # type: ignore[attr-defined]
            raise refused from None
    return done
