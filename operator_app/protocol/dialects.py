"""The table of dialects: one line per dialect naming the module of its pure half (which holds
`DIALECT`, a protocol/dialect.py `Dialect`), imported on first use. Everything that depends on
which dialect a block or a result is of goes through here: rendering results for the copy-back
text, whether an action writes, why a text holds nothing to run. docs/design.md ("Dialects")
says how a dialect, or a new topic type of String's, joins.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dialect import Dialect
    from .message import MessageScan
    from .results import CommandResult

# name -> the module holding its DIALECT. The first is the default (results of old sessions, which
# recorded no dialect, are OPERATOR_CMD's).
_REGISTERED: dict[str, str] = {
    "operator": "operator_app.protocol.operator_cmd",
    "string": "operator_app.protocol.chanflow.dialect",
}


@cache
def dialect_named(name: str) -> Dialect:
    module = _REGISTERED.get(name)
    if module is None:
        raise KeyError(f"no dialect is registered as {name!r}; known: {', '.join(_REGISTERED)}")
    found: Dialect = importlib.import_module(module).DIALECT
    return found


def all_dialects() -> tuple[Dialect, ...]:
    return tuple(dialect_named(name) for name in _REGISTERED)


def render_results(results: Iterable[CommandResult]) -> str:
    """The copy-back text: every result in its own dialect's form, exactly what
    `operator-app exec` prints and the TUI copies."""
    rendered = [dialect_named(result.dialect).render(result) for result in results]
    return "\n\n".join(rendered) + "\n" if rendered else ""


def action_writes(action: str | None) -> bool:
    """Whether a result's action changes the workspace, in whichever dialect names it."""
    for dialect in all_dialects():
        answer = dialect.writes(action)
        if answer is not None:
            return answer
    return False


def bare_summary(result: CommandResult) -> str:
    """The summary without the marks and codes the table's status column already shows."""
    return dialect_named(result.dialect).bare_summary(result.summary, result.error_code)


def may_hold_blocks(text: str) -> bool:
    """Cheap: whether `text` may hold a block of any dialect (the bridge and the clipboard watch
    ask before anything is scanned)."""
    return any(dialect.opener in text for dialect in all_dialects())


def longest_opener() -> int:
    """How long the longest opener is: text grown by pieces is looked at again this far back
    (less one), so an opener cut between two pieces is still seen."""
    return max(len(dialect.opener) for dialect in all_dialects())


def nothing_to_run(scan: MessageScan, text: str) -> str | None:
    """Why a scanned text holds nothing Operator would run, or None when it holds a block that
    runs (even an invalid one: its error is an answer) or something the scan warns about (a
    block cut by the window)."""
    if scan.warnings or any(block.runs for block in scan.blocks):
        return None
    found = tuple(scan.blocks)
    for dialect in all_dialects():
        why = dialect.own_answers(text, found)
        if why is not None:
            return why
    forms = " or ".join(dialect.block_form for dialect in all_dialects())
    return f"no {forms} block in it, so there is nothing to run"
