"""The engine both front ends drive: message text in, one result per command out, in message
order. Reads run at once; a write is planned, shown to `decide`, and committed only when it says
yes, holding back the commands after it. Every result is recorded in the session before it is
handed back or announced (ResultReady), and no exception escapes past a command.

The session lock is held while a message is worked on, and let go of while a write waits for the
person's answer (Session.waiting_for_person). Read results are recorded in batches: staged as
they come, appended together before anything is shown, before a write, and when a long read
starts reporting progress; a write's result is recorded durably on its own.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..protocol.blocks import PendingBlock, RawBlock, ScanWarning, layout_note
from ..protocol.chanflow.blocks import ChanBlock, PendingChanBlock
from ..protocol.chanflow.grammar import SIGIL
from ..protocol.commands.validation import validate_fields
from ..protocol.errors import ErrorCode, OperatorError
from ..protocol.grammar import WINDOW_CHARS
from ..protocol.message import MessageEvent, MessageScanner, scan_whole, windowed_scanner
from ..protocol.parser import parse_fields
from ..protocol.results import (
    CommandResult,
    Status,
    failed,
    invalid_summary,
    operator_error,
    repeated,
)
from .failed_writes import FailedWrites
from .state.session import Session, StateUnusable, check_state_location
from .unattended import HeldBack, holds_back, no_person, not_approved

if TYPE_CHECKING:
    from ..protocol.commands.base import Command
    from .boundary.workspace import Workspace
    from .chanflow.run import ChanFlowRunner
    from .changes.plan import WritePlan

Decider = Callable[["WritePlan"], bool]


@dataclass(frozen=True)
class MessageOpened:
    number: int
    source: str


@dataclass(frozen=True)
class BlockStarted:
    line: int
    command_id: str | None
    action: str | None
    path: str | None


@dataclass(frozen=True)
class AwaitingDecision:
    plan: WritePlan


@dataclass(frozen=True)
class ResultReady:
    result: CommandResult


@dataclass(frozen=True)
class DuplicateSkipped:
    command_id: str
    earlier: CommandResult
    earlier_message: int
    line: int | None = None


@dataclass(frozen=True)
class ForeignBlock:
    """A ChanFlow block of another channel (<𝒞=slack:...>): not for Operator, no response."""

    line: int
    channel: str


@dataclass(frozen=True)
class Progress:
    command_id: str
    text: str


EngineEvent = (
    ForeignBlock
    | MessageOpened
    | BlockStarted
    | AwaitingDecision
    | ResultReady
    | DuplicateSkipped
    | Progress
)
Listener = Callable[[EngineEvent], None]


def reject_all(plan: WritePlan) -> bool:
    return False


def approve_all(plan: WritePlan) -> bool:
    return True


@dataclass
class MessageRun:
    """One message being processed; `results` grows as commands finish."""

    engine: Engine
    number: int
    results: list[CommandResult] = field(default_factory=list)
    duplicates: list[DuplicateSkipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    blocks_seen: int = 0
    ended: bool = False
    _scanner: MessageScanner | None = None
    _errors_emitted: int = 0
    _failed_writes: FailedWrites | None = None  # made at the first write that did not apply
    _held: HeldBack | None = None  # the rest of the message waits with a write no one was asked
    _streamed_chars: int = 0
    _window_start: int = 0  # what a stream opened on beyond the window was not scanned
    # staged in the session, not announced yet
    _unshown: list[CommandResult] = field(default_factory=list)

    @property
    def pending(self) -> PendingBlock | PendingChanBlock | None:
        return self._scanner.pending if self._scanner is not None else None

    def feed(self, chunk: str) -> list[CommandResult]:
        assert self._scanner is not None, "feed() is for streamed messages"
        self.engine.session.append_message_text(self.number, chunk)
        events: list[MessageEvent] = []
        if not self._streamed_chars and len(chunk) > WINDOW_CHARS:
            # What is already there when a stream opens (a followed file that was written before)
            # is a whole message so far: only its window is scanned, as for a paste.
            self._scanner, start, cut = windowed_scanner(chunk)
            events += [cut] if cut is not None else []
            self._streamed_chars, self._window_start, chunk = start, start, chunk[start:]
        self._streamed_chars += len(chunk)
        return self._handle(events + self._scanner.feed(chunk))

    def end(self) -> list[CommandResult]:
        new = self._handle(self._scanner.end()) if self._scanner is not None else []
        if self._streamed_chars - self._window_start > WINDOW_CHARS and not self.ended:
            # A streamed block runs at its END marker, before anyone can know how long the message
            # will grow, so the window a whole message is scanned in cannot be applied afterwards.
            self.warnings.append(
                f"the streamed message grew to {self._streamed_chars} characters, more than the "
                f"last {WINDOW_CHARS} a whole message is scanned in; its blocks ran as they arrived"
            )
        self._flush()
        if not self.ended:
            self.ended = True
            self.engine.session.end_message(self.number, self.warnings)
        return new

    def _handle(self, events: list[MessageEvent]) -> list[CommandResult]:
        start = len(self.results)
        for event in events:
            if isinstance(event, ScanWarning):
                self.warnings.append(f"line {event.line}: {event.message}")
            elif isinstance(event, ChanBlock):
                self._chan_block(event)
            else:
                self._block(event)
        self._flush()
        return self.results[start:]

    # --- one block -------------------------------------------------------------------------

    def _block(self, block: RawBlock) -> None:
        self.blocks_seen += 1
        engine = self.engine
        try:
            command, ignored = validate_fields(parse_fields(block))
        except Exception as exc:
            if not isinstance(exc, OperatorError):
                exc = OperatorError(
                    ErrorCode.ERR_INTERNAL,
                    (
                        "Operator failed while validating this block "
                        f"({type(exc).__name__}: {exc}); tell the person"
                    ),
                    _traceback(),
                )
            engine.notify(BlockStarted(block.start_line, block.id_hint, None, None))
            result = _noted(block, self._invalid(block, exc))
            self._failures().note_block(block, result)
            self._add(result, content_key=None)
            return
        engine.notify(
            BlockStarted(block.start_line, command.id, command.action, command.path_or_none)
        )
        used = engine.session.used_ids().get(command.id)
        if used is not None:
            if used.content_key == block.content_key:
                skipped = DuplicateSkipped(command.id, used.result, used.message, block.start_line)
                self.duplicates.append(skipped)
                engine.notify(skipped)
                # Not run again (the spec's rule), but answered: with no result, rule 15 tells the
                # model it never ran, and a resend under a new id would apply it twice.
                answer = repeated(used.result, used.message, block.start_line, current=self.number)
                if command.WRITES and not answer.ok:
                    self._failures().note(command, answer)
                self._add(answer, content_key=None)
                return
            error = OperatorError(
                ErrorCode.ERR_DUPLICATE_ID,
                (
                    f"id {command.id} was already used in this session (message "
                    f"{used.message}) for a different command; nothing was run; "
                    f"send it again with a new id such as {command.id}-2"
                ),
            )
            result = failed(
                command.id,
                error,
                action=command.action,
                path=command.path_or_none,
                status="invalid",
                summary=invalid_summary(error),
                line=block.start_line,
            )
            if command.WRITES:
                self._failures().note(command, result)
            self._add(_noted(block, result), content_key=None)
            return

        def before_commit(plan: WritePlan) -> None:
            engine.session.record_intent(
                self.number,
                command.id,
                action=command.action,
                path=plan.target.rel,
                line=block.start_line,
                summary=plan.summary,
                content_key=block.content_key,
            )

        if self._held is not None:  # (engine/unattended.py)
            self._add(_noted(block, self._held.result(command, block.start_line)), content_key=None)
            return
        refused = self._failed_writes.refusal(command) if self._failed_writes else None
        if command.WRITES and refused is not None:
            # Written for the file as an earlier write of this message would have left it.
            result = failed(command.id, refused, action=command.action, path=command.path_or_none)
            self._add(_noted(block, result.with_line(block.start_line)), content_key=None)
            return
        if command.WRITES:
            self._flush()  # what ran before a write is recorded and shown before it is asked about
        result = engine.execute(
            command, before_commit=before_commit, before_progress=self._flush, message=self.number
        ).with_line(block.start_line)
        if ignored:
            # The spec allows additional key: value lines; the model learns which of its own were
            # not acted on without a failed command.
            from ..protocol.commands.extra_fields import ignored_clause

            result = replace(
                result,
                summary=result.summary + ignored_clause(ignored),
                extra={**result.extra, "ignored": list(ignored)},
            )
        result = _noted(block, result)
        if command.WRITES and not result.ok:
            self._failures().note(command, result)
            if holds_back(result):
                self._held = HeldBack(result)
        # A write the person declined, or one refused because the file changed under it, changed
        # nothing: like an invalid block it leaves its id free, so the same command can be sent
        # (or the same message run with --approve all) again instead of being skipped as a repeat.
        burns_id = result.status not in ("rejected", "conflict")
        self._add(
            result, content_key=block.content_key if burns_id else None, durable=command.WRITES
        )

    def _chan_block(self, block: ChanBlock) -> None:
        """A String block: answered in its own form by engine/chanflow, recorded like any other."""
        self.blocks_seen += 1
        line = block.start_line
        if not block.for_operator:
            self.warnings.append(
                f"line {line}: a <{SIGIL}={block.channel}:...> block is for another channel; "
                "Operator does not answer it"
            )
            self.engine.notify(ForeignBlock(line, block.channel))
            return
        if block.is_response:
            attribute = block.attributes.split("=")[0]
            self.warnings.append(
                f"line {line}: a String response (its tag carries {attribute}=) is Operator's "
                "own answer, pasted back; it was not run"
            )
            return
        from ..protocol.chanflow.commands import BY_NAME
        from .chanflow.run import CONTENT_KEY_PREFIX, ChanFlowRunner, request_id, request_line

        first = request_line(block.payload)
        name = first[1:].split(" ", 1)[0] if first.startswith("/") else ""
        rid, earlier = request_id(block.key, self.engine.session.used_ids())
        self.engine.notify(BlockStarted(line, rid, first.split(" ", 1)[0] or None, None))
        spec = BY_NAME.get(name)
        held = self._held.string_result(block, rid, repeat=bool(earlier)) if self._held else None
        if held is not None:  # (engine/unattended.py)
            self._add(held, content_key=None)
            return
        if spec is not None and spec.writes:
            self._flush()  # what ran before a write is recorded and shown before it is asked about
        content_key = CONTENT_KEY_PREFIX + block.key

        def record_intent(
            rid: str, action: str, rel: str, summary: str, extra: dict[str, object]
        ) -> None:
            self.engine.session.record_intent(
                self.number,
                rid,
                action=action,
                path=rel,
                line=line,
                summary=summary,
                content_key=content_key,
                extra={"dialect": "string", **extra},
            )

        if self.engine.chanflow is None:
            self.engine.chanflow = ChanFlowRunner(self.engine)
        answer = self.engine.chanflow.answer(
            block, message=self.number, record_intent=record_intent
        )
        if holds_back(answer.result):
            self._held = HeldBack(answer.result)
        self._add(answer.result, content_key=answer.content_key, durable=answer.durable)

    def _failures(self) -> FailedWrites:
        if self._failed_writes is None:
            self._failed_writes = FailedWrites(self.engine.workspace)
        return self._failed_writes

    def _invalid(self, block: RawBlock, error: OperatorError) -> CommandResult:
        if block.id_hint:
            return CommandResult(
                id=block.id_hint,
                ok=False,
                summary=invalid_summary(error),
                details=error.context,
                error_code=error.code.value,
                status="invalid",
                line=block.start_line,
            )
        self._errors_emitted += 1
        generated = f"operator-error-{self.number}-{self._errors_emitted}"
        return operator_error(generated, error, related_id=None, line=block.start_line)

    def _add(
        self, result: CommandResult, *, content_key: str | None, durable: bool = False
    ) -> None:
        # Recorded before anyone sees it: if the app dies now, `operator-app results` still has it.
        if not durable:
            self.engine.session.stage_result(self.number, result, content_key)
            self._unshown.append(result)
            return
        self._flush()
        self.engine.session.record_result(self.number, result, content_key, durable=True)
        self._announce([result])

    def _flush(self) -> None:
        """Append the staged read results to the session, then hand them out."""
        if self._unshown:
            self.engine.session.flush_results()
            unshown, self._unshown = self._unshown, []
            self._announce(unshown)

    def _announce(self, results: list[CommandResult]) -> None:
        self.results += results
        for result in results:
            self.engine.notify(ResultReady(result))


class Engine:
    def __init__(
        self,
        workspace: Workspace,
        session: Session,
        *,
        decide: Decider = reject_all,
        listener: Listener | None = None,
    ) -> None:
        # Whatever built the session: a state folder the model can reach is never used.
        check_state_location(workspace.root, session.state_dir)
        self.workspace = workspace
        self.session = session
        self.decide = decide
        self.listener = listener
        self.chanflow: ChanFlowRunner | None = None  # made when a String block first comes

    def notify(self, event: EngineEvent) -> None:
        if self.listener is not None:
            self.listener(event)

    def recover(self) -> list[str]:
        """Record the results of writes an earlier run died in the middle of (changes/recovery.py),
        and say which messages they completed. Call with the session lock held; cheap when there are
        none."""
        if not self.session.unresolved_intents():
            return []
        from .changes.recovery import recover_interrupted_writes, recovery_notices

        return recovery_notices(recover_interrupted_writes(self.workspace, self.session))

    def run_text(self, text: str, *, source: str = "paste") -> MessageRun:
        """A whole message: scanned within the spec's window, every block processed, ended."""
        with self.session.lock():
            notices = self.recover()
            run = MessageRun(self, self.session.start_message(source=source, text=text))
            run.warnings += notices
            self.notify(MessageOpened(run.number, source))
            scan = scan_whole(text)
            for warning in scan.warnings:
                run.warnings.append(f"line {warning.line}: {warning.message}")
            for block in scan.blocks:
                if isinstance(block, ChanBlock):
                    run._chan_block(block)
                else:
                    run._block(block)
            run.end()
        return run

    def open_stream(self, *, source: str = "stream") -> MessageRun:
        """A message arriving in pieces: blocks run as their END marker arrives. Call with the
        session lock held (the caller holds it per chunk)."""
        notices = self.recover()
        run = MessageRun(self, self.session.start_message(source=source, text=""))
        run.warnings += notices
        run._scanner = MessageScanner()
        self.notify(MessageOpened(run.number, source))
        return run

    def execute(
        self,
        command: Command,
        *,
        before_commit: Callable[[WritePlan], None] | None = None,
        before_progress: Callable[[], None] | None = None,
        message: int = 0,
        accept_plan: Callable[[WritePlan], OperatorError | None] | None = None,
        action_label: str | None = None,
    ) -> CommandResult:
        """Run one command of message `message`; `before_commit` is called once a write is
        approved, just before it is committed (MessageRun records the intent there),
        `before_progress` before a long read reports how far it got, and `accept_plan` with a
        write's plan before anyone is asked about it (an error it returns is the result: a String
        change refuses a plan made from other bytes than the ones it read). `action_label`: what
        the plan (the consent dialog, the journal) calls the action instead of its own name, as
        "/append" for the String command a write was mapped from."""
        try:
            if command.WRITES:
                return self._write(command, before_commit, message, accept_plan, action_label)
            from .reads.context import ReadContext
            from .reads.handlers import READ_HANDLERS

            def progress(text: str) -> None:
                if before_progress is not None:
                    before_progress()
                self.notify(Progress(command.id, text))

            return READ_HANDLERS[command.action](command, ReadContext(self.workspace, progress))
        except OperatorError as exc:
            return failed(command.id, exc, action=command.action, path=command.path_or_none)
        except StateUnusable:
            # the session could not be taken back after a consent: nothing more can be recorded
            raise
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM):
                error = OperatorError(
                    ErrorCode.ERR_PERMISSION_DENIED,
                    (
                        f"{command.action} on {command.path_or_none} was refused "
                        f"by the operating system ({exc.strerror}); nothing was "
                        "changed; ask the person to check the permissions"
                    ),
                )
            else:
                error = OperatorError(
                    ErrorCode.ERR_IO,
                    f"{command.action} failed: {exc.strerror or exc}; nothing was changed",
                )
            return failed(command.id, error, action=command.action, path=command.path_or_none)
        except Exception as exc:
            error = OperatorError(
                ErrorCode.ERR_INTERNAL,
                (
                    f"Operator failed on this command ({type(exc).__name__}: "
                    f"{exc}); nothing was changed; tell the person"
                ),
                _traceback(),
            )
            return failed(command.id, error, action=command.action, path=command.path_or_none)

    @property
    def nobody_to_ask(self) -> bool:
        """No person can answer for a write in this run: it is not applied (ERR_NOT_APPROVED)."""
        return self.decide is no_person

    def consent(self, plan: WritePlan, message: int) -> bool:
        """Ask the person about `plan` (AwaitingDecision first); the session is let go of while
        they think."""
        self.notify(AwaitingDecision(plan))
        if self.decide in (approve_all, reject_all, no_person):  # answered at once: no one waits
            return self.decide(plan)
        with self.session.waiting_for_person(
            message, plan.command_id, plan.action, plan.target.rel
        ):
            return self.decide(plan)

    def _write(
        self,
        command: Command,
        before_commit: Callable[[WritePlan], None] | None,
        message: int,
        accept_plan: Callable[[WritePlan], OperatorError | None] | None,
        action_label: str | None = None,
    ) -> CommandResult:
        from .changes.write import commit, plan_write

        plan = plan_write(command, self.workspace)
        if action_label is not None:
            plan = replace(plan, action=action_label)
        refused = accept_plan(plan) if accept_plan is not None else None
        if refused is not None:
            status: Status = "conflict" if refused.code is ErrorCode.ERR_CONFLICT else "failed"
            return failed(
                command.id, refused, action=command.action, path=plan.target.rel, status=status
            )
        done = CommandResult(
            id=command.id,
            ok=True,
            summary=plan.summary,
            action=command.action,
            path=plan.target.rel,
            diff=plan.diff or None,
            extra=plan.counts(),
        )
        if plan.kind == "noop":  # nothing to consent to
            return done
        if not self.consent(plan, message):
            error = (
                not_approved(command.action, plan.target.rel)
                if self.nobody_to_ask
                else OperatorError(
                    ErrorCode.ERR_REJECTED,
                    (
                        f"the person declined {command.action} on {plan.target.rel}; nothing "
                        "changed; ask them what they want before trying again"
                    ),
                )
            )
            return replace(
                done, ok=False, summary=str(error), error_code=error.code.value, status="rejected"
            )
        if before_commit is not None:
            before_commit(plan)
        try:
            outcome = commit(plan, self.workspace, self.session.state_dir)
        except OperatorError as exc:
            status = "conflict" if exc.code is ErrorCode.ERR_CONFLICT else "failed"
            return replace(
                done,
                ok=False,
                summary=str(exc),
                details=exc.context,
                error_code=exc.code.value,
                status=status,
            )
        return replace(done, summary=outcome.summary)


def _noted(block: RawBlock, result: CommandResult) -> CommandResult:
    """`result` with the clause saying its block was indented or fenced, when it was."""
    note = layout_note(block)
    return replace(result, summary=result.summary + note) if note else result


def _traceback() -> str:
    import traceback  # only on an internal failure: not on every start

    return traceback.format_exc(limit=5)
