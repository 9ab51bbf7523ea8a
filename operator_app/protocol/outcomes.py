"""What an action did, as a record the engine makes once (docs/design.md, "Outcomes"): a read
(which file, which of its lines the model was shown), a change (which file or entry, how its lines
moved, its new hash, its journal number), a walk of the tree (its rows and caveats), and a command
that ran (its exit, its folders, its output and what became of its change-set). A result carries
its record (`CommandResult.outcome`); each dialect renders its answer from it, `--json` carries
it, the session keeps it, and the line-number bookkeeping reads its fields. Pure data: no layer
parses another layer's text to learn what happened.

Paths are workspace-relative. A record's `real` is the path as the engine resolved it (symlinked
folders followed), so that two names of one file are known to be one file."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

Span = tuple[int, int]  # lines first..last, 1-based, inclusive


class Change(Struct, frozen=True):
    """Old lines [start, end) became new lines [new_start, new_end) (0-based, half-open, each in
    the numbering of the text just before the change)."""

    start: int
    end: int
    new_start: int
    new_end: int

    @property
    def delta(self) -> int:
        return (self.new_end - self.new_start) - (self.end - self.start)


Moves = tuple[Change, ...]  # one change of a file's text, in order, none overlapping


class ReadOutcome(Struct, frozen=True, kw_only=True, tag="read"):
    """A file's content shown to the model (fs.read, fs.readSlice, fs.search, fs.readRegion,
    String's /open and its kin): a view the model may count lines from."""

    path: str  # as the command named it
    real: str  # the file it reached
    lines: int  # the file's line count
    shown: tuple[Span, ...]  # the lines shown, in order
    numbered: bool  # shown with their line numbers
    sha256: str  # of the bytes read


# "none": a write whose file already held its content: nothing was written, but the model knows
# the text (a whole-file write's `rewrote` still holds).
ChangeKind = Literal["create", "modify", "delete", "copy", "move", "none"]


class ChangeOutcome(Struct, frozen=True, kw_only=True, tag="change"):
    """A change made to the workspace by a write of the model's (or String's /undo)."""

    kind: ChangeKind
    path: str  # the file or entry changed (a copy's or move's source)
    real: str
    path_to: str | None = None  # a copy or move: where the entry went
    real_to: str | None = None
    # How the change moved the file's lines, as the text transform computed them (empty for a
    # change of an entry, or of a file that is not text).
    moves: Moves = ()
    rewrote: bool = False  # it gave the file's whole text: the model numbers what follows from it
    old_sha256: str | None = None  # the content it was made from (None: there was none)
    new_sha256: str | None = None  # the content it left (None: none, or not a file's content)
    lines: int | None = None  # the file's line count after it (a text file's)
    seq: int | None = None  # its journal entry (what undo takes back)
    undoes: int | None = None  # String's /undo: the journal entry it took back
    undo_cut: str | None = None  # the oldest undo history was let go of to make room for it


class WalkOutcome(Struct, frozen=True, kw_only=True, tag="walk"):
    """A walk of the tree (fs.find, fs.searchTree, fs.tree): what it found, one row each as the
    result lists them, and what the model must know of how far it looked."""

    path: str  # the folder walked
    rows: tuple[str, ...]
    # Why the rows may not be all there is (the walk stopped, entries were skipped, a .gitignore
    # was cut), in the engine's words.
    caveats: tuple[str, ...] = ()


ChangesetState = Literal[
    "none",  # the command changed nothing a set takes
    "applied",
    "declined",  # the person said no to the set
    "not_approved",  # no person could be asked (an always-allowed command under exec)
    "conflict",  # the tree changed behind its back, before or at the commit
    "failed",  # the commit failed otherwise
    "discarded",  # the command did not finish: its changes were dropped with the overlay
    "direct",  # no sandbox: it changed the tree itself, unreviewed
]
EntryChange = Literal["created", "changed", "deleted", "folder made", "folder removed"]


class SetEntry(Struct, frozen=True):
    """An entry a command's change-set changes."""

    path: str
    change: EntryChange
    sha256: str | None = None  # a file it writes: the new content's


class LeftOut(Struct, frozen=True):
    """Entries of a command's changes that are not part of its set, by folder: under ignored paths
    (.gitignore, .git/), or symlinks and special files the command made."""

    why: Literal["ignored", "symlink", "special"]
    folder: str  # "." for the root
    count: int


class ChangesetOutcome(Struct, frozen=True, kw_only=True):
    """What became of a command's changes to the tree."""

    state: ChangesetState
    summary: str = ""  # what the set holds: "3 files: 2 changed, 1 created"
    entries: tuple[SetEntry, ...] = ()  # known once the set was read and planned
    left_out: tuple[LeftOut, ...] = ()
    reason: str = ""  # a conflict's or a failure's error
    note: str = ""  # applied: what the commit adds ("3 folders synced")
    seq: int | None = None  # applied: its journal entry
    undo_cut: str | None = None  # applied: the oldest undo history was let go of for it


RunEnd = Literal[
    "exit",  # it exited with `exit`
    "signal",  # a signal ended it (`signal`)
    "timeout",  # it ran past its time limit and was stopped with its process group
    "stopped",  # the person stopped it
    "not_started",  # the sandbox could not be built: nothing ran
]
# Why the folder a command ended in is not known: "stopped" (it did not end by itself),
# "no_trap" (it replaced its shell, or its EXIT trap, which says where), "outside" (it ended
# outside the workspace, at `outside`).
CwdUnknown = Literal["", "stopped", "no_trap", "outside"]


class RunOutput(Struct, frozen=True, kw_only=True):
    """A command's output (stdout and stderr as written) and what the result shows of it."""

    text: str  # what the result shows: the whole, or its first and last lines with the cut said
    lines: int
    bytes: int
    cut_lines: int = 0  # cut from the middle of what is shown
    cut_bytes: int = 0
    saved: str  # the file the whole output is saved in
    saved_bytes: int  # how much of it that file holds (it keeps at most a bound)

    @property
    def whole(self) -> bool:
        return self.cut_bytes == 0


class RunOutcome(Struct, frozen=True, kw_only=True, tag="run"):
    """A command that ran (shell.run, a String bash topic's script)."""

    end: RunEnd
    exit: int | None  # its exit status (None: it ended by a signal, or never started)
    signal: int | None
    seconds: float
    timeout_s: int
    started_in: str  # the folder it started in
    ended_in: str | None  # the folder it ended in (None: not known, see `cwd_unknown`)
    cwd_unknown: CwdUnknown = ""
    outside: str = ""  # where it ended, outside the workspace, as the shell said it
    sandboxed: bool
    network: bool
    output: RunOutput
    changes: ChangesetOutcome

    @property
    def finished(self) -> bool:
        """It ran to its own end (an exit status, even a failing one)."""
        return self.end == "exit"


Outcome = ReadOutcome | ChangeOutcome | WalkOutcome | RunOutcome


def undo_cut(outcome: Outcome | None) -> str | None:
    """The sentence saying the oldest undo history was let go of for this action, if it was
    (engine/safety/journal_budget.py): the person hears it too."""
    if isinstance(outcome, ChangeOutcome):
        return outcome.undo_cut
    if isinstance(outcome, RunOutcome):
        return outcome.changes.undo_cut
    return None
