"""The engine both front ends drive (executor.py): boundary, reads, writes and their safety net.

This module is the engine's face: the names front ends (cli, tui, bridge) use, each imported on
first use (PEP 562), so `operator-app exec` pays only for what it runs. Front ends import these
names from here, never from a module below (tests/test_layers.py holds them to it).
May import: protocol."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .boundary.secrets import (
        SecretPaths as SecretPaths,
    )
    from .boundary.workspace import (
        Workspace as Workspace,
    )
    from .boundary.workspace import (
        WorkspaceUnusable as WorkspaceUnusable,
    )
    from .changes.outcomes import (
        UndoRefused as UndoRefused,
    )
    from .changes.plan import (
        WritePlan as WritePlan,
    )
    from .changes.recovery import (
        recovery_notices as recovery_notices,
    )
    from .changes.undo import (
        undo_last as undo_last,
    )
    from .changes.undo import (
        undoable as undoable,
    )
    from .dialects import (
        recover_interrupted_writes as recover_interrupted_writes,
    )
    from .dialects import (
        unanswered_blocks as unanswered_blocks,
    )
    from .executor import (
        Decider as Decider,
    )
    from .executor import (
        Engine as Engine,
    )
    from .executor import (
        Lookahead as Lookahead,
    )
    from .executor import (
        MessageRun as MessageRun,
    )
    from .executor import (
        approve_all as approve_all,
    )
    from .executor import (
        reject_all as reject_all,
    )
    from .messages.events import (
        AwaitingDecision as AwaitingDecision,
    )
    from .messages.events import (
        BlocksFound as BlocksFound,
    )
    from .messages.events import (
        BlockSpan as BlockSpan,
    )
    from .messages.events import (
        BlockStarted as BlockStarted,
    )
    from .messages.events import (
        CommandOutput as CommandOutput,
    )
    from .messages.events import (
        DuplicateSkipped as DuplicateSkipped,
    )
    from .messages.events import (
        EngineEvent as EngineEvent,
    )
    from .messages.events import (
        ForeignBlock as ForeignBlock,
    )
    from .messages.events import (
        MessageOpened as MessageOpened,
    )
    from .messages.events import (
        Progress as Progress,
    )
    from .messages.events import (
        ResultReady as ResultReady,
    )
    from .messages.interface import (
        Unanswered as Unanswered,
    )
    from .messages.not_approved import (
        holds_back as holds_back,
    )
    from .messages.not_approved import (
        no_person as no_person,
    )
    from .messages.not_approved import (
        runs_a_command as runs_a_command,
    )
    from .messages.outlook import (
        PlannedWrite as PlannedWrite,
    )
    from .messages.outlook import (
        WriteOutlook as WriteOutlook,
    )
    from .ondisk.private import (
        private_folder as private_folder,
    )
    from .ondisk.private import (
        write_private as write_private,
    )
    from .safety.journal import (
        Journal as Journal,
    )
    from .safety.journal import (
        JournalEntry as JournalEntry,
    )
    from .shell.limits import (
        Limits as Limits,
    )
    from .shell.policy import (
        RunGrant as RunGrant,
    )
    from .shell.policy import (
        ShellPolicy as ShellPolicy,
    )
    from .shell.sandbox import (
        find_sandbox as find_sandbox,
    )
    from .state.known import (
        KnownWorkspace as KnownWorkspace,
    )
    from .state.known import (
        enclosing_workspace as enclosing_workspace,
    )
    from .state.known import (
        known_workspaces as known_workspaces,
    )
    from .state.known import (
        recorded_workspace as recorded_workspace,
    )
    from .state.session import (
        Session as Session,
    )
    from .state.session import (
        StateUnusable as StateUnusable,
    )
    from .state.session import (
        check_state_location as check_state_location,
    )
    from .state.session import (
        default_state_dir as default_state_dir,
    )
    from .state.session import (
        message_count as message_count,
    )
    from .state.used_ids import (
        UsedId as UsedId,
    )
    from .state.used_ids import (
        UsedIds as UsedIds,
    )
    from .textops.textfile import (
        split_lines as split_lines,
    )

# name -> the module (below this package) that holds it
_FACE = {
    "SecretPaths": "boundary.secrets",
    "Workspace": "boundary.workspace",
    "WorkspaceUnusable": "boundary.workspace",
    "UndoRefused": "changes.outcomes",
    "WritePlan": "changes.plan",
    "recovery_notices": "changes.recovery",
    "undo_last": "changes.undo",
    "undoable": "changes.undo",
    "recover_interrupted_writes": "dialects",
    "unanswered_blocks": "dialects",
    "Decider": "executor",
    "Engine": "executor",
    "Lookahead": "executor",
    "MessageRun": "executor",
    "approve_all": "executor",
    "reject_all": "executor",
    "AwaitingDecision": "messages.events",
    "CommandOutput": "messages.events",
    "BlockSpan": "messages.events",
    "BlocksFound": "messages.events",
    "BlockStarted": "messages.events",
    "DuplicateSkipped": "messages.events",
    "EngineEvent": "messages.events",
    "ForeignBlock": "messages.events",
    "MessageOpened": "messages.events",
    "Progress": "messages.events",
    "ResultReady": "messages.events",
    "Unanswered": "messages.interface",
    "PlannedWrite": "messages.outlook",
    "WriteOutlook": "messages.outlook",
    "private_folder": "ondisk.private",
    "write_private": "ondisk.private",
    "Journal": "safety.journal",
    "JournalEntry": "safety.journal",
    "Limits": "shell.limits",
    "RunGrant": "shell.policy",
    "ShellPolicy": "shell.policy",
    "find_sandbox": "shell.sandbox",
    "KnownWorkspace": "state.known",
    "enclosing_workspace": "state.known",
    "known_workspaces": "state.known",
    "recorded_workspace": "state.known",
    "Session": "state.session",
    "StateUnusable": "state.session",
    "check_state_location": "state.session",
    "default_state_dir": "state.session",
    "message_count": "state.session",
    "UsedId": "state.used_ids",
    "UsedIds": "state.used_ids",
    "split_lines": "textops.textfile",
    "holds_back": "messages.not_approved",
    "no_person": "messages.not_approved",
    "runs_a_command": "messages.not_approved",
}

__all__ = sorted(_FACE)


def __getattr__(name: str) -> Any:
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next use is a plain module attribute
    return value
