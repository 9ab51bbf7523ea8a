"""Secrets ask first: a read that would hand the model the content of a file that looks like a
secret (boundary/secrets.py) waits for the person's yes, as a write does, through the same
consent every front end answers (the TUI's dialog, `exec`'s terminal or --approve, the bridge's
page saying a question waits in the terminal). The question is a plan of kind "read": it names
the file and the pattern it matched, and nothing is read before the answer. The result says why
it waited; declined, it is ERR_SECRET_DECLINED (String: SECRET_DECLINED) and nothing was read.

Reads that return names only (fs.list, fs.tree, fs.find, fs.stat, fs.listRegions) do not ask;
a tree search (fs.searchTree) leaves such files out and says so in its header, so that no
search quietly hands over a secret file's lines (reads/search_tree.py).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from ...protocol.errors import HOW_TO_APPROVE, ErrorCode, OperatorError
from ...protocol.results import CommandResult, failed
from ..boundary.secrets import SecretPaths

if TYPE_CHECKING:
    from ...protocol.commands.base import Command
    from ..boundary.target import Target
    from ..boundary.workspace import Workspace
    from .plan import WritePlan

# The OPERATOR_CMD reads that return a file's content.
CONTENT_READS = frozenset({"fs.read", "fs.readSlice", "fs.search", "fs.readRegion"})

Consent = Callable[["WritePlan", int], bool]


def secret_pattern(secrets: SecretPaths, ws: Workspace, target: Target) -> str | None:
    """The pattern that makes the target look like a secret, by the path the model named or by
    the file it resolves to (a symlink inside the workspace named otherwise), or None."""
    found = secrets.matches(target.rel)
    if found is None:
        resolved = os.path.relpath(target.abs, ws.root)
        if not resolved.startswith(".."):
            found = secrets.matches(resolved.replace(os.sep, "/"))
    return found


def read_plan(action: str, command_id: str, target: Target, pattern: str) -> WritePlan:
    """The question the person is asked: the read, the file, why it asks."""
    said = [
        f"The model asks to read {target.rel}.",
        f"{target.rel} looks like a secret: it matches {pattern} in the paths Operator asks "
        "about (secret_paths in the settings).",
        "What it reads goes to the model, and through it to the chat's provider. Nothing is "
        "read before you answer.",
    ]
    # What the dialog shows in place of a diff (the front ends show a plan's `diff` as it is,
    # without wrapping it: it is wrapped here).
    from .plan import WritePlan  # only for a file that looks like a secret

    return WritePlan(
        action=action,
        command_id=command_id,
        target=target,
        kind="read",
        base_hash=None,
        new_bytes=None,
        diff="\n".join(textwrap.fill(line, 72, break_on_hyphens=False) for line in said),
        added=0,
        removed=0,
        summary="",
    )


def approved_clause(pattern: str) -> str:
    return (
        f" (it looks like a secret, matching {pattern}: read only once approved in Operator, "
        "which asked first)"
    )


def declined_error(action: str, rel: str, pattern: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_SECRET_DECLINED,
        (
            f"{action} of {rel} was not approved: the file looks like a secret (it matches "
            f"{pattern}), so Operator asked the person first, and nothing was read; do without it, "
            "or ask the person to share what you need"
        ),
    )


def not_read(action: str, rel: str, pattern: str) -> OperatorError:
    """The answer of a read no one could be asked about (engine/messages/not_approved.py):
    not read, and not a refusal."""
    return OperatorError(
        ErrorCode.ERR_NOT_APPROVED,
        (
            f"{action} of {rel} was not read: the file looks like a secret (it matches {pattern}) "
            "and no person was asked (Operator ran this message without a terminal and without "
            "--approve); nothing was read; not a refusal: tell the person the read waits for "
            f"their approval ({HOW_TO_APPROVE}); do not send it again under a new id"
        ),
    )


class SecretAsk(Struct, frozen=True):
    """The person's answer about one read of a secret-looking file."""

    rel: str
    pattern: str
    allowed: bool

    def declined(self, command: Command) -> CommandResult:
        error = declined_error(command.action, self.rel, self.pattern)
        # "rejected": like a declined write, it leaves the command's id free for another try.
        return failed(command.id, error, action=command.action, path=self.rel, status="rejected")

    def unanswered(self, command: Command) -> CommandResult:
        """No person could be asked (exec without a terminal and without --approve): not read,
        and not a refusal; the rest of the message waits with it (messages/not_approved.py)."""
        error = not_read(command.action, self.rel, self.pattern)
        return failed(command.id, error, action=command.action, path=self.rel, status="rejected")

    def told(self, result: CommandResult) -> CommandResult:
        """The read's own result, saying why it waited."""
        return replace(result, summary=result.summary + approved_clause(self.pattern))


def ask_before_reading(
    ws: Workspace,
    secrets: SecretPaths,
    consent: Consent,
    command: Command,
    message: int,
    before_asking: Callable[[], None] | None = None,
) -> SecretAsk | None:
    """None when `command` reads no secret-looking file's content; else the person's answer
    (asked through `consent`, after `before_asking` showed what ran before)."""
    path = command.path_or_none
    if command.action not in CONTENT_READS or path is None:
        return None
    try:
        target = ws.target(path)
    except OperatorError:
        return None  # the read itself says what is wrong with the path
    pattern = secret_pattern(secrets, ws, target)
    if pattern is None:
        return None
    if before_asking is not None:
        before_asking()
    allowed = consent(read_plan(command.action, command.id, target, pattern), message)
    return SecretAsk(target.rel, pattern, allowed)


def note_on_transfer(plan: WritePlan, secrets: SecretPaths) -> WritePlan:
    """A copy or move of a secret-looking file to a name that does not look like one: the
    consent dialog says that the model may then read it without asking."""
    if plan.target_to is None:
        return plan
    pattern = secrets.matches(plan.target.rel)
    if pattern is None or secrets.matches(plan.target_to.rel) is not None:
        return plan
    note = (
        f"{plan.target.rel} looks like a secret ({pattern}); once at {plan.target_to.rel}, the "
        "model can read it without Operator asking"
    )
    return replace(plan, notes=(*plan.notes, note))
