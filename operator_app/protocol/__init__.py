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
        Block as Block,
    )
    from .dialect import (
        Dialect as Dialect,
    )
    from .dialect import (
        Pending as Pending,
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
        dialect_named as dialect_named,
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
        render_results as render_results,
    )
    from .escapes import (
        escape_controls as escape_controls,
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
    "Block": "dialect",
    "Dialect": "dialect",
    "Pending": "dialect",
    "action_writes": "dialects",
    "all_dialects": "dialects",
    "bare_summary": "dialects",
    "dialect_named": "dialects",
    "longest_opener": "dialects",
    "may_hold_blocks": "dialects",
    "nothing_to_run": "dialects",
    "render_results": "dialects",
    "escape_controls": "escapes",
    "WINDOW_CHARS": "grammar",
    "count_breaks": "grammar",
    "with_lf_breaks": "grammar",
    "GrowingScan": "growing_scan",
    "MessageScan": "message",
    "MessageScanner": "message",
    "scan_whole": "message",
    "windowed_scanner": "message",
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
