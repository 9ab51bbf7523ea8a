"""What a dialect is to the rest of Operator, on its pure side: the reader that finds its blocks
in a message (protocol/message/reader.py), how to tell that a text may hold its blocks, how its
results read as text (the copy-back form) and as JSON, what its actions are called and do, how
it spells the engine's error codes, how a block of it still arriving is named, and its system
prompt. Every block found carries the name of its dialect (`dialect`), and every result carries
the same name; front ends look the dialect up in the table (protocol/dialects.py) and never touch
its types.

The engine side of a dialect (running a block, planning what it will write, phrasing a
recovered write) is `engine/messages/interface.py`'s `DialectEngine`; `engine_half` names the
module that holds it, so a dialect is registered once, in one line of the table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

# What a scan finds, of any dialect (the face and the engine import them from here).
from .message.reader import Block as Block
from .message.reader import Pending as Pending

if TYPE_CHECKING:
    from .message.reader import Opening, Reader
    from .results import CommandResult

# What an action does to the workspace, as a result names it: reads it, writes it (asked about
# first), or runs a command (asked about, and what it changed asked about again).
ActionKind = Literal["read", "write", "run"]
# The lengths of a system prompt: its own, and for a dialect whose specification is longer than
# its prompt, the whole of it (with the prompt's opening paragraph, or raw).
PromptLength = Literal["prompt", "full", "raw"]


@runtime_checkable
class Dialect(Protocol):
    name: str  # what blocks and results carry ("operator", "string")
    title: str  # how a person calls it ("OPERATOR_CMD", "String")
    block_form: str  # how its blocks begin, for messages ("OPERATOR_CMD", "<𝒞=string:...>")
    opener: str  # text every block of it holds ("OPERATOR_CMD", "<𝒞="): a cheap first look
    # What a chat page shows where a block of it for Operator begins ("OPERATOR_CMD", "<𝒞=string"),
    # and whether that stands at a line's start (behind markdown punctuation at most): the
    # browser extension learns both from the bridge's hello (docs/bridge-protocol.md).
    page_opener: str
    opener_starts_line: bool
    engine_half: str  # the module that holds its DialectEngine (engine/messages/interface.py)
    prompt_lengths: tuple[PromptLength, ...]  # the prompts it has ("prompt" at least)

    def reader(self, opening: Opening) -> Reader:
        """A reader of its blocks for one message (protocol/message/reader.py)."""
        ...

    def own_answers(self, text: str, blocks: tuple[Block, ...]) -> str | None:
        """When `text` runs nothing, whether that is because it is this dialect's own answers
        pasted back: what to tell the person, else None."""
        ...

    def render(self, result: CommandResult) -> str:
        """One result as the model reads it (an OPERATOR_RESULT block, a String response)."""
        ...

    def describe(self, result: CommandResult) -> dict[str, Any]:
        """What --json gives of a result beyond the fields every result has."""
        ...

    def action_kind(self, action: str | None) -> ActionKind | None:
        """What `action` (as a result names it) does to the workspace; None when the action is
        not this dialect's."""
        ...

    def engine_code(self, code: str | None) -> str | None:
        """The engine's error code (an ErrorCode value) that `code`, a result's code in this
        dialect's spelling, stands for; None when it stands for none alone."""
        ...

    def named(self, result: CommandResult) -> str:
        """A result's command named in a sentence to the model, in this dialect's terms
        ("w1 (fs.write on notes.md)", "[k3x9q] /write notes.md")."""
        ...

    def request(self, result: CommandResult) -> str | None:
        """The command of `result` as the model wrote it, when its form quotes it (a String
        response's request line); None otherwise."""
        ...

    def folder(self, rel: str) -> str:
        """A folder of the workspace (relative to its root, "." for the root) as this dialect's
        results name it ("the workspace root", "src/"; "~/", "~/src")."""
        ...

    def bare_summary(self, summary: str, code: str | None) -> str:
        """The summary without what the table's status column shows beside it anyway."""
        ...

    def prompt(self, length: PromptLength = "prompt") -> str:
        """The system prompt a person gives the chat for this dialect, of one of its
        `prompt_lengths`."""
        ...
