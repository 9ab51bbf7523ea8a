"""String's engine half (engine/messages/interface.py). One String block answered: its id (from
the block's key, so the same block of the same message gets the same id and is known again), its
topic's session loaded, its command read, `{variables}` put in, the command run, and the result
in String's form. A block that already ran is not run again: it is answered with its recorded
response, marked as a repeat. A block of another channel gets no answer, and one of Operator's
own responses pasted back is not run; each is a warning of the message."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from ...protocol.chanflow.blocks import ChanBlock
from ...protocol.chanflow.commands import Request, parse_topic
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.faults import fault_error
from ...protocol.chanflow.grammar import SIGIL
from ...protocol.chanflow.responses import after_message
from ...protocol.chanflow.results import string_failed, string_ok
from ...protocol.errors import OperatorError
from ...protocol.outcomes import Outcome
from ...protocol.results import CommandResult
from ..messages.events import BlockStarted, ForeignBlock
from ..messages.interface import DialectEngine, MessageContext, Unanswered
from ..messages.not_approved import RUNS_WHEN, UNASKED_REPEAT
from ..messages.outlook import PlannedWrite
from ..state.internal_failure import internal_message
from .context import Answer, Call
from .identity import Identity, content_key, earlier_outcome, identify, lookalike_note
from .mapping import told_in_string
from .recovered import recovered_result
from .topic_types import TopicType, topic_type
from .topics import TopicStore

if TYPE_CHECKING:
    from ...protocol.dialect import Block
    from ..changes.outcomes import Landing
    from ..state.used_ids import UsedId, WriteIntent

_EDIT_MODE = ("edit", "replace")  # commands whose answers carry mode=edit (seed 003)


class ChanAnswer(Struct, frozen=True):
    result: CommandResult
    content_key: str | None  # None: nothing ran or changed, the block may be sent again
    durable: bool  # a change to the workspace was attempted: record it with an fsync
    repeat_of: int | None = None  # the message the recorded response is from


def now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def request_line(payload: str) -> str:
    """The block's first line as written, for "re: [id] ..." (even when it is not a command)."""
    line = payload.lstrip().split("\n", 1)[0].split("\r", 1)[0].strip()
    return line[:200] + ("\u2026" if len(line) > 200 else "")


def command_word(line: str) -> str:
    """The command a block's first line names ("/run" of "/run ls"), for the table's action column
    even when the block is refused before its command is read; "/?" when it names none."""
    word = line[1:].split(" ", 1)[0] if line.startswith("/") else ""
    return f"/{word[:20]}" if word.isascii() and word.isalpha() else "/?"


class Parsed(Struct, frozen=True):
    """A block read once (its topic, its type's reading of its payload): what running it, holding
    it back and a waiting dialog's outlook all start from."""

    topic: str | None  # the topic's "type:name"; None when the tag's topic is refused
    request: Request | None  # None: refused, `error` says why
    error: StringError | None = None

    @property
    def kind(self) -> TopicType:
        assert self.topic is not None
        return topic_type(self.topic)


def parse_block(block: ChanBlock) -> Parsed:
    """The block's topic and request, or the error that refuses them (a tag's attributes are for
    Operator's answers: a command's tag carries none)."""
    try:
        topic = parse_topic(block.topic)
    except StringError as error:
        return Parsed(None, None, error)
    if block.attributes:
        refusal = StringError(
            StringCode.INVALID_TARGET,
            "a command's tag carries no attributes",
            f"tag the block string:{topic} and nothing more; time= and mode= are for "
            "Operator's answers",
        )
        return Parsed(topic, None, refusal)
    try:
        return Parsed(topic, topic_type(topic).read(topic, block.payload))
    except StringError as error:
        return Parsed(topic, None, error)


class Frame(Struct, frozen=True):
    """What a block's answer is framed with, whatever becomes of it."""

    rid: str
    topic: str  # as the response's tag names it
    line: str  # the block's first line, as written
    at: str
    action: str
    key: str  # its content key
    start_line: int

    def failed(self, error: StringError, outcome: Outcome | None) -> CommandResult:
        return string_failed(
            self.rid,
            error,
            topic=self.topic,
            request=self.line,
            at=self.at,
            action=self.action,
            line=self.start_line,
            outcome=outcome,
        )


class StringRunner:
    """Answers one message's String blocks."""

    def __init__(self, context: MessageContext) -> None:
        self.context = context
        self.store = TopicStore(context.session.state_dir)
        # Blocks read ahead (a waiting write's outlook) and not run yet, by identity.
        self._parsed: dict[int, tuple[ChanBlock, Parsed]] = {}

    def run(self, block: Block) -> None:
        assert isinstance(block, ChanBlock)
        if not self._answers(block):
            return
        # Kept while it runs: the outlook of its own dialog reads it too.
        parsed = self._parse(block, keep=True)
        try:
            self._run(block, parsed)
        finally:
            self._parsed.pop(id(block), None)

    def _run(self, block: ChanBlock, parsed: Parsed) -> None:
        context = self.context
        identity = self._identity(block)
        rid = identity.request_id
        first = request_line(block.payload)
        context.notify(BlockStarted(block.start_line, rid, first.split(" ", 1)[0] or None, None))
        held = (
            _held_back(block, parsed, rid, context.held_back) if identity.earlier is None else None
        )
        if held is not None:
            context.add(held, content_key=None)
            return
        if parsed.request is not None and parsed.request.writes:
            context.flush()  # what ran before a write is recorded and shown before it is asked
        answer = self._answer(block, parsed, identity)
        context.add(answer.result, content_key=answer.content_key, durable=answer.durable)

    def _answers(self, block: ChanBlock) -> bool:
        """Whether the block is one to answer: not another channel's, nor a response of
        Operator's pasted back (each a warning of the message)."""
        line = block.start_line
        if not block.for_operator:
            self.context.warn(
                f"line {line}: a <{SIGIL}={block.channel}:...> block is for another channel; "
                "Operator does not answer it"
            )
            self.context.notify(ForeignBlock(line, block.channel))
            return False
        if block.is_response:
            attribute = block.attributes.split("=")[0]
            self.context.warn(
                f"line {line}: a String response (its tag carries {attribute}=) is Operator's "
                "own answer, pasted back; it was not run"
            )
            return False
        return True

    def planned_write(self, block: Block, used: Mapping[str, UsedId]) -> PlannedWrite | None:
        """A String block that changes a file, as it will run; its path is the one written (a
        place in the topic's current document, or /undo's, is not known from the text: the dialog
        then asks again before `a`)."""
        assert isinstance(block, ChanBlock)
        if not block.runs or block.fault is not None:
            return None
        parsed = self._parse(block, keep=True)
        request = parsed.request
        if parsed.topic is None or request is None or not request.writes:
            return None
        rid = identify(block.key, used, content_key(block.key, self.context.origin_key)).request_id
        try:
            touches = parsed.kind.touches(self.store, parsed.topic, request)
        except StringError:
            return None
        return PlannedWrite(
            block.start_line, rid, touches.action, touches.path, command=touches.command
        )

    def pause(self) -> None:
        self.store.flush()  # the topics this message changed, written back once (topics.py)

    def end(self) -> None:
        self._parsed.clear()

    def _parse(self, block: ChanBlock, *, keep: bool) -> Parsed:
        """The block read, once: kept when it will be asked for again (`keep`: it is yet to
        run)."""
        kept = self._parsed.pop(id(block), None)
        parsed = kept[1] if kept is not None and kept[0] is block else parse_block(block)
        if keep:
            self._parsed[id(block)] = (block, parsed)
        return parsed

    def _identity(self, block: ChanBlock) -> Identity[CommandResult]:
        key = content_key(block.key, self.context.origin_key)
        return identify(block.key, self.context.session.used_ids(), key)

    def _answer(
        self, block: ChanBlock, parsed: Parsed, identity: Identity[CommandResult]
    ) -> ChanAnswer:
        if identity.earlier is not None:
            return self._repeat(identity.earlier, block)
        line = request_line(block.payload)
        frame = Frame(
            rid=identity.request_id,
            topic=parsed.topic or block.topic or "file:main",
            line=line,
            at=now(),
            action=command_word(line),
            key=content_key(block.key, self.context.origin_key),
            start_line=block.start_line,
        )
        call: Call | None = None
        # A change to the workspace may be attempted: its answer is recorded with an fsync.
        writes = block.fault is None and parsed.request is not None and parsed.request.writes
        try:
            frame, call = self._called(block, parsed, frame, identity)
            answer = parsed.kind.handler(call.request)(call)
            return self._answered(frame, call, answer)
        except StringError as error:
            return self._refused(frame, call, writes, error)
        except Exception as exc:  # one command's bug must not lose the others' results
            return self._broken(frame, call, writes, exc)

    def _called(
        self,
        block: ChanBlock,
        parsed: Parsed,
        frame: Frame,
        identity: Identity[CommandResult],
    ) -> tuple[Frame, Call]:
        """The call a sound block's handler is given, its topic loaded and its {variables} put
        in; the StringError of a block that is not sound."""
        fault = fault_error(block)
        if fault is not None:
            raise fault
        if parsed.request is None or parsed.topic is None:
            assert parsed.error is not None
            raise parsed.error
        topic, kind = parsed.topic, parsed.kind
        frame = replace(frame, action=kind.action(parsed.request))
        state = self.store.load(topic)
        request = kind.substitute(parsed.request, state.variables)
        call = Call(
            context=self.context,
            store=self.store,
            topic=state,
            line=block.start_line,
            request_id=frame.rid,
            request=request,
            content_key=frame.key,
            record_intent=self._intents(frame, topic),
        )
        if identity.lookalike is not None and request.writes:
            _, number, earlier_result = identity.lookalike
            call.lookalike = lookalike_note(number, earlier_result)
            if self.context.unattended:
                raise _unasked(number, earlier_result, request.line)
        return frame, call

    def _intents(
        self, frame: Frame, topic: str
    ) -> Callable[[str, str, str, dict[str, object]], None]:
        """How a change of the block records its intent before it commits (recovery tells it
        again from that)."""
        context = self.context

        def record_intent(act: str, rel: str, summary: str, extra: dict[str, object]) -> None:
            context.record_intent(
                frame.rid,
                action=act,
                path=rel,
                line=frame.start_line,
                summary=summary,
                content_key=frame.key,
                extra={"topic": topic, "request": frame.line, "at": frame.at, **extra},
            )

        return record_intent

    def _answered(self, frame: Frame, call: Call, answer: Answer) -> ChanAnswer:
        if call.notes:  # why it waited (a secret read)
            answer = replace(answer, context=(*answer.context, *call.notes))
        if not call.closed:
            self.store.save(call.topic)
        rest = after_message(content=answer.content, context=answer.context)
        result = string_ok(
            frame.rid,
            topic=frame.topic,
            request=frame.line,
            at=frame.at,
            message=answer.message,
            rest=rest,
            action=frame.action,
            path=answer.path,
            line=frame.start_line,
            diff=answer.diff,
            mode="edit" if call.request.name in _EDIT_MODE else None,
            outcome=call.outcome,
        )
        return ChanAnswer(result, frame.key, call.request.writes)

    def _refused(
        self, frame: Frame, call: Call | None, writes: bool, error: StringError
    ) -> ChanAnswer:
        result = frame.failed(error, call.outcome if call is not None else None)
        if isinstance(error, _Unasked):  # the rest of the message runs (not_approved.py)
            result = replace(result, extra={**result.extra, UNASKED_REPEAT: True})
        kept = None if result.status in ("rejected", "conflict") else frame.key
        return ChanAnswer(result, kept, writes)

    def _broken(self, frame: Frame, call: Call | None, writes: bool, exc: Exception) -> ChanAnswer:
        if isinstance(exc, OperatorError):  # an engine refusal a handler did not translate
            failure = told_in_string(exc, writing=writes)
        else:
            failure = StringError(
                StringCode.INTERNAL,
                internal_message(exc, self.context.session.state_dir, f"on {frame.action}")
                + "; tell the person",
            )
        return ChanAnswer(frame.failed(failure, call.outcome if call else None), None, True)

    def _repeat(self, earlier: tuple[str, int, CommandResult], block: ChanBlock) -> ChanAnswer:
        _, number, result = earlier
        note = (
            f"(a repeat: this block already ran in message {number}; this is its answer from "
            "then, and nothing was run again)"
        )
        details = note if not result.details else f"{note}\n{result.details}"
        repeated = replace(
            result,
            details=details,
            line=block.start_line,
            repeat_of=number,
        )
        return ChanAnswer(repeated, None, False, repeat_of=number)


class StringEngine:
    name = "string"

    def runner(self, context: MessageContext) -> StringRunner:
        return StringRunner(context)

    def unanswered(
        self, block: Block, used: Mapping[str, UsedId], number: int, interrupted: bool
    ) -> Unanswered | None:
        """A String block that ran before is answered again (a repeat has a result of its own),
        so a block without one is one the app stopped before."""
        if not block.runs or not interrupted:
            return None
        assert isinstance(block, ChanBlock)
        return Unanswered(block.start_line, identify(block.key, used, None).request_id, None)

    def recovered(self, intent: WriteIntent, landing: Landing) -> CommandResult:
        return recovered_result(intent, landing)


def _held_back(block: ChanBlock, parsed: Parsed, rid: str, why: str | None) -> CommandResult | None:
    """A block after a write no person could approve (engine/messages/not_approved.py): not run,
    its key free, answered NOT_APPROVED. None when blocks run, or for a block that runs nothing
    anyway (a refused block, a command Operator does not serve), which is answered as ever."""
    if why is None or block.fault is not None or parsed.request is None:
        return None
    assert parsed.topic is not None
    result = string_failed(
        rid,
        StringError(StringCode.NOT_APPROVED, why, RUNS_WHEN),
        topic=parsed.topic,
        request=request_line(block.payload),
        at=now(),
        action=parsed.kind.action(parsed.request),
        line=block.start_line,
    )
    return replace(result, status="failed")  # "rejected" is the write that waits


class _Unasked(StringError):
    """A change in a message that repeats an earlier one, when no one is asked (--approve all)."""


def _unasked(number: int, earlier: CommandResult, line: str) -> StringError:
    """Not a "no" (no one said it), and not a fault of the block: what makes it run is a message
    of its own. The rest of the message runs: run again, the same text would be a repeat again,
    so nothing may wait for that."""
    action = earlier.action or "command"
    what = "script" if action == "bash" else "change"
    return _Unasked(
        StringCode.NOT_APPROVED,
        f"{line} was not run: this message has the same text as message {number}, whose {action} "
        f"was {earlier_outcome(earlier)}, so it reads as that message sent again; a repeated "
        f"message's {what} needs the person's yes in Operator's dialog, which --approve all does "
        "not give; nothing changed; the blocks after it ran as usual",
        f"to run this {what} again on purpose, send it in a new message with words of your own "
        "before the block (a message that begins exactly like an earlier one, up to the block's "
        "end, is taken for it sent again)",
    )


ENGINE_HALF: DialectEngine = StringEngine()
