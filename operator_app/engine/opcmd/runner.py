"""OPERATOR_CMD blocks answered (engine/messages/interface.py): each block validated once (the
outlook of a waiting write and the run share it), a repeat of a command the session ran answered
with its earlier result (decision 6), a duplicate id refused, the writes of a failed write's
entries held back (decision 16), everything else run by the engine's `execute`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec.structs import replace

from ...protocol.blocks import RawBlock, layout_note
from ...protocol.commands.validation import validate_fields
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.operator_cmd import invalid_summary, operator_error
from ...protocol.parser import parse_fields
from ...protocol.results import CommandResult, failed, repeated
from ..messages.events import BlockStarted, DuplicateSkipped
from ..messages.interface import DialectEngine, MessageContext, Unanswered
from ..messages.not_approved import RUNS_WHEN
from ..messages.outlook import PlannedWrite, normalised
from ..state.internal_failure import internal_message

if TYPE_CHECKING:
    from ...protocol.commands.base import Command
    from ...protocol.dialect import Block
    from ..changes.outcomes import Landing
    from ..changes.plan import WritePlan
    from ..state.session import WriteIntent
    from ..state.used_ids import UsedId
    from .failed_writes import FailedWrites

Validated = tuple["Command", tuple[str, ...]] | OperatorError


class OperatorCmdRunner:
    def __init__(self, context: MessageContext) -> None:
        self.context = context
        self._failed: FailedWrites | None = None  # made at the first write that did not apply
        self._errors_emitted = 0
        # Blocks validated ahead (a waiting write's outlook) and not yet run, by identity.
        self._validated: dict[int, tuple[RawBlock, Validated]] = {}
        # The ids of this message's valid blocks: what each said, where, and its answer.
        self._seen: dict[str, tuple[str, int, CommandResult]] = {}

    # --- the interface ------------------------------------------------------------------

    def run(self, block: Block) -> None:
        assert isinstance(block, RawBlock)
        checked = self._validate(block, keep=False)
        if isinstance(checked, OperatorError):
            self._refuse_invalid(block, checked)
            return
        command, ignored = checked
        context = self.context
        context.notify(
            BlockStarted(block.start_line, command.id, command.action, command.path_or_none)
        )
        seen = self._seen.get(command.id)
        if seen is not None:
            self._answer_seen(block, command, seen)
            return
        used = context.session.used_ids().get(command.id)
        if used is not None:
            self._answer_used(block, command, used)
            return
        if context.held_back is not None:  # (engine/messages/not_approved.py)
            held = OperatorError(ErrorCode.ERR_NOT_APPROVED, f"{context.held_back}; {RUNS_WHEN}")
            result = failed(command.id, held, action=command.action, path=command.path_or_none)
            context.add(_noted(block, result.with_line(block.start_line)), content_key=None)
            return
        refused = self._failed.refusal(command) if self._failed else None
        if command.WRITES and refused is not None:
            # Written for the file as an earlier write of this message would have left it.
            result = failed(command.id, refused, action=command.action, path=command.path_or_none)
            self._add(block, command, _noted(block, result.with_line(block.start_line)), None)
            return
        moved = None
        if command.WRITES:  # a message of reads never loads what only writes need (start-up)
            from .line_edits import lines_moved

            moved = lines_moved(context, command)
        if moved is not None:
            # Its line numbers no longer name the lines the model read (the line-number rule).
            result = failed(command.id, moved, action=command.action, path=command.path_or_none)
            result = _noted(block, result.with_line(block.start_line))
            self._failures().note(command, result)
            self._add(block, command, result, block.content_key)
            return
        if command.WRITES:
            context.flush()  # what ran before a write is recorded and shown before it is asked
        result = self._execute(block, command).with_line(block.start_line)
        if ignored:
            # The spec allows additional key: value lines; the model learns which of its own were
            # not acted on without a failed command.
            from ...protocol.commands.extra_fields import ignored_clause

            result = replace(
                result,
                summary=result.summary + ignored_clause(ignored),
                extra={**result.extra, "ignored": list(ignored)},
            )
        result = _noted(block, result)
        if command.WRITES and not result.ok:
            self._failures().note(command, result)
        # A write the person declined, or one refused because the file changed under it, changed
        # nothing: like an invalid block it leaves its id free, so the same command can be sent
        # (or the same message run with --approve all) again instead of being skipped as a repeat.
        burns_id = result.status not in ("rejected", "conflict")
        self._add(block, command, result, block.content_key if burns_id else None, command.WRITES)

    def planned_write(self, block: Block, used: Mapping[str, UsedId]) -> PlannedWrite | None:
        assert isinstance(block, RawBlock)
        checked = self._validate(block, keep=True)
        if isinstance(checked, OperatorError) or not checked[0].WRITES:
            return None
        command = checked[0]
        to = command.__dict__.get("path_to")
        if command.RUNS:  # shell.run: where it starts, and what it runs
            script = str(getattr(command, "script", ""))
            lines = [line.strip() for line in script.split("\n") if line.strip()]
            first = (lines[0] if lines else "") + (" ..." if len(lines) > 1 else "")
            cwd = command.__dict__.get("cwd")
            return PlannedWrite(
                block.start_line,
                command.id,
                command.action,
                normalised(cwd if isinstance(cwd, str) else "."),
                command=first,
            )
        return PlannedWrite(
            block.start_line,
            command.id,
            command.action,
            normalised(command.path_or_none or "."),
            normalised(to) if isinstance(to, str) else None,
        )

    def pause(self) -> None:
        pass

    def end(self) -> None:
        self._validated.clear()

    # --- one block ------------------------------------------------------------------------

    def _validate(self, block: RawBlock, *, keep: bool) -> Validated:
        """The block's command and its ignored fields, or the error that makes it invalid;
        worked out once per block (`keep`: it will be asked for again when it runs)."""
        kept = self._validated.pop(id(block), None)
        if kept is not None and kept[0] is block:
            checked = kept[1]
        else:
            try:
                checked = validate_fields(parse_fields(block))
            except OperatorError as error:
                checked = error
            except Exception as exc:
                checked = OperatorError(
                    ErrorCode.ERR_INTERNAL,
                    internal_message(
                        exc, self.context.session.state_dir, "while validating this block"
                    )
                    + "; tell the person",
                )
        if keep:
            self._validated[id(block)] = (block, checked)
        return checked

    def _refuse_invalid(self, block: RawBlock, error: OperatorError) -> None:
        self.context.notify(BlockStarted(block.start_line, block.id_hint, None, None))
        result = _noted(block, self._invalid(block, error))
        self._failures().note_block(block, result)
        self.context.add(result, content_key=None)

    def _answer_used(self, block: RawBlock, command: Command, used: UsedId) -> None:
        """A block whose id the session used: a repeat when its content is the same, else a
        duplicate id."""
        context = self.context
        if used.content_key == block.content_key:
            skipped = DuplicateSkipped(command.id, used.result, used.message, block.start_line)
            context.notify(skipped)
            # Not run again (the spec's rule), but answered: with no result, rule 15 tells the
            # model it never ran, and a resend under a new id would apply it twice.
            answer = repeated(used.result, used.message, block.start_line)
            if command.WRITES and not answer.ok:
                self._failures().note(command, answer)
            self._add(block, command, answer, None)
            return
        self._refuse_duplicate_id(
            block,
            command,
            f"id {command.id} was already used in this session (message {used.message}) for a "
            "different command",
        )

    def _answer_seen(
        self, block: RawBlock, command: Command, seen: tuple[str, int, CommandResult]
    ) -> None:
        """A block whose id an earlier block of this message has. The same content: the
        protocol's duplicate, ignored (that block's result is the only one); else a duplicate id."""
        context = self.context
        key, line, earlier = seen
        if key == block.content_key:
            context.notify(DuplicateSkipped(command.id, earlier, context.number, block.start_line))
            context.warn(
                f"line {block.start_line}: id {command.id} repeats the block at line {line} of "
                "this message with the same content; ignored (that block's result is its one "
                "result)"
            )
            return
        self._refuse_duplicate_id(
            block,
            command,
            f"id {command.id} is used by the block at line {line} of this message for a "
            "different command",
        )

    def _refuse_duplicate_id(self, block: RawBlock, command: Command, why: str) -> None:
        error = OperatorError(
            ErrorCode.ERR_DUPLICATE_ID,
            f"{why}; nothing was run; send it again with a new id such as {command.id}-2",
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
        result = _noted(block, result)
        # The id's first block in this message stays what a later one is compared with.
        self._seen.setdefault(command.id, (block.content_key, block.start_line, result))
        self.context.add(result, content_key=None)

    def _add(
        self,
        block: RawBlock,
        command: Command,
        result: CommandResult,
        content_key: str | None,
        durable: bool = False,
    ) -> None:
        """A valid block's answer, recorded; its id is this message's from now on."""
        self._seen[command.id] = (block.content_key, block.start_line, result)
        self.context.add(result, content_key=content_key, durable=durable)

    def _execute(self, block: RawBlock, command: Command) -> CommandResult:
        context = self.context

        def before_commit(plan: WritePlan) -> None:
            context.record_intent(
                command.id,
                action=command.action,
                path=plan.target.rel,
                line=block.start_line,
                summary=plan.summary,
                content_key=block.content_key,
            )

        return context.execute(command, before_commit=before_commit)

    def _failures(self) -> FailedWrites:
        if self._failed is None:
            from .failed_writes import FailedWrites

            self._failed = FailedWrites(self.context.workspace)
        return self._failed

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
        generated = f"operator-error-{self.context.number}-{self._errors_emitted}"
        return operator_error(generated, error, related_id=None, line=block.start_line)


class OperatorCmdEngine:
    name = "operator"

    def runner(self, context: MessageContext) -> OperatorCmdRunner:
        return OperatorCmdRunner(context)

    def unanswered(
        self, block: Block, used: Mapping[str, UsedId], number: int, interrupted: bool
    ) -> Unanswered | None:
        assert isinstance(block, RawBlock)
        earlier = used.get(block.id_hint or "")
        if (
            earlier is not None
            and earlier.message < number
            and earlier.content_key == block.content_key
        ):
            answer = repeated(earlier.result, earlier.message, block.start_line)
            return Unanswered(block.start_line, block.id_hint, answer, earlier.message)
        if interrupted:
            return Unanswered(block.start_line, block.id_hint, None)
        return None

    def recovered(self, intent: WriteIntent, landing: Landing) -> CommandResult:
        from .recovered import recovered_result

        return recovered_result(intent, landing)


def _noted(block: RawBlock, result: CommandResult) -> CommandResult:
    """`result` with the clause saying its block was indented or fenced, when it was."""
    note = layout_note(block)
    return replace(result, summary=result.summary + note) if note else result


ENGINE_HALF: DialectEngine = OperatorCmdEngine()
