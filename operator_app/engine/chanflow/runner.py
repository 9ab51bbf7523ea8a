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

from ...protocol.chanflow.bash import is_bash, read_request
from ...protocol.chanflow.blocks import ChanBlock
from ...protocol.chanflow.commands import (
    Request,
    parse_location,
    parse_topic,
    read_payload,
    substitute,
    workspace_relative,
)
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.faults import fault_error
from ...protocol.chanflow.grammar import SIGIL
from ...protocol.chanflow.responses import after_message
from ...protocol.chanflow.results import string_failed, string_ok
from ...protocol.errors import OperatorError
from ...protocol.results import CommandResult
from ..messages.events import BlockStarted, ForeignBlock
from ..messages.interface import DialectEngine, MessageContext, Unanswered
from ..messages.not_approved import RUNS_WHEN, UNASKED_REPEAT
from ..messages.outlook import PlannedWrite, normalised
from ..state.internal_failure import internal_message
from . import bash, entries, finding, reading, undoing, writing
from .context import Answer, Call
from .identity import Identity, content_key, earlier_outcome, identify, lookalike_note
from .mapping import told_in_string
from .recovered import recovered_result
from .topics import TopicStore

if TYPE_CHECKING:
    from ...protocol.dialect import Block
    from ..changes.outcomes import Landing
    from ..state.used_ids import UsedId, WriteIntent

Handler = Callable[[Call], Answer]
_HANDLERS: dict[str, Handler] = {
    "help": reading.cmd_help,
    "info": reading.cmd_info,
    "ls": reading.cmd_ls,
    "open": reading.cmd_open,
    "back": reading.cmd_back,
    "refresh": reading.cmd_refresh,
    "verify": reading.cmd_verify,
    "set": reading.cmd_set,
    "close": reading.cmd_close,
    "commit": reading.cmd_commit,
    "log": reading.cmd_log,
    "write": writing.cmd_write,
    "append": writing.cmd_append,
    "replace": writing.cmd_replace,
    "undo": undoing.cmd_undo,
    "find": finding.cmd_find,
    "grep": finding.cmd_grep,
    "tree": finding.cmd_tree,
    "mv": entries.cmd_mv,
    "cp": entries.cmd_cp,
    "rm": entries.cmd_rm,
}
# A bash topic's: its script, and its // commands (protocol/chanflow/bash.py).
_BASH_HANDLERS: dict[str, Handler] = {
    "bash": bash.cmd_script,
    "info": bash.cmd_info,
    "close": bash.cmd_close,
    "help": bash.cmd_help,
}


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


class StringRunner:
    """Answers one message's String blocks."""

    def __init__(self, context: MessageContext) -> None:
        self.context = context
        self.store = TopicStore(context.session.state_dir)

    def run(self, block: Block) -> None:
        assert isinstance(block, ChanBlock)
        context = self.context
        line = block.start_line
        if not block.for_operator:
            context.warn(
                f"line {line}: a <{SIGIL}={block.channel}:...> block is for another channel; "
                "Operator does not answer it"
            )
            context.notify(ForeignBlock(line, block.channel))
            return
        if block.is_response:
            attribute = block.attributes.split("=")[0]
            context.warn(
                f"line {line}: a String response (its tag carries {attribute}=) is Operator's "
                "own answer, pasted back; it was not run"
            )
            return
        first = request_line(block.payload)
        identity = self._identity(block)
        rid = identity.request_id
        context.notify(BlockStarted(line, rid, first.split(" ", 1)[0] or None, None))
        held = _held_back(block, rid, context.held_back) if identity.earlier is None else None
        if held is not None:
            context.add(held, content_key=None)
            return
        if _may_write(block):
            context.flush()  # what ran before a write is recorded and shown before it is asked
        answer = self._answer(block)
        context.add(answer.result, content_key=answer.content_key, durable=answer.durable)

    def planned_write(self, block: Block, used: Mapping[str, UsedId]) -> PlannedWrite | None:
        """A String block that changes a file, as it will run; its path is the one written (a
        place in the topic's current document, or /undo's, is not known from the text: the dialog
        then asks again before `a`)."""
        assert isinstance(block, ChanBlock)
        if not block.runs or block.fault is not None:
            return None
        rid = identify(block.key, used, content_key(block.key, self.context.origin_key)).request_id
        try:
            topic = parse_topic(block.topic)
            request = read_request(topic, block.payload)
            if not request.writes:
                return None
            if is_bash(topic):
                folder = normalised(self.store.load(topic).cwd)
                return PlannedWrite(
                    block.start_line, rid, request.name, folder, command=request.line
                )
            path = (
                parse_location(request.name, request.argument).path
                if request.name != "undo"
                else None
            )
        except StringError:
            return None
        shown = (
            normalised(workspace_relative(path))
            if path
            else f"(/{request.name}: a place in the topic)"
        )
        return PlannedWrite(block.start_line, rid, f"/{request.name}", shown)

    def pause(self) -> None:
        self.store.flush()  # the topics this message changed, written back once (topics.py)

    def end(self) -> None:
        pass

    def _identity(self, block: ChanBlock) -> Identity[CommandResult]:
        key = content_key(block.key, self.context.origin_key)
        return identify(block.key, self.context.session.used_ids(), key)

    def _answer(self, block: ChanBlock) -> ChanAnswer:
        context = self.context
        identity = self._identity(block)
        rid = identity.request_id
        if identity.earlier is not None:
            return self._repeat(identity.earlier, block)
        topic_shown = block.topic if block.topic else "file:main"
        try:
            topic_shown = parse_topic(block.topic)
        except StringError:
            pass  # told below, unless the block's fault is told first
        line = request_line(block.payload)
        at = now()
        action = command_word(line)
        request: Request | None = None
        key = content_key(block.key, context.origin_key)
        try:
            fault = fault_error(block)
            if fault is not None:
                raise fault
            topic = parse_topic(block.topic)
            topic_shown = topic
            request = _request_of(block, topic)
            action = _action_of(topic, request)
            state = self.store.load(topic)
            request = _substituted(topic, request, state.variables)

            def record_intent(act: str, rel: str, summary: str, extra: dict[str, object]) -> None:
                context.record_intent(
                    rid,
                    action=act,
                    path=rel,
                    line=block.start_line,
                    summary=summary,
                    content_key=key,
                    extra={"topic": topic, "request": line, "at": at, **extra},
                )

            call = Call(
                context=context,
                store=self.store,
                topic=state,
                line=block.start_line,
                request_id=rid,
                request=request,
                content_key=key,
                record_intent=record_intent,
            )
            if identity.lookalike is not None and request.writes:
                _, number, earlier_result = identity.lookalike
                call.lookalike = lookalike_note(number, earlier_result)
                if context.unattended:
                    raise _unasked(number, earlier_result, request.line)
            answer = self._handler(topic, request)(call)
            if call.notes:  # why it waited (a secret read)
                answer = replace(answer, context=(*answer.context, *call.notes))
            if not call.closed:
                self.store.save(state)
        except StringError as error:
            result = string_failed(
                rid,
                error,
                topic=topic_shown,
                request=line,
                at=at,
                action=action,
                line=block.start_line,
            )
            if isinstance(error, _Unasked):  # the rest of the message runs (not_approved.py)
                result = replace(result, extra={**result.extra, UNASKED_REPEAT: True})
            durable = request is not None and request.writes
            kept = None if result.status in ("rejected", "conflict") else key
            return ChanAnswer(result, kept, durable)
        except Exception as exc:  # one command's bug must not lose the others' results
            if isinstance(exc, OperatorError):  # an engine refusal a handler did not translate
                failure = told_in_string(exc, writing=request is not None and request.writes)
            else:
                failure = StringError(
                    StringCode.INTERNAL,
                    internal_message(exc, context.session.state_dir, f"on {action}")
                    + "; tell the person",
                )
            result = string_failed(
                rid,
                failure,
                topic=topic_shown,
                request=line,
                at=at,
                action=action,
                line=block.start_line,
            )
            return ChanAnswer(result, None, True)
        rest = after_message(content=answer.content, context=answer.context)
        result = string_ok(
            rid,
            topic=topic_shown,
            request=line,
            at=at,
            message=answer.message,
            rest=rest,
            action=action,
            path=answer.path,
            line=block.start_line,
            diff=answer.diff,
            mode="edit" if request.name in _EDIT_MODE else None,
        )
        return ChanAnswer(result, key, request.writes)

    @staticmethod
    def _handler(topic: str, request: Request) -> Handler:
        if is_bash(topic):
            return _BASH_HANDLERS[request.name]
        if request.name == "edit":
            return writing.cmd_edit if request.body is not None else reading.cmd_edit_view
        return _HANDLERS[request.name]

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
            extra={**result.extra, "repeat_of": number},
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


def _held_back(block: ChanBlock, rid: str, why: str | None) -> CommandResult | None:
    """A block after a write no person could approve (engine/messages/not_approved.py): not run,
    its key free, answered NOT_APPROVED. None when blocks run, or for a block that runs nothing
    anyway (a refused block, a command Operator does not serve), which is answered as ever."""
    if why is None or block.fault is not None or block.attributes:
        return None
    try:
        topic = parse_topic(block.topic)
        request = read_request(topic, block.payload)
    except StringError:
        return None
    line = request_line(block.payload)
    action = f"/{request.name}"
    if is_bash(topic):
        action = request.name if request.writes else f"//{request.name}"
    result = string_failed(
        rid,
        StringError(StringCode.NOT_APPROVED, why, RUNS_WHEN),
        topic=topic,
        request=line,
        at=now(),
        action=action,
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


def _may_write(block: ChanBlock) -> bool:
    """Whether the block's command is one that writes, from its first line alone (a block that
    fails before it runs asks nothing, so a wrong guess only costs an early flush)."""
    try:
        return read_request(parse_topic(block.topic), block.payload).writes
    except StringError:
        return False


def _request_of(block: ChanBlock, topic: str) -> Request:
    """The block's command, read from its payload; its tag carries nothing but the topic."""
    if block.attributes:
        raise StringError(
            StringCode.INVALID_TARGET,
            "a command's tag carries no attributes",
            f"tag the block string:{topic} and nothing more; time= and mode= are for "
            "Operator's answers",
        )
    return read_request(topic, block.payload)


def _action_of(topic: str, request: Request) -> str:
    """How the block's command is named in results: /open; a bash topic's script is "bash" and
    its own commands are written //info."""
    if is_bash(topic):
        return request.name if request.writes else f"//{request.name}"
    return f"/{request.name}"


def _substituted(topic: str, request: Request, variables: dict[str, str]) -> Request:
    """The command line with the topic's {variables} put in (not /set's own, nor a script's)."""
    if request.name == "set" or is_bash(topic):
        return request
    substituted = substitute(request.line, variables)
    if substituted == request.line:
        return request
    body = "" if request.body is None else "\n" + request.body
    return replace(read_payload(substituted + body), line=request.line)


ENGINE_HALF: DialectEngine = StringEngine()
