"""What a dialect is to the rest of Operator, on its pure side: how to tell that a text may hold
its blocks, how its results read as text (the copy-back form) and as JSON, what its actions are
called, how a block of it still arriving is named, and its system prompt. The scanner tags every
block it finds with the name of its dialect (`dialect`), and every result carries the same name;
front ends look the dialect up in the table (protocol/dialects.py) and never touch its types.

The engine side of a dialect (running a block, planning what it will write, phrasing a
recovered write) is `engine/dialects/interface.py`'s `DialectEngine`; the table names the module
that holds it, so a dialect is registered once, in one line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from .results import CommandResult


class Block(Protocol):
    """A block found in a message, of any dialect."""

    dialect: ClassVar[str]

    @property
    def start_line(self) -> int: ...

    @property
    def runs(self) -> bool:
        """Whether Operator answers it (a String block of another channel, or one of Operator's
        own responses pasted back, is not run)."""
        ...


class Pending(Protocol):
    """A block still arriving (its end not yet seen), of any dialect."""

    dialect: ClassVar[str]
    awaits: ClassVar[str]  # what it waits for, as the table says: "its END_OPERATOR_CMD line"

    @property
    def start_line(self) -> int: ...

    @property
    def label(self) -> str | None:
        """What names it while it arrives: an OPERATOR_CMD block's id, a String block's tag."""
        ...


class Dialect(Protocol):
    name: str  # what blocks and results carry ("operator", "string")
    title: str  # how a person calls it ("OPERATOR_CMD", "String")
    block_form: str  # how its blocks begin, for messages ("OPERATOR_CMD", "<𝒞=string:...>")
    opener: str  # text every block of it holds ("OPERATOR_CMD", "<𝒞="): a cheap first look
    engine_half: str  # the module that holds its DialectEngine (engine/dialects/interface.py)

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

    def writes(self, action: str | None) -> bool | None:
        """Whether `action` (as a result names it) changes the workspace; None when the action is
        not this dialect's."""
        ...

    def bare_summary(self, summary: str, code: str | None) -> str:
        """The summary without what the table's status column shows beside it anyway."""
        ...

    def prompt(self) -> str:
        """The system prompt a person gives the chat for this dialect."""
        ...
