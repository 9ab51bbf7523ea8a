"""The line-number rule, kept per message run (docs/design.md, "the line-number rule"). A model
writes a whole message before anything in it runs, so every line number in it counts the file
as it was when the message began. This remembers what each write of the message did to each
file's lines, read from the record of every change the message run commits, of either dialect
(protocol/outcomes.py: the moves its text transform computed), so that a line-addressed edit is
applied only while its numbers still name the lines they named: when an earlier write moved its
range (changed how many lines stand above it) or changed lines inside it, the dialect refuses it,
with the range those lines have now and the lines themselves.

A write that gives a file's whole text (fs.write, String's /write) starts the count again: the
model numbers what follows from the text it wrote. A file deleted forgets its count; one moved
or copied takes it along.

A command the message ran (shell.run, a bash topic's script) is a write too, but not one whose
lines can be followed: its change-set says which files it changed, not what the model meant by
them (a formatter moves every line). So a line-addressed edit of a file a command of the message
changed is refused, the lines now at the numbers given shown, until a whole-file write gives
the file a text the model numbered itself; after a command that ran without a sandbox, which
may have changed any file unseen, every file's is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct, field

from ..textops.line_moves import Step, carry

if TYPE_CHECKING:
    from ...protocol.outcomes import ChangeOutcome, RunOutcome
    from ..boundary.workspace import Workspace

SHOWN_LINES = 40  # of the lines a refusal shows as they are now; more are cut in the middle


class LinesMoved(Struct, frozen=True):
    """A range of lines whose numbers an earlier write of the message moved or changed."""

    rel: str
    asked: tuple[int, int]  # as written: the file when the message began
    now: tuple[int, int]  # where those lines are now
    by: tuple[str, ...]  # the ids of the writes of this message that moved or changed them
    lines: tuple[tuple[int, str], ...]  # (number, text) of the lines now[0]..now[1] (maybe cut)
    total: int  # the file's line count now
    # A command of the message (its id is `by`) changed the file: where the lines went is not
    # known, and `now` is the range asked, as the file is now.
    by_command: bool = False


class MessageLines(Struct):
    _steps: dict[str, list[tuple[str, Step]]] = field(default_factory=dict)  # rel -> (id, step)
    _by_command: dict[str, str] = field(default_factory=dict)  # rel -> the command that changed it
    # A command that ran without a sandbox (its id), and the files written whole since.
    _anywhere: str | None = None
    _rewritten: set[str] = field(default_factory=set)

    def committed(self, change: ChangeOutcome, by: str) -> None:
        """A write of this message (the command `by`) was made: its record says what it did."""
        rel = change.path
        if change.kind == "delete":
            self._forget(rel)
        elif change.kind in ("copy", "move"):
            if change.path_to is not None:
                self._carry(rel, change.path_to, keep=change.kind == "copy")
        elif change.rewrote:
            self._steps.pop(rel, None)
            self._by_command.pop(rel, None)
            self._rewritten.add(rel)
        elif change.moves:
            self._steps.setdefault(rel, []).append((by, change.moves))

    def ran(self, run: RunOutcome, by: str) -> None:
        """A command of this message (`by`) ran: its record says what became of its change-set;
        a command without a sandbox changed the tree directly, so any file."""
        changes = run.changes
        if changes.state == "direct":
            self._anywhere, self._rewritten = by, set()
            return
        if changes.state != "applied":
            return
        for entry in changes.entries:
            if entry.change in ("created", "changed"):
                self._steps.pop(entry.path, None)
                self._by_command[entry.path] = by
            elif entry.change == "deleted":
                self._forget(entry.path)

    def moved(self, ws: Workspace, rel: str, first: int, last: int) -> LinesMoved | None:
        """None while lines first..last (as the message began) are still where they were and
        unchanged by this message's writes; else where they are now, and what they hold."""
        command = self._by_command.get(rel)
        if command is None and self._anywhere is not None and rel not in self._rewritten:
            command = self._anywhere
        if command is not None:
            lines, total = _lines_now(ws, rel, first, last)
            return LinesMoved(rel, (first, last), (first, last), (command,), lines, total, True)
        steps = self._steps.get(rel)
        if not steps:
            return None
        carried = carry(first, last, [step for _, step in steps])
        if not carried.touched_by:
            return None
        by = tuple(dict.fromkeys(steps[index][0] for index in carried.touched_by))
        lines, total = _lines_now(ws, rel, carried.first, carried.last)
        return LinesMoved(rel, (first, last), (carried.first, carried.last), by, lines, total)

    def _forget(self, rel: str) -> None:
        for kept in (self._steps, self._by_command):
            for key in [k for k in kept if k == rel or k.startswith(rel + "/")]:
                del kept[key]

    def _carry(self, rel: str, to: str, *, keep: bool) -> None:
        self._forget(to)
        for key in [k for k in self._steps if k == rel or k.startswith(rel + "/")]:
            steps = self._steps[key] if keep else self._steps.pop(key)
            self._steps[to + key[len(rel) :]] = list(steps)
        for key in [k for k in self._by_command if k == rel or k.startswith(rel + "/")]:
            command = self._by_command[key] if keep else self._by_command.pop(key)
            self._by_command[to + key[len(rel) :]] = command


def _lines_now(
    ws: Workspace, rel: str, first: int, last: int
) -> tuple[tuple[tuple[int, str], ...], int]:
    """The file's lines first..last as they are now (at most SHOWN_LINES: the first and the last
    halves), and its line count; nothing when it cannot be read as text."""
    from ...protocol.errors import OperatorError
    from ...protocol.grammar import WRITE_MAX_BYTES
    from ..textops.textfile import TextDoc, split_lines

    try:
        target = ws.target(rel)
        text = TextDoc.decode(ws.read_file(target, max_bytes=WRITE_MAX_BYTES), label=rel).text
    except (OperatorError, OSError):
        return (), 0
    lines = split_lines(text)
    last = min(last, len(lines))
    numbers = list(range(first, last + 1))
    if len(numbers) > SHOWN_LINES:
        half = SHOWN_LINES // 2
        numbers = numbers[:half] + numbers[-half:]
    return tuple((n, lines[n - 1]) for n in numbers), len(lines)
