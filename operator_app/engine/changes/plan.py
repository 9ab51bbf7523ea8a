"""A write before it happens: the bytes it will leave, the diff the person approves, and the hash
of what was read, which the commit checks again so a file changed behind our back is never
clobbered. Planning touches nothing on disk."""

from __future__ import annotations

import hashlib
import os
import stat as stat_module
from typing import Literal

from msgspec import Struct, field

from ...protocol.errors import OperatorError
from ...protocol.outcomes import Moves
from ...protocol.results import count
from ..boundary.fsops import kind_of
from ..boundary.target import Target
from ..boundary.workspace import Workspace
from .changeset.items import ChangeSet

# "run" and "changeset": a command to run and the files it changed (engine/shell); "read": not a
# write, the question before a read of a file that looks like a secret (secret_read.py), asked
# about like a write and never committed.
PlanKind = Literal["create", "modify", "delete", "noop", "copy", "move", "run", "changeset", "read"]


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class CommandRun(Struct, frozen=True, kw_only=True):
    """What the person is asked before a command runs (a plan of kind "run"): the exact script,
    the folder it starts in, its time limit, and whether it runs sandboxed (and if not, why not)
    and may use the network."""

    script: str
    cwd: str  # workspace-relative, "." for the root
    timeout_s: int
    sandboxed: bool
    network: bool
    # Why the command would run without a sandbox ("" when sandboxed): the dialog says it in red.
    unsandboxed_why: str = ""
    # What the sandbox of this machine lacks (no seccomp filter where libseccomp is missing, no
    # bound on processes as root without a cgroup): the dialog says it beside "sandboxed".
    sandbox_gaps: tuple[str, ...] = ()

    @property
    def first_line(self) -> str:
        lines = [line for line in self.script.split("\n") if line.strip()]
        head = lines[0].strip() if lines else ""
        return head + (" ..." if len(lines) > 1 else "")


class WritePlan(Struct, frozen=True, kw_only=True):
    """Built by keyword only: ten of its fields are strings, numbers or None, which a call by
    position could swap without a type error."""

    action: str
    command_id: str
    target: Target
    kind: PlanKind
    # a delete, copy or move: the fingerprint of the entry it takes (checked again at commit);
    # a content write: None (its `base` bytes are checked instead)
    base_hash: str | None
    new_bytes: bytes | None  # None for a delete
    diff: str
    added: int
    removed: int
    summary: str  # the ok result's one line, once committed
    is_dir: bool = False
    file_count: int = 0  # for deleting a folder
    notes: tuple[str, ...] = field(default_factory=tuple)  # shown in the consent dialog
    # Asked about on its own, whatever the person answered before ("apply the rest of this
    # message" and --approve all do not approve it): its notes say why (a repeated message).
    asked_alone: bool = False
    # How the change moved the lines after it ("lines after 286 moved +2"), for its answer; None
    # when it moved none (docs/design.md, "the line-number rule").
    moves: str | None = None
    # A content change: its exact line moves, as the diff that compared the texts found them (the
    # change's record carries them: protocol/outcomes.py).
    line_moves: Moves = ()
    # a write: the bytes it was planned from (None: the file did not exist)
    base: bytes | None = None
    # A copy or move (fs.copy, fs.move, fs.rename): `target` is the entry, `target_to` where it
    # goes; `to_hash` the fingerprint of the file it replaces there (None: nothing is there).
    target_to: Target | None = None
    to_hash: str | None = None
    # A command to run (kind "run"): what its dialog shows. Nothing is committed for it: its file
    # changes come back as a plan of kind "changeset", whose `changes` lists them.
    run: CommandRun | None = None
    changes: ChangeSet | None = None

    @property
    def needs_own_yes(self) -> bool:
        """Never covered by an answer given to another plan ("apply the rest of this message"):
        a plan asked about alone, a read of a secret-looking file, a command to run (sandboxed or
        not), or what a command changed. Each command asks whenever it arrives (issue 35: `a` on
        a write of a message still streaming let a `cat .env` that arrived later run unseen, and
        applied its change-set unseen)."""
        return self.asked_alone or self.kind in ("read", "run", "changeset")

    @property
    def where(self) -> str:
        """The path, or for a copy or move both: "notes/a.txt -> archive/a.txt"."""
        return (
            self.target.rel
            if self.target_to is None
            else f"{self.target.rel} -> {self.target_to.rel}"
        )

    def counts(self) -> dict[str, int | str]:
        counts: dict[str, int | str] = {"added": self.added, "removed": self.removed}
        if self.target_to is not None:
            counts["path_to"] = self.target_to.rel
        return counts


def entry_description(ws: Workspace, target: Target, st: os.stat_result) -> str:
    """What an entry that is not a folder is, in a few words: "120 bytes", "empty file", "symlink to
    README.md", "FIFO"."""
    if stat_module.S_ISLNK(st.st_mode):
        try:
            dir_fd, name, _ = ws.open_parent_dir(target, create=False)
            try:
                return f"symlink to {os.readlink(name, dir_fd=dir_fd)}"
            finally:
                os.close(dir_fd)
        except (OSError, OperatorError):
            return "symlink"
    if not stat_module.S_ISREG(st.st_mode):
        return kind_of(st.st_mode)
    return "empty file" if st.st_size == 0 else count(st.st_size, "byte")
