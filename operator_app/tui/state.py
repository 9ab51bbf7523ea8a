"""What the TUI knows about each message of the session: its text, its command rows in order and
their results. Built live from engine events, or from the session folder after a restart."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.session import Session
from ..protocol.results import CommandResult


@dataclass
class Row:
    line: int
    command_id: str | None
    action: str | None = None
    path: str | None = None
    status: str = "running"
    summary: str = ""
    result: CommandResult | None = None
    diff: str | None = None


@dataclass
class MessageState:
    number: int
    text: str = ""
    source: str = ""
    rows: dict[int, Row] = field(default_factory=dict)  # block line -> row, in message order
    pending: tuple[int, str | None] | None = None  # (line, id) of a block still streaming
    finished: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def results(self) -> list[CommandResult]:
        return [row.result for row in self.rows.values() if row.result is not None and row.status != "duplicate"]

    def errors_by_line(self) -> dict[int, str]:
        return {row.line: f"{row.result.error_code}: {row.summary}" for row in self.rows.values()
                if row.result is not None and row.result.status == "invalid" and row.result.error_code}


def status_of(result: CommandResult) -> str:
    if result.ok:
        return "ok"
    if result.status == "rejected":
        return "rejected"
    return f"failed {result.error_code}" if result.error_code else "failed"


def load_history(session: Session) -> dict[int, MessageState]:
    """Every message of the session with its results, as the session folder has them."""
    states: dict[int, MessageState] = {}
    for record in session.messages():
        states[record.number] = MessageState(record.number, session.message_text(record.number) or "", record.source,
                                             finished=True, warnings=record.warnings)
    for stored in session.stored_results():
        state = states.get(stored.message)
        if state is None:
            continue
        result = stored.result
        line = result.line if result.line is not None else -len(state.rows) - 1
        state.rows[line] = Row(line, result.id, result.action, result.path, status_of(result), result.summary, result, result.diff)
    return states
