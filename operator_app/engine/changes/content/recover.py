"""Whether a change to a file's content that the app died in the middle of took effect, told
from the file's bytes: the planned bytes are there (made), the bytes it had before are (not
made), or neither, and then it is not known (None): "not made" would be a guess, and a wrong one
has the model apply the change a second time."""

from __future__ import annotations

from ....protocol.errors import OperatorError
from ...boundary.workspace import Workspace
from ...ondisk.current import read_current
from ...safety.journal import Journal, JournalEntry, PreImageMismatch
from ..plan import sha256


def content_outcome(ws: Workspace, journal: Journal, entry: JournalEntry) -> bool | None:
    try:
        current = read_current(ws, ws.target(entry.rel))
    except OperatorError:
        return None
    if sha256(current.data if current else None) == entry.new_sha:
        return True
    if entry.kind == "create":
        return False if current is None else None
    if entry.delta is not None:  # kept as a delta: the hash of the bytes before is recorded
        return False if sha256(current.data if current else None) == entry.old_sha else None
    try:
        before = journal.pre_image(entry)
    except (OSError, PreImageMismatch):
        return None
    return False if current is not None and current.data == before else None
