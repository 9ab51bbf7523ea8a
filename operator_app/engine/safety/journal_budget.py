"""The undo journal's budget: the pre-images it keeps (journal/pre/<seq>.bin, the whole bytes of
a file before a change that was not small enough for a delta, and journal/sets/<seq>/, the files a
command's change-set replaced or removed) may take at most
MESSAGE_MAX_BYTES for the changes of one message and SESSION_MAX_BYTES in all. After a change
is committed, while either is exceeded, the oldest changes are let go of: a "cut" record says no
change up to its seq can be undone any more (undo works newest first, so nothing older could be
reached past the first one let go of anyway), then their pre-images are removed. The change just
made is never let go of. The result of the change that made the cut says so, in both dialects,
and the front ends show it to the person.

The sizes are read from the pre/ folder, again only when the folder's time moved since the last
look (a delta adds no file there), so a message of a thousand small edits costs no scans; the
change just made is looked at by name, as the folder's time is too coarse to tell two changes
a millisecond apart. A change-set's folder is summed once: it never changes after its commit."""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct, field

from .journal import Journal

MESSAGE_MAX_BYTES = 128 * 1024 * 1024
SESSION_MAX_BYTES = 512 * 1024 * 1024


class _Usage(Struct):
    folder_mtime_ns: int
    sizes: dict[int, int]  # seq -> bytes of pre/<seq>.bin, or of the files in sets/<seq>/


class _Message(Struct):
    number: int
    seqs: set[int] = field(default_factory=set)


_USAGE: dict[Path, _Usage] = {}
_MESSAGES: dict[Path, _Message] = {}


def _usage(journal: Journal) -> _Usage:
    folder = journal.pre
    mtime = os.stat(folder).st_mtime_ns
    known = _USAGE.get(folder)
    if known is not None and known.folder_mtime_ns == mtime:
        return known
    sizes: dict[int, int] = {}
    with os.scandir(folder) as scan:
        for item in scan:
            stem, dot, suffix = item.name.partition(".")
            if dot and suffix == "bin" and stem.isdigit():
                try:
                    sizes[int(stem)] = item.stat(follow_symlinks=False).st_size
                except FileNotFoundError:
                    continue
    sizes.update(_set_sizes(journal))
    usage = _USAGE[folder] = _Usage(mtime, sizes)
    return usage


_SETS: dict[Path, int] = {}  # sets/<seq>/ -> the bytes of its files (a set never changes)


def _set_sizes(journal: Journal) -> dict[int, int]:
    sizes: dict[int, int] = {}
    try:
        with os.scandir(journal.dir / "sets") as scan:
            folders = [item.name for item in scan if item.name.isdigit()]
    except FileNotFoundError:
        return sizes
    for name in folders:
        sizes[int(name)] = _set_size(journal.set_dir(int(name)))
    return sizes


def _set_size(folder: Path) -> int:
    known = _SETS.get(folder)
    if known is not None:
        return known
    total = 0
    try:
        with os.scandir(folder) as scan:
            for item in scan:
                try:
                    total += item.stat(follow_symlinks=False).st_size
                except FileNotFoundError:
                    continue
    except FileNotFoundError:
        return 0
    _SETS[folder] = total
    return total


def keep_within_budget(state_dir: Path, seq: int | None, message: int) -> str | None:
    """After change `seq` of message `message` was committed: let go of the oldest changes while
    the kept pre-images are over a limit. The sentence for the result when some were, else
    None. Never raises: the change is made whatever the bookkeeping meets (it tries again after
    the next one)."""
    try:
        return _keep_within_budget(state_dir, seq, message)
    except OSError:
        return None


def _keep_within_budget(state_dir: Path, seq: int | None, message: int) -> str | None:
    journal = Journal(state_dir)
    mine = _seqs_of_message(state_dir, seq, message)
    dropped = _over_budget(_sizes(journal, seq), mine, seq)
    return _let_go(journal, dropped) if dropped else None


def _seqs_of_message(state_dir: Path, seq: int | None, message: int) -> set[int]:
    """The changes of message `message` so far, `seq` among them."""
    mine = _MESSAGES.get(state_dir)
    if mine is None or mine.number != message:
        mine = _MESSAGES[state_dir] = _Message(message)
    if seq is not None:
        mine.seqs.add(seq)
    return mine.seqs


def _sizes(journal: Journal, seq: int | None) -> dict[int, int]:
    """The bytes each change's kept copies take, the change `seq` just made among them."""
    sizes = _usage(journal).sizes
    if seq is not None and seq not in sizes:
        # The folder's time may not have moved (its clock is coarse): the change just made is
        # looked at by name.
        try:
            sizes[seq] = os.stat(journal.pre / f"{seq}.bin").st_size
        except FileNotFoundError:
            if os.path.isdir(journal.set_dir(seq)):
                sizes[seq] = _set_size(journal.set_dir(seq))
    return sizes


def _over_budget(sizes: dict[int, int], mine: set[int], seq: int | None) -> list[int]:
    """The oldest changes to let go of, so that what is kept fits both limits (never `seq`, the
    change just made)."""
    total = sum(sizes.values())
    of_message = sum(size for at, size in sizes.items() if at in mine)
    dropped: list[int] = []
    for at in sorted(sizes):
        if (total <= SESSION_MAX_BYTES and of_message <= MESSAGE_MAX_BYTES) or at == seq:
            break
        size = sizes[at]
        total -= size
        of_message -= size if at in mine else 0
        dropped.append(at)
    return dropped


def _let_go(journal: Journal, dropped: list[int]) -> str:
    """Cut the journal at the newest of `dropped` and remove their copies; the sentence that
    says so."""
    cut_at = dropped[-1]
    let_go = [
        entry
        for entry in journal.entries()
        if entry.seq <= cut_at and not entry.cut and not entry.undone
    ]
    why = (
        f"the undo journal keeps at most {MESSAGE_MAX_BYTES // 2**20} MB of saved copies for "
        f"one message and {SESSION_MAX_BYTES // 2**20} MB in all"
    )
    journal.cut(cut_at, why)  # first: a crash from here on leaves no undo to a lost copy
    for at in dropped:
        journal.drop_pre_image(at)
    _USAGE.pop(journal.pre, None)
    newest = let_go[-1] if let_go else None
    which = f" (the newest of them: {newest.action} {newest.command_id})" if newest else ""
    return (
        f"undo depth cut: the {len(let_go)} oldest changes{which} can no longer be undone, as {why}"
    )
