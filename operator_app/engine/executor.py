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
import threading
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field
from msgspec.structs import replace

from ..protocol.blocks import ScanWarning
from ..protocol.errors import ErrorCode, OperatorError
from ..protocol.grammar import WINDOW_CHARS
from ..protocol.message import MessageScan, MessageScanner, scan_whole, windowed_scanner
from ..protocol.outcomes import ChangeOutcome, RunOutcome, undo_cut
from ..protocol.results import CommandResult, Status, failed
from .boundary.secrets import OPERATORS_OWN, SecretPaths
from .dialects import engine_half
from .messages.events import (
    AwaitingDecision,
    BlocksFound,
    BlockStarted,
    DuplicateSkipped,
    EngineEvent,
    ForeignBlock,
    Listener,
    MessageOpened,
    Progress,
    ResultReady,
)
from .messages.not_approved import held_back_by, holds_back, no_person, not_approved
from .messages.outlook import ALONE, PlannedWrite, WriteOutlook, outlook_of
from .shell.policy import Answer, ShellPolicy
from .state.internal_failure import internal_message, without_machine_paths
from .state.session import Session, StateUnusable, check_state_location

if TYPE_CHECKING:
    from ..protocol.commands.base import Command, CommandKind
    from ..protocol.dialect import Block, Pending
    from ..protocol.growing_scan import GrowingScan
    from .boundary.workspace import Workspace
    from .changes.apply import Applied
    from .changes.plan import WritePlan
    from .messages.interface import BlockRunner
    from .messages.lines import MessageLines

__all__ = [
    "AwaitingDecision",
    "BlockStarted",
    "Decider",
    "DuplicateSkipped",
    "Engine",
    "EngineEvent",
    "ForeignBlock",
    "Listener",
    "MessageOpened",
    "MessageRun",
    "Progress",
    "ResultReady",
    "approve_all",
    "reject_all",
]

# Asked about each write: the plan (what the person approves) and the write's outlook (which
# write of its message it is, and what else the message writes); True applies it. A command to
# run (a plan of kind "run") may be answered with a RunGrant (engine/shell/policy.py): a yes that
# also lets it use the network.
Decider = Callable[["WritePlan", WriteOutlook], Answer]
# What a streamed message's source already holds beyond what was fed: (text still to come,
# whether more may follow). The bridge knows; a followed file does not say.
Lookahead = Callable[[], tuple[str, bool]]


def reject_all(plan: WritePlan, outlook: WriteOutlook) -> bool:
    return False


def approve_all(plan: WritePlan, outlook: WriteOutlook) -> bool:
    return True


class MessageRun(Struct):
    """One message being processed; `results` grows as commands finish. It is the context every
    dialect's runner works through (engine/messages/interface.py `MessageContext`): it hands each
    block to its dialect, records results before announcing them, and answers what the message
    will write when a write waits."""

    engine: Engine
    number: int
    results: list[CommandResult] = field(default_factory=list)
    duplicates: list[DuplicateSkipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    blocks_seen: int = 0
    ended: bool = False
    lookahead: Lookahead | None = None  # a stream whose source knows what comes next
    # What delivers the message's text, when more than one delivery can be one message (the
    # bridge's page message, sent again as it grows): see `origin_key`.
    origin: str | None = None
    # What this message's writes did to each file's lines (docs/design.md, "the line-number
    # rule"): recorded by `execute`, asked by each dialect before a line-addressed edit.
    _lines: MessageLines | None = None  # made when first asked: a message of reads never needs it
    _scanner: MessageScanner | None = None
    _streamed_chars: int = 0
    _window_start: int = 0  # what a stream opened on beyond the window was not scanned
    _fed: list[str] = field(default_factory=list)  # a stream's text so far
    # The message's blocks as scanned so far, in order, and the one being run.
    _blocks: list[Block] = field(default_factory=list)
    _at: int = -1
    _runners: dict[str, BlockRunner] = field(default_factory=dict)  # one per dialect met
    _planned: dict[int, PlannedWrite | None] = field(default_factory=dict)  # by block index
    # What a waiting write's dialog sees of the text its source holds beyond what was fed: one
    # scan that goes on with each look (the dialog looks again while the message arrives, from
    # the UI's thread; the lock keeps two looks from feeding it at once).
    _ahead: GrowingScan | None = None
    _ahead_lock: threading.Lock = field(default_factory=threading.Lock)
    # Why the rest of the message is not run: a write before it waits for an approval no person
    # can give in this run (engine/messages/not_approved.py).
    held_back: str | None = None
    # staged in the session, not announced yet
    _unshown: list[CommandResult] = field(default_factory=list)

    @property
    def lines(self) -> MessageLines:
        """What this message's writes did to each file's lines (docs/design.md, "the
        line-number rule"), made when first asked: a message of reads never needs it."""
        if self._lines is None:
            from .messages.lines import MessageLines

            self._lines = MessageLines()
        return self._lines

    @property
    def origin_key(self) -> str:
        """What this message's blocks are known by besides their place in it (docs/design.md,
        "the repeat rule"): every delivery of one page message shares it, any other message has
        its own."""
        return self.origin or f"message {self.number}"

    @property
    def unattended(self) -> bool:
        """Writes are approved without anyone being asked (exec --approve all)."""
        return self.engine.decide is approve_all

    @property
    def pending(self) -> Pending | None:
        return self._scanner.pending if self._scanner is not None else None

    # --- input ----------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[CommandResult]:
        assert self._scanner is not None, "feed() is for streamed messages"
        self.engine.session.append_message_text(self.number, chunk)
        self._fed.append(chunk)
        events: list[Block | ScanWarning] = []
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
        self.settle()
        if not self.ended:
            self.ended = True
            for runner in self._runners.values():
                runner.end()
            self.engine.session.end_message(self.number, self.warnings)
        return new

    def _run_scan(self, scan: MessageScan) -> None:
        for warning in scan.warnings:
            self.warnings.append(f"line {warning.line}: {warning.message}")
        self._blocks = list(scan.blocks)
        self._found(scan.blocks)
        for index in range(len(self._blocks)):
            self._run_block(index)

    def _handle(self, events: list[Any]) -> list[CommandResult]:
        start = len(self.results)
        first = len(self._blocks)
        for event in events:
            if isinstance(event, ScanWarning):
                self.warnings.append(f"line {event.line}: {event.message}")
            else:
                self._blocks.append(event)
        self._found(event for event in events if not isinstance(event, ScanWarning))
        for index in range(first, len(self._blocks)):
            self._run_block(index)
        self._flush()
        self.settle()  # the caller lets go of the session after a chunk
        return self.results[start:]

    def _found(self, blocks: Iterable[Block]) -> None:
        """Say where the blocks just scanned stand, before they run (BlocksFound): a front end
        marks them from this scan, never scanning the text again."""
        found = BlocksFound.of(blocks)
        if found.spans:
            self.engine.notify(found)

    def _run_block(self, index: int) -> None:
        block = self._blocks[index]
        self.blocks_seen += 1
        self._at = index
        self.engine.running = self
        try:
            self._runner(block.dialect).run(block)
        finally:
            self.engine.running = None

    def settle(self) -> None:
        """Whatever the runners keep while the message runs is saved: the session is about to be
        let go of (a chunk is done, a write waits for the person, the message ends)."""
        for runner in self._runners.values():
            runner.pause()

    def _runner(self, dialect: str) -> BlockRunner:
        runner = self._runners.get(dialect)
        if runner is None:
            runner = self._runners[dialect] = engine_half(dialect).runner(self)
        return runner

    # --- what a write's dialog is told ---------------------------------------------------

    def outlook(self, plan: WritePlan) -> WriteOutlook:
        """Which write of this message `plan` is, and what else the message writes after it."""
        if self._at < 0:
            return ALONE
        used = self.engine.session.used_ids()
        blocks, at = self._known_blocks()
        planned = [self._planned_write(i, block, used) for i, block in enumerate(blocks)]
        before = [write for write in planned[:at] if write is not None]
        after = [write for write in planned[at + 1 :] if write is not None]
        open_ended = self._scanner is not None and not self.ended
        if open_ended and self.lookahead is not None:
            open_ended = self.lookahead()[1]
        seen = outlook_of(
            plan.command_id, before, after, message=self.number, used=used, open_ended=open_ended
        )
        # A dialog open while the message arrives asks again (the engine's thread waits for its
        # answer meanwhile, so nothing but the source's lookahead changes under it).
        return replace(seen, now=partial(self.outlook, plan)) if open_ended else seen

    def _known_blocks(self) -> tuple[list[Block], int]:
        """The message's blocks as far as they are known, and where the running one stands: those
        scanned, and for a stream whose source holds more already, the blocks of that too."""
        ahead, more = self.lookahead() if self.lookahead is not None else ("", False)
        if not ahead:
            return self._blocks, self._at
        running = self._blocks[self._at]
        with self._ahead_lock:
            if self._ahead is None:
                from ..protocol.growing_scan import GrowingScan

                self._ahead = GrowingScan()
            # The text fed and what the source holds beyond it only ever grow (a page message's
            # rewrite is another message): each look scans what arrived since the last one.
            known = self._ahead.blocks("".join(self._fed) + ahead, ended=not more)
        later = [b for b in known if b.start_line > self._blocks[-1].start_line]
        blocks = self._blocks + later
        return blocks, blocks.index(running)

    def _planned_write(self, index: int, block: Block, used: Any) -> PlannedWrite | None:
        if index < len(self._blocks) and self._blocks[index] is block:
            if index not in self._planned:
                self._planned[index] = self._runner(block.dialect).planned_write(block, used)
            return self._planned[index]
        return self._runner(block.dialect).planned_write(block, used)

    # --- the context a dialect's runner works through -------------------------------------

    @property
    def workspace(self) -> Workspace:
        return self.engine.workspace

    @property
    def session(self) -> Session:
        return self.engine.session

    @property
    def secrets(self) -> SecretPaths:
        return self.engine.secrets

    def execute(
        self,
        command: Command,
        *,
        before_commit: Callable[[WritePlan], None] | None = None,
        accept_plan: Callable[[WritePlan], OperatorError | None] | None = None,
        action_label: str | None = None,
        notes: tuple[str, ...] = (),
        rewrites: bool | None = None,
    ) -> CommandResult:
        result = self.engine.execute(
            command,
            before_commit=before_commit,
            before_progress=self._flush,
            message=self.number,
            accept_plan=accept_plan,
            action_label=action_label,
            notes=notes,
            rewrites=rewrites,
        )
        outcome = result.outcome
        # What the message's writes did to each file's lines, read from their records.
        if isinstance(outcome, RunOutcome):
            self.lines.ran(outcome, result.id)
        elif isinstance(outcome, ChangeOutcome) and result.ok:
            self.lines.committed(outcome, result.id)
        return result

    def consent(self, plan: WritePlan) -> bool:
        return self.engine.consent(plan, self.number)

    @property
    def nobody_to_ask(self) -> bool:
        return self.engine.nobody_to_ask

    def notify(self, event: EngineEvent) -> None:
        if isinstance(event, DuplicateSkipped):
            self.duplicates.append(event)
        self.engine.notify(event)

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def record_intent(
        self,
        command_id: str,
        *,
        action: str,
        path: str,
        line: int,
        summary: str,
        content_key: str | None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        dialect = self._blocks[self._at].dialect if self._at >= 0 else "operator"
        self.engine.session.record_intent(
            self.number,
            command_id,
            action=action,
            path=path,
            line=line,
            summary=summary,
            content_key=content_key,
            extra={"dialect": dialect, **(extra or {})},
        )

    def add(self, result: CommandResult, *, content_key: str | None, durable: bool = False) -> None:
        # Recorded before anyone sees it: if the app dies now, `operator-app results` still has it.
        result = self.engine.told_to_model(result)
        if self.held_back is None and holds_back(result):
            self.held_back = held_back_by(result)
        cut = undo_cut(result.outcome)
        if cut is not None:  # the person hears it too (journal_budget.py)
            self.warnings.append(f"line {result.line}: {cut}")
        if not durable:
            self.engine.session.stage_result(self.number, result, content_key)
            self._unshown.append(result)
            return
        self._flush()
        self.engine.session.record_result(self.number, result, content_key, durable=True)
        self._announce([result])

    def flush(self) -> None:
        self._flush()

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
        shell: ShellPolicy | None = None,
        secrets: SecretPaths = OPERATORS_OWN,
    ) -> None:
        """`secrets`: the paths whose content a read hands over only after the person's yes."""
        # Whatever built the session: a state folder the model can reach is never used.
        check_state_location(workspace.root, session.state_dir)
        self.workspace = workspace
        self.session = session
        self.decide = decide
        self.listener = listener
        self.shell = shell or ShellPolicy()  # what the person decided about commands ahead
        self.secrets = secrets
        self.running: MessageRun | None = None  # the message whose block is being run

    def told_to_model(self, result: CommandResult) -> CommandResult:
        """A failed result without the absolute paths of this machine (internal_failure.py)."""
        if result.ok:
            return result
        clean = partial(
            without_machine_paths, workspace=self.workspace.root, state_dir=self.session.state_dir
        )
        details = clean(result.details) if result.details else result.details
        return replace(result, summary=clean(result.summary), details=details)

    def notify(self, event: EngineEvent) -> None:
        if self.listener is not None:
            self.listener(event)

    def recover(self) -> list[str]:
        """Record the results of writes an earlier run died in the middle of (changes/recovery.py),
        and say which messages they completed. Call with the session lock held; cheap when there are
        none."""
        if not self.session.unresolved_intents():
            return []
        from .changes.recovery import recovery_notices
        from .dialects import recover_interrupted_writes

        return recovery_notices(recover_interrupted_writes(self.workspace, self.session))

    def run_text(
        self,
        text: str,
        *,
        source: str = "paste",
        scan: MessageScan | None = None,
        origin: str | None = None,
    ) -> MessageRun:
        """A whole message: scanned within the spec's window (unless `scan` is that scan, made
        already by a front end that looked at it first), every block processed, ended."""
        with self.session.lock():
            notices = self.recover()
            run = MessageRun(
                self, self.session.start_message(source=source, text=text), origin=origin
            )
            run.warnings += notices
            self.notify(MessageOpened(run.number, source))
            run._run_scan(scan if scan is not None else scan_whole(text))
            run.end()
        return run

    def open_stream(
        self,
        *,
        source: str = "stream",
        lookahead: Lookahead | None = None,
        origin: str | None = None,
    ) -> MessageRun:
        """A message arriving in pieces: blocks run as their END marker arrives. Call with the
        session lock held (the caller holds it per chunk). `lookahead`: what the source holds
        beyond what it fed, which a waiting write's outlook looks into; `origin`: what delivers
        it, when one page message may be delivered again (MessageRun.origin_key)."""
        notices = self.recover()
        run = MessageRun(self, self.session.start_message(source=source, text=""), origin=origin)
        run.warnings += notices
        run.lookahead = lookahead
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
        notes: tuple[str, ...] = (),
        rewrites: bool | None = None,
    ) -> CommandResult:
        """Run one command of message `message`; `before_commit` is called once a write is
        approved, just before it is committed (MessageRun records the intent there),
        `before_progress` before a long read reports how far it got, and `accept_plan` with a
        write's plan before anyone is asked about it (an error it returns is the result: a String
        change refuses a plan made from other bytes than the ones it read). `action_label`: what
        the plan (the consent dialog, the journal) calls the action instead of its own name, as
        "/append" for the String command a write was mapped from. `notes`: what the person must
        read in the write's dialog before anything else (its plan is then asked about on its own:
        "apply the rest" does not approve it). `rewrites`: the write gives the file's whole text
        (None: fs.write does, nothing else), as its record says."""
        call = Execution(
            message=message,
            before_commit=before_commit,
            before_progress=before_progress,
            accept_plan=accept_plan,
            action_label=action_label,
            notes=notes,
            rewrites=rewrites,
        )
        try:
            return _BY_KIND[command.kind](self, command, call)
        except OperatorError as exc:
            return failed(command.id, exc, action=command.action, path=command.path_or_none)
        except StateUnusable:
            # the session could not be taken back after a consent: nothing more can be recorded
            raise
        except OSError as exc:
            error = _os_error(command, exc)
            return failed(command.id, error, action=command.action, path=command.path_or_none)
        except Exception as exc:
            error = OperatorError(
                ErrorCode.ERR_INTERNAL,
                internal_message(exc, self.session.state_dir, f"on {command.action}")
                + "; nothing was changed; tell the person",
            )
            return failed(command.id, error, action=command.action, path=command.path_or_none)

    def _run(self, command: Command, call: Execution) -> CommandResult:
        from .shell.run import run_command

        return run_command(
            self,
            command,
            message=call.message,
            before_commit=call.before_commit,
            action_label=call.action_label,
            notes=call.notes,
        )

    def _read(self, command: Command, call: Execution) -> CommandResult:
        from .changes.secret_read import ask_before_reading
        from .reads.context import ReadContext
        from .reads.handlers import READ_HANDLERS

        def progress(text: str) -> None:
            if call.before_progress is not None:
                call.before_progress()
            self.notify(Progress(command.id, text))

        # Secrets ask first: the person says yes before the model gets such a file's content.
        asked = ask_before_reading(
            self.workspace, self.secrets, self.consent, command, call.message
        )
        if asked is not None and not asked.allowed:
            return asked.unanswered(command) if self.nobody_to_ask else asked.declined(command)
        result = READ_HANDLERS[command.action](
            command, ReadContext(self.workspace, progress, self.secrets)
        )
        return asked.told(result) if asked is not None else result

    @property
    def nobody_to_ask(self) -> bool:
        """No person can answer in this run: a write is not applied, a command not run
        (ERR_NOT_APPROVED, engine/messages/not_approved.py)."""
        return self.decide is no_person

    def consent(self, plan: WritePlan, message: int) -> bool:
        """Ask the person about `plan` (AwaitingDecision first, with what else its message
        writes); the session is let go of while they think."""
        return self.ask(plan, message) is not False

    def ask(self, plan: WritePlan, message: int) -> Answer:
        """`consent`, with the answer as the person gave it (a RunGrant for a command)."""
        if self.running is not None:
            self.running.flush()  # what ran before (reads before a secret read) is shown first
        outlook = self.running.outlook(plan) if self.running is not None else ALONE
        self.notify(AwaitingDecision(plan, outlook))
        if self.decide in (approve_all, reject_all, no_person):  # answered at once: no one waits
            return self.decide(plan, outlook)
        if self.running is not None:
            self.running.settle()  # the session is let go of while the person thinks
        with self.session.waiting_for_person(
            message, plan.command_id, plan.action, plan.target.rel
        ):
            return self.decide(plan, outlook)

    def _write(self, command: Command, call: Execution) -> CommandResult:
        from .changes.apply import apply_plan, change_record

        plan = self._plan(command, call)
        refused = call.accept_plan(plan) if call.accept_plan is not None else None
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
        if plan.kind == "noop":  # nothing to consent to, nothing written
            record = change_record(self.workspace, plan, seq=None, rewrote=_rewrites(command, call))
            return replace(done, outcome=record)
        applied = apply_plan(self, plan, call.message, call.before_commit)
        return self._written(command, plan, done, applied, call)

    def _plan(self, command: Command, call: Execution) -> WritePlan:
        """The write's plan, as the person is asked about it."""
        from .changes.secret_read import note_on_transfer
        from .changes.write import plan_write

        plan = note_on_transfer(plan_write(command, self.workspace), self.secrets)
        if call.action_label is not None:
            plan = replace(plan, action=call.action_label)
        if call.notes:
            plan = replace(plan, notes=call.notes + plan.notes, asked_alone=True)
        return plan

    def _written(
        self,
        command: Command,
        plan: WritePlan,
        done: CommandResult,
        applied: Applied,
        call: Execution,
    ) -> CommandResult:
        """The write's result, from what became of its plan."""
        from .changes.apply import change_record

        if applied.verdict in ("declined", "not_approved"):
            error = (
                not_approved(command.action, plan.target.rel)
                if applied.verdict == "not_approved"
                else OperatorError(
                    ErrorCode.ERR_REJECTED,
                    (
                        f"the person declined {command.action} on {plan.target.rel}; nothing "
                        "changed; ask them what they want before trying again"
                    ),
                )
            )
            return _refused(done, error, "rejected")
        if applied.done is None:
            assert applied.error is not None
            status: Status = "conflict" if applied.verdict == "conflict" else "failed"
            return _refused(done, applied.error, status, details=applied.error.context)
        record = change_record(
            self.workspace,
            plan,
            seq=applied.done.seq,
            rewrote=_rewrites(command, call),
            undo_cut=applied.undo_cut,
            new_sha=applied.done.new_sha,
        )
        cut = f"; {applied.undo_cut}" if applied.undo_cut else ""  # said to the model too
        return replace(done, summary=applied.done.summary + cut, outcome=record)


class Execution(Struct, frozen=True, kw_only=True):
    """How one command is run (Engine.execute's arguments), handed to the handler of its kind."""

    message: int
    before_commit: Callable[[WritePlan], None] | None = None
    before_progress: Callable[[], None] | None = None
    accept_plan: Callable[[WritePlan], OperatorError | None] | None = None
    action_label: str | None = None
    notes: tuple[str, ...] = ()
    rewrites: bool | None = None


# How each kind of command runs (protocol/commands/base.py `Command.kind`): a read at once, a
# write planned, asked about and committed, a command asked about, run, and its changes asked
# about in turn.
_BY_KIND: dict[CommandKind, Callable[[Engine, Command, Execution], CommandResult]] = {
    "read": Engine._read,
    "write": Engine._write,
    "run": Engine._run,
}


def _rewrites(command: Command, call: Execution) -> bool:
    """Whether the write gives the file's whole text (its record's `rewrote`)."""
    return call.rewrites if call.rewrites is not None else command.action == "fs.write"


def _refused(
    done: CommandResult, error: OperatorError, status: Status, *, details: str | None = None
) -> CommandResult:
    return replace(
        done,
        ok=False,
        summary=str(error),
        details=details,
        error_code=error.code.value,
        status=status,
        error_message=error.message,
    )


def _os_error(command: Command, exc: OSError) -> OperatorError:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return OperatorError(
            ErrorCode.ERR_PERMISSION_DENIED,
            (
                f"{command.action} on {command.path_or_none} was refused "
                f"by the operating system ({exc.strerror}); nothing was "
                "changed; ask the person to check the permissions"
            ),
        )
    return OperatorError(
        ErrorCode.ERR_IO,
        f"{command.action} failed: {exc.strerror or type(exc).__name__}; nothing was changed",
    )
