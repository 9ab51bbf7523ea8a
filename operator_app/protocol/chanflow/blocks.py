"""What the message scanner finds of String's dialect (sans-IO): a `ChanBlock` is one
`<𝒞=channel:topic>payload</𝒞>` block as written, with the key that tells it apart from every other
block Operator was ever given; a `PendingChanBlock` is one still waiting for its `</𝒞>`."""

from __future__ import annotations

from typing import ClassVar, Literal

from msgspec import Struct

from . import grammar

# What spoils a block before its command is even read: it never closed before the message
# ended, another open tag stands inside it (then where it really ends cannot be told), or its
# payload is larger than any block Operator takes (reader.py, MAX_PAYLOAD_CHARS).
# A near-miss tag (near_miss.py) or a close tag without its open tag is "malformed"; a block the
# message's window cut (its open tag stands before the last WINDOW_CHARS characters) is "cut".
Fault = Literal["unclosed", "nested", "too_large", "malformed", "cut"]


class ChanBlock(Struct, frozen=True):
    dialect: ClassVar[str] = "string"

    start_line: int
    end_line: int | None  # None: the message ended before its </𝒞>
    channel: str  # "string" for Operator; any other channel is not for it
    topic: str | None  # as written after "channel:"; None when the tag has no ":"
    attributes: str  # what follows the topic in the tag ("" in a command; a response has time=...)
    payload: str  # without the line break right after the open tag and right before the close tag
    # The same block of the same message has the same key, whichever way the message came in
    # (pasted again, streamed, replayed after a restart): a hash of everything the message said
    # up to the end of this block, its line breaks made alike.
    key: str
    fault: Fault | None = None
    problem: str | None = None  # a malformed block: what is wrong with its tags

    @property
    def for_operator(self) -> bool:
        return self.channel == grammar.CHANNEL

    @property
    def runs(self) -> bool:
        """A block of another channel, or a response of Operator's pasted back, is not run."""
        return self.for_operator and not self.is_response

    @property
    def is_response(self) -> bool:
        """A block Operator wrote (attributes on its tag, "re: [id]" first): pasted back."""
        return bool(self.attributes.strip()) and self.payload.lstrip().startswith("re: [")


class PendingChanBlock(Struct, frozen=True):
    dialect: ClassVar[str] = "string"
    awaits: ClassVar[str] = "its close tag"

    start_line: int
    channel: str
    topic: str | None

    @property
    def label(self) -> str:
        return f"<{grammar.SIGIL}={self.channel}:{self.topic or 'main'}>"


def trim_payload(payload: str) -> str:
    """ "A newline right after the open tag and right before the close tag is not part of the
    payload" (any of the line breaks a message may use)."""
    for brk in ("\r\n", "\n", "\r"):
        if payload.startswith(brk):
            payload = payload[len(brk) :]
            break
    for brk in ("\r\n", "\n", "\r"):
        if payload.endswith(brk):
            payload = payload[: -len(brk)]
            break
    return payload
