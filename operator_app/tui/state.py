"""What the TUI knows about each message of the session: its text, its command rows in message
order and their results. Built live from engine events (`MessageState.apply`), or from the session
folder after a restart (`load_history`). No Textual here: the widgets render this state."""

from __future__ import annotations

from msgspec import Struct, field

from ..engine import (
    AwaitingDecision,
    BlocksFound,
    BlockSpan,
    BlockStarted,
    CommandOutput,
    DuplicateSkipped,
    EngineEvent,
    Progress,
    ResultReady,
    Session,
    UsedId,
    UsedIds,
    WritePlan,
    unanswered_blocks,
)
from ..protocol import (
    CommandResult,
    MessageScan,
    action_writes,
    default_name,
    dialect_named,
    scan_whole,
)

WAITING = "waiting for you"
NOT_RUN = "not run"
UNDONE = "undone"  # an applied write whose change was undone since (the journal says so)


class Row(Struct, kw_only=True):
    """One command of a message as the table shows it; built by keyword only (most of its fields
    are optional strings, which a call by position could swap unnoticed)."""

    line: int  # where the block starts in its message; the row's key
    command_id: str | None
    action: str | None = None
    path: str | None = None
    status: str = "running"
    summary: str = ""
    result: CommandResult | None = None
    diff: str | None = None
    earlier_message: int | None = None  # a duplicate: the message whose result it repeats
    undone_at: float | None = None  # when the change this row made was undone
    live: str | None = None  # a command running: its last lines of output so far


class MessageState(Struct):
    number: int
    text: str = ""
    source: str = ""
    rows: dict[int, Row] = field(default_factory=dict)
    # (line, label, what it waits for) of a block still streaming
    pending: tuple[int, str | None, str] | None = None
    finished: bool = False
    interrupted: bool = False  # the app stopped before the message ended (seen after a restart)
    warnings: tuple[str, ...] = ()
    version: int = 0  # bumped on every change, so views redraw only when something changed
    # Where its blocks stand, as the engine's scan found them (BlocksFound), or as the one scan of
    # its text after a restart found them (load_history): the message view marks them from here.
    spans: list[BlockSpan] = field(default_factory=list)

    @property
    def results(self) -> list[CommandResult]:
        """In message order, as the session recorded them (a repeat's is its earlier result,
        marked as such)."""
        return [row.result for row in self.ordered_rows() if row.result is not None]

    def ordered_rows(self) -> list[Row]:
        return [self.rows[line] for line in sorted(self.rows)]

    def errors_by_line(self) -> dict[int, str]:
        return {
            row.line: (
                f"{row.result.error_code}: "
                f"{bare_summary(row.result.summary, row.result, row.result.error_code)}"
            )
            for row in self.rows.values()
            if row.result is not None and row.result.status == "invalid" and row.result.error_code
        }

    def writes_waiting(self) -> bool:
        return any(row.status == WAITING for row in self.rows.values())

    def mark_undone(self, undone: dict[str, float]) -> bool:
        """Show the applied writes among `undone` (command id -> when its change was undone) as
        undone. Ids are unique per session for applied writes, so the id names the change.
        True when a row changed."""
        changed = False
        for row in self.rows.values():
            result = row.result
            when = undone.get(row.command_id or "")
            if (
                when is not None
                and row.status == "ok"
                and result is not None
                and writes(result.action)
            ):
                row.status, row.undone_at = UNDONE, when
                changed = True
        if changed:
            self.version += 1
        return changed

    def duplicates(self) -> int:
        return sum(1 for row in self.rows.values() if row.status == "duplicate")

    def repeated_from(self) -> list[int]:
        """The earlier messages whose commands this one repeated."""
        return sorted(
            {row.earlier_message for row in self.rows.values() if row.earlier_message is not None}
        )

    def fill_missing_rows(self, used: UsedIds, scan: MessageScan | None = None) -> None:
        """After a restart, rows for the blocks that have no stored result: a repeat of a command an
        earlier message ran (a duplicate, as it showed live), or, in a message the app stopped in,
        a block that never ran (the model must treat it as not executed). `scan`: the scan of its
        text, when the caller made it already."""
        for missing in unanswered_blocks(
            self.text, self.number, used, interrupted=self.interrupted, scan=scan
        ):
            if missing.line in self.rows:
                continue
            result = missing.repeat
            if result is None:
                self.rows[missing.line] = Row(
                    line=missing.line,
                    command_id=missing.command_id,
                    status=NOT_RUN,
                    summary="Operator stopped before this ran; paste the message again to run it",
                )
                continue
            self.rows[missing.line] = Row(
                line=missing.line,
                command_id=missing.command_id,
                action=result.action,
                path=result.path,
                status="duplicate",
                summary=result.summary,
                result=result,
                diff=result.diff,
                earlier_message=missing.earlier_message,
            )

    def apply(self, event: EngineEvent) -> None:
        self.version += 1
        if isinstance(event, BlockStarted):
            self._started(event)
        elif isinstance(event, AwaitingDecision):
            self._awaiting(event.plan)
        elif isinstance(event, ResultReady):
            self._result(event.result)
        elif isinstance(event, DuplicateSkipped):
            self._duplicate(event)
        elif isinstance(event, Progress):
            row = self._open_row(event.command_id)
            if row is not None:
                row.summary = event.text
        elif isinstance(event, CommandOutput):
            self._output(event)

    def _started(self, event: BlockStarted) -> None:
        self.rows[event.line] = Row(
            line=event.line,
            command_id=event.command_id,
            action=event.action,
            path=event.path,
            status="running",
        )
        if self.pending is not None and self.pending[0] == event.line:
            self.pending = None

    def _awaiting(self, plan: WritePlan) -> None:
        row = self._open_row(plan.command_id)
        if row is None:
            return
        row.status, row.diff = WAITING, plan.diff
        row.path = plan.target.rel
        row.summary = f"{plan.kind} {plan.where} +{plan.added} -{plan.removed}"
        if plan.run is not None:
            row.summary = f"run {plan.run.first_line} (in {plan.where})?"
        elif plan.changes is not None:
            row.summary = f"apply its changes? {plan.changes.describe()}"

    def _duplicate(self, event: DuplicateSkipped) -> None:
        # Its result (the earlier one, marked as a repeat) follows as a ResultReady.
        line = event.line if event.line is not None else self._next_line()
        self.rows[line] = Row(
            line=line,
            command_id=event.command_id,
            action=event.earlier.action,
            path=event.earlier.path,
            status="duplicate",
            summary=f"already ran in message {event.earlier_message}: {event.earlier.summary}",
            result=None,
            diff=event.earlier.diff,
            earlier_message=event.earlier_message,
        )

    def _output(self, event: CommandOutput) -> None:
        row = self._open_row(event.command_id)
        if row is None:
            return
        row.status = "running"
        row.live = event.text
        lines = f"{event.lines} line{'s' if event.lines != 1 else ''}"
        row.summary = (
            f"ran {event.seconds:.1f} s, {lines} of output"
            if event.done
            else f"running {event.seconds:.1f} s, {lines} of output (x stops it)"
        )

    def found(self, event: BlocksFound) -> None:
        """The engine's scan found more of its blocks."""
        self.spans += event.spans
        self.version += 1

    def grow(self, chunk: str) -> None:
        """A streamed message received more text."""
        self.text += chunk
        self.version += 1

    def set_pending(self, pending: tuple[int, str | None, str] | None) -> None:
        self.version += 1
        for line in [line for line, row in self.rows.items() if row.status == "pending"]:
            del self.rows[line]
        self.pending = pending
        if pending is not None and pending[0] not in self.rows:
            line, label, awaits = pending
            self.rows[line] = Row(
                line=line, command_id=label, status="pending", summary=f"waiting for {awaits}"
            )

    def finish(self, warnings: list[str] | tuple[str, ...]) -> None:
        self.set_pending(None)
        self.finished, self.warnings = True, tuple(warnings)

    def _result(self, result: CommandResult) -> None:
        line = result.line if result.line is not None else self._next_line()
        row = self.rows.setdefault(line, Row(line=line, command_id=result.id))
        row.command_id, row.action = result.id, result.action or row.action
        row.path = result.path or row.path
        row.status, row.summary, row.result = status_of(result), result.summary, result
        row.diff = result.diff or row.diff
        if result.repeat_of is not None:
            row.earlier_message = result.repeat_of

    def _open_row(self, command_id: str) -> Row | None:
        for line in sorted(self.rows, reverse=True):
            row = self.rows[line]
            if row.command_id == command_id and row.result is None:
                return row
        return None

    def _next_line(self) -> int:
        return max(self.rows, default=0) + 1


def writes(action: str | None) -> bool:
    """Whether a row's action changes a file, in whichever dialect names it."""
    return action_writes(action)


def bare_summary(summary: str, result: CommandResult | None, code: str | None) -> str:
    """A summary without what the status column shows beside it anyway: the marks of the
    result's dialect (a String confirmation's "✓ "), and with `code` the error code's prefix."""
    dialect = result.dialect if result is not None else default_name()
    return dialect_named(dialect).bare_summary(summary, code)


def status_of(result: CommandResult) -> str:
    """The row status of a result: "ok", "failed", "invalid", "conflict" or "rejected" (the
    error code is the result's own, and the table shows it with the summary), or "duplicate" for
    the answer to a command that already ran."""
    if result.repeat_of is not None:
        return "duplicate"
    return "ok" if result.ok else result.status


def load_history(session: Session) -> dict[int, MessageState]:
    """Every message of the session with its results, as the session folder has them. Reads the
    whole session: call it from a worker."""
    states: dict[int, MessageState] = {}
    for record in session.messages():
        states[record.number] = MessageState(
            record.number,
            session.message_text(record.number) or "",
            record.source,
            finished=True,
            interrupted=not record.ended,
            warnings=record.warnings,
        )
    used: UsedIds = {}  # what Session.used_ids gives, without a second read
    for stored in session.stored_results():
        if stored.content_key is not None and stored.result.id not in used:
            used[stored.result.id] = UsedId(
                content_key=stored.content_key, message=stored.message, result=stored.result
            )
        state = states.get(stored.message)
        if state is not None:
            state._result(stored.result)
    for state in states.values():
        # One scan of each message, for its missing rows and for the view's marks alike.
        scan = scan_whole(state.text)
        state.spans = list(BlocksFound.of(scan.blocks).spans)
        state.fill_missing_rows(used, scan)
    return states
