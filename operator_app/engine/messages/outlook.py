"""What a consent dialog can say about the rest of its message: which write of the message this
is ("write 2 of 4") and what `a` (apply the rest) would apply after it. The engine plans a write
only when it reaches it, so the outlook is made from the blocks of the message as the engine
scanned them: those that validate as writes (each dialect says, `DialectEngine.planned_write`),
less those that will not run as repeats of commands already run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from msgspec import Struct

DELETE_ACTIONS = ("fs.delete",)  # moves a whole file or folder to the trash (a region delete edits)


class _Used(Protocol):
    @property
    def message(self) -> int: ...


class PlannedWrite(Struct, frozen=True):
    line: int
    command_id: str
    action: str
    path: str
    path_to: str | None = None  # a copy or move: where the entry goes
    command: str | None = None  # a command to run (engine/shell): its script's first line

    @property
    def deletes(self) -> bool:
        return self.action in DELETE_ACTIONS

    @property
    def runs(self) -> bool:
        return self.command is not None

    @property
    def where(self) -> str:
        """The path, or for a copy or move both (as WritePlan.where gives them)."""
        return self.path if self.path_to is None else f"{self.path} -> {self.path_to}"


class WriteOutlook(Struct, frozen=True):
    position: int  # this write is write `position` of `total` in its message
    total: int
    # the writes after this one, in message order: what `a` applies, and the commands, which ask
    # for themselves
    rest: tuple[PlannedWrite, ...]
    open_ended: bool  # the message is still arriving: `a` also applies writes not in it yet
    # While it arrives: the outlook as it is now (more writes came, or it ended), for a dialog
    # that stays open (issue 26: "still arriving" 20 s after the answer had ended).
    now: Callable[[], WriteOutlook] | None = None

    def __eq__(self, other: object) -> bool:
        # What the outlook says, not how it is asked again: `now` is a different callable for
        # every dialog of the same write.
        if not isinstance(other, WriteOutlook):
            return NotImplemented
        return self._said() == other._said()

    def __repr__(self) -> str:  # without `now`, which holds the whole message run
        position, total, rest, open_ended = self._said()
        return f"WriteOutlook({position}, {total}, {rest!r}, {open_ended})"

    def __hash__(self) -> int:
        return hash(self._said())

    def _said(self) -> tuple[int, int, tuple[PlannedWrite, ...], bool]:
        return (self.position, self.total, self.rest, self.open_ended)

    @property
    def commands(self) -> tuple[PlannedWrite, ...]:
        """The commands among the rest: `a` does not run them, each asks when it comes
        (WritePlan.needs_own_yes)."""
        return tuple(write for write in self.rest if write.runs)

    def unseen(self, shown_path: str) -> tuple[PlannedWrite, ...]:
        """Writes among the rest that `a` would apply and that deserve a second look first: a
        delete, a copy or move (it reaches a second path), or a file other than the one whose
        diff the dialog shows. (Commands are not among them: they ask for themselves.)"""
        return tuple(
            write
            for write in self.rest
            if not write.runs
            and (write.deletes or write.path_to is not None or write.path != shown_path)
        )

    def asks_again(self, shown_path: str) -> bool:
        return self.open_ended or bool(self.unseen(shown_path))


ALONE = WriteOutlook(1, 1, (), False)  # a write asked about outside any message (String's /undo)


def normalised(path: str) -> str:
    """The path as the engine names it (a/./b/../c is a/c), from the text alone."""
    parts: list[str] = []
    for name in path.split("/"):
        if name in ("", "."):
            continue
        if name == ".." and parts:
            parts.pop()
        else:
            parts.append(name)
    return "/".join(parts) or "."


def outlook_of(
    command_id: str,
    before: Sequence[PlannedWrite],
    after: Sequence[PlannedWrite],
    *,
    message: int,
    used: Mapping[str, _Used],
    open_ended: bool,
) -> WriteOutlook:
    """The outlook of the write `command_id` of message `message`, given the planned writes of
    the blocks before and after its own. `used`: the session's used ids (Session.used_ids): a
    write whose id an earlier message used does not run (a repeat, or a duplicate id), nor does
    one repeating an id met before it in this message."""
    counted = [
        w for w in before if not (w.command_id in used and used[w.command_id].message < message)
    ]
    seen = {command_id}
    rest = []
    for write in after:
        if write.command_id in used or write.command_id in seen:
            continue
        seen.add(write.command_id)
        rest.append(write)
    position = len(counted) + 1
    return WriteOutlook(position, position + len(rest), tuple(rest), open_ended)
