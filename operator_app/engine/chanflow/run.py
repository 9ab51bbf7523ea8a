"""One String block answered: its id (from the block's key, so the same block of the same message
gets the same id and is known again), its topic's session loaded, its command read, `{variables}`
put in, the command run, and the result in String's form. A block that already ran is not run
again: it is answered with its recorded response, marked as a repeat."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from ...protocol.chanflow.blocks import ChanBlock
from ...protocol.chanflow.commands import BY_NAME, Request, parse_topic, read_payload, substitute
from ...protocol.chanflow.errors import StringCode, StringError
from ...protocol.chanflow.grammar import ID_ALPHABET, ID_CHARS
from ...protocol.chanflow.responses import after_message
from ...protocol.chanflow.results import string_failed, string_ok
from ...protocol.results import CommandResult
from . import reading, writing
from .context import Answer, Call, EngineLike
from .topics import TopicStore

Earlier = TypeVar("Earlier")  # what the session holds of a block that ran (its result)
CONTENT_KEY_PREFIX = "chanflow:"  # a String block's content key in the session's records

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
    "undo": writing.cmd_undo,
}
_FAULTS = {
    "unclosed": (
        StringCode.UNCLOSED_BLOCK,
        "the message ended before this block was closed; nothing in it was run",
        "end every block with its close tag: a slash and the sigil in angle brackets",
    ),
    "nested": (
        StringCode.NESTED_BLOCK,
        "another open tag stands inside this block, so where it ends cannot be told; nothing "
        "in it was run",
        "send one command per block; to write text holding ChanFlow tags, use OPERATOR_CMD "
        "fs.write with content_b64",
    ),
    "too_large": (
        StringCode.BLOCK_TOO_LARGE,
        "this block is over 1,000,000 characters; nothing in it was run",
        "split the content over several blocks (/write, then /append)",
    ),
}


@dataclass(frozen=True)
class ChanAnswer:
    result: CommandResult
    content_key: str | None  # None: nothing ran or changed, the block may be sent again
    durable: bool  # a change to the workspace was attempted: record it with an fsync
    repeat_of: int | None = None  # the message the recorded response is from


def request_id(
    key: str, used: Mapping[str, tuple[str, int, Earlier]]
) -> tuple[str, tuple[str, int, Earlier] | None]:
    """The block's id (ID_CHARS of its key in base 36, longer where that is taken by another
    block), and what it ran as before, if it did."""
    number = int(key[:26], 16)
    digits = ""
    while number:
        number, rest = divmod(number, len(ID_ALPHABET))
        digits += ID_ALPHABET[rest]
    digits = digits or "0"
    content_key = CONTENT_KEY_PREFIX + key
    for size in range(ID_CHARS, len(digits) + 1):
        candidate = digits[:size]
        earlier = used.get(candidate)
        if earlier is None:
            return candidate, None
        if earlier[0] == content_key:
            return candidate, earlier
    return key, used.get(key)


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


class ChanFlowRunner:
    def __init__(self, engine: EngineLike) -> None:
        self.engine = engine
        self.store = TopicStore(engine.session.state_dir)

    def answer(
        self,
        block: ChanBlock,
        *,
        message: int,
        record_intent: Callable[[str, str, str, str, dict[str, object]], None],
    ) -> ChanAnswer:
        """`record_intent(id, action, rel, summary, extra)` is called before a change commits."""
        rid, earlier = request_id(block.key, self.engine.session.used_ids())
        if earlier is not None:
            return self._repeat(earlier, block)
        topic_shown = block.topic if block.topic else "file:main"
        line = request_line(block.payload)
        at = now()
        action = command_word(line)
        request: Request | None = None
        try:
            topic = parse_topic(block.topic)
            topic_shown = topic
            fault = _FAULTS.get(block.fault or "")
            if fault is not None:
                raise StringError(*fault)
            if block.attributes:
                raise StringError(
                    StringCode.INVALID_TARGET,
                    "a command's tag carries no attributes",
                    f"tag the block string:{topic} and nothing more; time= and mode= are for "
                    "Operator's answers",
                )
            request = read_payload(block.payload)
            action = f"/{request.name}"
            state = self.store.load(topic)
            if request.name != "set":
                substituted = substitute(request.line, state.variables)
                if substituted != request.line:
                    body = "" if request.body is None else "\n" + request.body
                    request = replace(read_payload(substituted + body), line=request.line)
            call = Call(
                engine=self.engine,
                store=self.store,
                topic=state,
                message=message,
                line=block.start_line,
                request_id=rid,
                request=request,
                content_key=CONTENT_KEY_PREFIX + block.key,
                record_intent=lambda act, rel, summary, extra: record_intent(
                    rid, act, rel, summary, {"topic": topic, "request": line, "at": at, **extra}
                ),
            )
            answer = self._handler(request)(call)
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
            durable = request is not None and _writes(request)
            content_key = (
                None
                if result.status in ("rejected", "conflict")
                else (CONTENT_KEY_PREFIX + block.key)
            )
            return ChanAnswer(result, content_key, durable)
        except Exception as exc:  # one command's bug must not lose the others' results
            failure = StringError(
                StringCode.INTERNAL,
                f"Operator failed on this command ({type(exc).__name__}: {exc}); tell the person",
                *traceback.format_exc(limit=3).strip().split("\n")[-3:],
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
        )
        return ChanAnswer(result, CONTENT_KEY_PREFIX + block.key, _writes(request))

    @staticmethod
    def _handler(request: Request) -> Handler:
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


def _writes(request: Request) -> bool:
    spec = BY_NAME[request.name]
    return spec.writes and (request.name != "edit" or request.body is not None)
