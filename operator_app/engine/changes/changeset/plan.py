"""The plan of a change-set: the command's changes read from its upper layer (upper.py), each
file's diff for the person (a binary or very large file by size and hash), and the conflicts
refused before anyone is asked: an entry of the tree the set changes that changed itself while the
command ran (behind its back) is a conflict, and nothing of the set is applied."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ....protocol.errors import ErrorCode, OperatorError
from ....protocol.results import count
from ...boundary.workspace import Workspace
from ...textops.diff import unified_diff
from ..plan import WritePlan
from .items import ChangeSet, Item
from .upper import Found, UpperUnreadable, read_upper

DIFF_MAX_BYTES = 1_000_000  # a file larger than this is shown by its size and hash
_SNIFF = 8192


def _read(path: Path, limit: int | None = None) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            if limit is not None and sum(len(c) for c in chunks) > limit:
                break
        return b"".join(chunks)
    finally:
        os.close(fd)


def file_sha(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def _text(data: bytes) -> str | None:
    if b"\0" in data[:_SNIFF]:
        return None
    try:
        return data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return None


def _mode_note(item: Item) -> str:
    if item.before is None or item.new_mode is None or item.before.mode == item.new_mode:
        return ""
    return f"mode {item.before.mode:o} -> {item.new_mode:o}"


def _diff_of(ws: Workspace, upper: Path, item: Item) -> tuple[str, int, int]:
    """The item as the person reviews it: a unified diff for text, a line for the rest."""
    rel = item.rel
    if item.op == "mkdir":
        return f"new folder {rel}/\n", 0, 0
    if item.op == "rmdir":
        return f"folder {rel}/ removed\n", 0, 0
    if item.op == "delete":
        return _deleted(ws.root / rel, item)
    return _written(ws.root / rel, upper, item)


def _deleted(old_path: Path, item: Item) -> tuple[str, int, int]:
    rel, before = item.rel, item.before
    assert before is not None
    if before.kind == "symlink":
        return f"symlink {rel} -> {item.link} deleted\n", 0, 0
    if before.kind != "file":
        return f"{before.kind} {rel} deleted\n", 0, 0
    old = _read(old_path, DIFF_MAX_BYTES) if before.size <= DIFF_MAX_BYTES else None
    text = _text(old) if old is not None else None
    if text is None:
        return (
            f"Binary file {rel} deleted ({count(before.size, 'byte')}, sha256 "
            f"{(file_sha(old_path) or '?')[:12]})\n",
            0,
            0,
        )
    return unified_diff(text, "", rel, deleted=True)


def _written(old_path: Path, upper: Path, item: Item) -> tuple[str, int, int]:
    """A file the command created or changed (its bytes, its mode, or both)."""
    rel = item.rel
    new = _read(upper / rel, DIFF_MAX_BYTES) if item.new_size <= DIFF_MAX_BYTES else None
    new_text = _text(new) if new is not None else None
    old_text = _old_text(old_path, item)
    note = _mode_note(item)
    if new_text is None or old_text is None:
        return _binary_written(old_path, item, note), 0, 0
    diff, added, removed = unified_diff(old_text, new_text, rel, created=item.before is None)
    if not diff:
        diff = f"--- a/{rel}\n+++ b/{rel}\n"
    if note:
        diff = f"# {rel}: {note}\n" + diff
    return diff, added, removed


def _old_text(old_path: Path, item: Item) -> str | None:
    """The text a written file replaces ("" for a new one); None for one that is binary or too
    large to show."""
    if item.before is None:
        return ""
    if item.before.size > DIFF_MAX_BYTES:
        return None
    return _text(_read(old_path, DIFF_MAX_BYTES) or b"")


def _binary_written(old_path: Path, item: Item, note: str) -> str:
    """A written file shown by its sizes and hashes."""
    was = (
        f"{count(item.before.size, 'byte')}, sha256 {(file_sha(old_path) or '?')[:12]} -> "
        if item.before is not None
        else ""
    )
    what = "changed" if item.before is not None else "created"
    return (
        f"Binary file {item.rel} {what} ({was}{count(item.new_size, 'byte')}, sha256 "
        f"{(item.new_sha or '?')[:12]}){' ' + note if note else ''}\n"
    )


def _conflicts(found: Found, started_ns: int) -> list[str]:
    """Entries the set changes that changed in the tree while the command ran."""
    return [
        item.rel
        for item in found.items
        if item.before is not None
        and item.before.kind != "dir"
        and item.before.ctime_ns >= started_ns
    ]


def read_changes(ws: Workspace, upper: Path) -> Found:
    try:
        return read_upper(str(ws.root), str(upper))
    except UpperUnreadable as exc:
        raise OperatorError(ErrorCode.ERR_SANDBOX_FAILED, f"{exc}; nothing was applied") from None


def plan_changeset(
    ws: Workspace,
    upper: Path,
    found: Found,
    *,
    command_id: str,
    action: str,
    where: str,
    started_ns: int,
) -> WritePlan | None:
    """The plan of what the command changed, or None when it changed nothing the set takes (what
    it left out, `found.left()`, is then its caller's to tell)."""
    if not found.items:
        return None
    changed = _conflicts(found, started_ns)
    if changed:
        shown = ", ".join(changed[:5]) + (
            f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        )
        raise OperatorError(
            ErrorCode.ERR_CONFLICT,
            f"{shown} changed in the tree while the command ran (behind its back); none of its "
            "changes were applied; look at the files again and run the command anew",
        )
    items = []
    for item in found.items:
        if item.op == "write":
            item = Item(
                item.rel,
                item.op,
                item.before,
                new_mode=item.new_mode,
                new_sha=file_sha(upper / item.rel),
                new_size=item.new_size,
            )
        items.append(item)
    diffs, added, removed = [], 0, 0
    for item in items:
        diff, plus, minus = _diff_of(ws, upper, item)
        diffs.append(diff)
        added, removed = added + plus, removed + minus
    changes = ChangeSet(
        upper=upper,
        items=tuple(items),
        left_out=found.left(),
        started_ns=started_ns,
        files=dict(found.files),
    )
    summary = f"changes applied: {changes.describe()}"
    return WritePlan(
        action=action,
        command_id=command_id,
        target=ws.target(where),
        kind="changeset",
        base_hash=None,
        new_bytes=None,
        diff="".join(diffs),
        added=added,
        removed=removed,
        summary=summary,
        notes=tuple(changes.left_out_lines()),
        changes=changes,
    )


def plan_unavailable(cmd: object, ws: Workspace) -> WritePlan:
    """A change-set is planned from a finished command's upper layer (engine/shell), never from
    a command of the model's: the kinds table's `plan` for it says so."""
    raise TypeError("a change-set is planned by engine/shell from a finished command")
