"""The table of dialects: one line per dialect naming the module of its pure half (which holds
`DIALECT`, a protocol/dialect.py `Dialect`), imported on first use. Everything that depends on
which dialect a block or a result is of goes through here: the readers the message scanner
routes a message to, rendering results for the copy-back text, what an action does, which
engine error a result's code stands for, why a text holds nothing to run. docs/design.md
("Dialects") says how a dialect, or a new topic type of String's, joins.

A dialect Operator does not ship joins without an edit here: `register(name, module)` adds its
line for the running process (and `unregister(name)` takes it away again: a test's toy dialect),
and the environment variable OPERATOR_DIALECTS ("name=module,name=module") adds lines when this
module is first imported, so a process Operator starts (`operator-app exec`) has them too.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dialect import ActionKind, Dialect
    from .message.reader import Opening, Reader
    from .message.window import MessageScan
    from .results import CommandResult

# name -> the module holding its DIALECT. The first is the default (results of old sessions, which
# recorded no dialect, are OPERATOR_CMD's).
_REGISTERED: dict[str, str] = {
    "operator": "operator_app.protocol.operator_cmd",
    "string": "operator_app.protocol.chanflow.dialect",
}
ENVIRONMENT = "OPERATOR_DIALECTS"


def register(name: str, module: str) -> None:
    """Add a dialect to the table: `module` holds its DIALECT (named `name`). Blocks found from
    now on may be of it; a name already registered is refused, so no dialect is replaced."""
    if name in _REGISTERED:
        raise ValueError(f"a dialect is already registered as {name!r}")
    _REGISTERED[name] = module


def unregister(name: str) -> None:
    """Take a dialect registered with `register` out of the table again."""
    if name == default_name():
        raise ValueError(f"{name!r} is the default dialect")
    _REGISTERED.pop(name, None)
    dialect_named.cache_clear()


def _register_from_environment() -> None:
    for entry in os.environ.get(ENVIRONMENT, "").split(","):
        name, _, module = entry.strip().partition("=")
        if name and module and name not in _REGISTERED:
            _REGISTERED[name.strip()] = module.strip()


_register_from_environment()


def registered_names() -> tuple[str, ...]:
    """The dialects' names, the default first (what `operator-app spec --dialect` offers)."""
    return tuple(_REGISTERED)


def default_name() -> str:
    """The dialect of a result recorded without one, and of `p` before any is chosen."""
    return next(iter(_REGISTERED))


@cache
def dialect_named(name: str) -> Dialect:
    module = _REGISTERED.get(name)
    if module is None:
        raise KeyError(f"no dialect is registered as {name!r}; known: {', '.join(_REGISTERED)}")
    found: Dialect = importlib.import_module(module).DIALECT
    return found


def all_dialects() -> tuple[Dialect, ...]:
    return tuple(dialect_named(name) for name in _REGISTERED)


def readers_for(opening: Opening) -> list[Reader]:
    """A reader of every dialect, in the table's order, for a message opening so."""
    return [dialect.reader(opening) for dialect in all_dialects()]


def render_results(results: Iterable[CommandResult]) -> str:
    """The copy-back text: every result in its own dialect's form, exactly what
    `operator-app exec` prints and the TUI copies."""
    rendered = [dialect_named(result.dialect).render(result) for result in results]
    return "\n\n".join(rendered) + "\n" if rendered else ""


def dialect_of_action(action: str | None) -> Dialect | None:
    """The dialect whose action `action` is (as a result or a plan names it)."""
    for dialect in all_dialects():
        if dialect.action_kind(action) is not None:
            return dialect
    return None


def action_kind(action: str | None) -> ActionKind | None:
    """What a result's action does to the workspace, in whichever dialect names it."""
    dialect = dialect_of_action(action)
    return dialect.action_kind(action) if dialect is not None else None


def action_writes(action: str | None) -> bool:
    """Whether a result's action changes the workspace (a write, or a command it runs)."""
    return action_kind(action) in ("write", "run")


def engine_code(result: CommandResult) -> str | None:
    """The engine's error code (an ErrorCode value) a result's code stands for, in whichever
    dialect spells it; None when it has none, or one of its dialect's alone."""
    return dialect_named(result.dialect).engine_code(result.error_code)


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


def page_openers() -> list[dict[str, str | bool]]:
    """What a chat page shows where each dialect's block begins, for the browser extension (the
    bridge's hello says it: docs/bridge-protocol.md)."""
    return [
        {
            "dialect": dialect.name,
            "text": dialect.page_opener,
            "line_start": dialect.opener_starts_line,
        }
        for dialect in all_dialects()
    ]


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
    return f"no {block_forms()} block in it, so there is nothing to run"


def block_forms() -> str:
    """How the blocks of every dialect begin: "OPERATOR_CMD or <𝒞=string:...>"."""
    return " or ".join(dialect.block_form for dialect in all_dialects())
