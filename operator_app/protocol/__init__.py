"""The pure protocol core: scanning, parsing, command models, results, spec text; no I/O.

This module is the protocol's face: the names front ends (cli, tui, bridge) use, each imported
on first use (PEP 562), so `operator-app exec` pays only for what it runs. Front ends import
these names from here, never from a module below (tests/test_layers.py holds them to it).
May import: nothing else of operator_app."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .blocks import (
        ScanWarning as ScanWarning,
    )
    from .commands import (
        ACTIONS as ACTIONS,
    )
    from .dialect import (
        ActionKind as ActionKind,
    )
    from .dialect import (
        Block as Block,
    )
    from .dialect import (
        Dialect as Dialect,
    )
    from .dialect import (
        Pending as Pending,
    )
    from .dialect import (
        PromptLength as PromptLength,
    )
    from .dialects import (
        action_kind as action_kind,
    )
    from .dialects import (
        action_writes as action_writes,
    )
    from .dialects import (
        all_dialects as all_dialects,
    )
    from .dialects import (
        bare_summary as bare_summary,
    )
    from .dialects import (
        block_forms as block_forms,
    )
    from .dialects import (
        default_name as default_name,
    )
    from .dialects import (
        dialect_named as dialect_named,
    )
    from .dialects import (
        dialect_of_action as dialect_of_action,
    )
    from .dialects import (
        engine_code as engine_code,
    )
    from .dialects import (
        longest_opener as longest_opener,
    )
    from .dialects import (
        may_hold_blocks as may_hold_blocks,
    )
    from .dialects import (
        nothing_to_run as nothing_to_run,
    )
    from .dialects import (
        page_openers as page_openers,
    )
    from .dialects import (
        register as register,
    )
    from .dialects import (
        registered_names as registered_names,
    )
    from .dialects import (
        render_results as render_results,
    )
    from .dialects import (
        unregister as unregister,
    )
    from .escapes import (
        escape_bidi as escape_bidi,
    )
    from .escapes import (
        escape_controls as escape_controls,
    )
    from .escapes import (
        escape_hidden as escape_hidden,
    )
    from .grammar import (
        WINDOW_CHARS as WINDOW_CHARS,
    )
    from .grammar import (
        count_breaks as count_breaks,
    )
    from .grammar import (
        with_lf_breaks as with_lf_breaks,
    )
    from .growing_scan import (
        GrowingScan as GrowingScan,
    )
    from .message import (
        MessageScan as MessageScan,
    )
    from .message import (
        MessageScanner as MessageScanner,
    )
    from .message import (
        scan_whole as scan_whole,
    )
    from .message import (
        windowed_scanner as windowed_scanner,
    )
    from .outcomes import (
        ChangeOutcome as ChangeOutcome,
    )
    from .outcomes import (
        Outcome as Outcome,
    )
    from .outcomes import (
        ReadOutcome as ReadOutcome,
    )
    from .outcomes import (
        RunOutcome as RunOutcome,
    )
    from .outcomes import (
        WalkOutcome as WalkOutcome,
    )
    from .results import (
        CommandResult as CommandResult,
    )
    from .results import (
        Status as Status,
    )
    from .results import (
        count as count,
    )
    from .results import (
        encodable as encodable,
    )
    from .results import (
        one_line as one_line,
    )
    from .spec import (
        full_prompt as full_prompt,
    )
    from .spec import (
        interface_text as interface_text,
    )
    from .spec import (
        render_brief as render_brief,
    )

# name -> the module (of this package) that holds it
_FACE = {
    "ScanWarning": "blocks",
    "ACTIONS": "commands",
    "ActionKind": "dialect",
    "Block": "dialect",
    "Dialect": "dialect",
    "Pending": "dialect",
    "PromptLength": "dialect",
    "action_writes": "dialects",
    "action_kind": "dialects",
    "block_forms": "dialects",
    "default_name": "dialects",
    "dialect_of_action": "dialects",
    "engine_code": "dialects",
    "page_openers": "dialects",
    "register": "dialects",
    "unregister": "dialects",
    "registered_names": "dialects",
    "all_dialects": "dialects",
    "bare_summary": "dialects",
    "dialect_named": "dialects",
    "longest_opener": "dialects",
    "may_hold_blocks": "dialects",
    "nothing_to_run": "dialects",
    "render_results": "dialects",
    "escape_bidi": "escapes",
    "escape_controls": "escapes",
    "escape_hidden": "escapes",
    "WINDOW_CHARS": "grammar",
    "count_breaks": "grammar",
    "with_lf_breaks": "grammar",
    "GrowingScan": "growing_scan",
    "MessageScan": "message",
    "MessageScanner": "message",
    "scan_whole": "message",
    "windowed_scanner": "message",
    "ChangeOutcome": "outcomes",
    "Outcome": "outcomes",
    "ReadOutcome": "outcomes",
    "RunOutcome": "outcomes",
    "WalkOutcome": "outcomes",
    "CommandResult": "results",
    "Status": "results",
    "count": "results",
    "encodable": "results",
    "one_line": "results",
    "full_prompt": "spec",
    "interface_text": "spec",
    "render_brief": "spec",
}

__all__ = sorted(_FACE)


def __getattr__(name: str) -> Any:
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next use is a plain module attribute
    return value
