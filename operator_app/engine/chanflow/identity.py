"""What a String block is known by (docs/design.md, "The String dialect", Identity, and "the repeat
rule"). A block carries no id of the model's. The scanner gives it a text key: a hash of everything
its message said up to the end of the block. Its identity, the content key the session records,
is that text key together with the message's origin: the message itself, or for the browser
bridge the page message it delivers (every delivery of one page message shares it). So:

- the same block of the same delivery, or of another delivery of the same page message, is a
  repeat: answered with its recorded response, never run again;
- a new message that says the same (a paste made twice, a followed file rewritten) is new: its
  reads run, and a change runs only once the person saw, in the dialog, that it repeats message N
  (a look-alike).

Its id (`re: [k3x9q]`) is the text key in base 36, ID_CHARS long, longer where another block of
the session has that prefix, so a look-alike of message 4's block gets the next longer id."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Generic, TypeVar

from msgspec import Struct

from ...protocol.chanflow.grammar import ID_ALPHABET, ID_CHARS
from ...protocol.results import CommandResult

CONTENT_KEY_PREFIX = "chanflow:"  # a String block's content key in the session's records

Earlier = TypeVar("Earlier")  # what the session holds of a block that ran (its result)


class Identity(Struct, Generic[Earlier], frozen=True):
    request_id: str
    earlier: tuple[str, int, Earlier] | None  # this very block ran before: a repeat
    lookalike: tuple[str, int, Earlier] | None  # the latest block of another message it repeats


def content_key(text_key: str, origin: str) -> str:
    digest = hashlib.sha256(origin.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{CONTENT_KEY_PREFIX}{text_key}@{digest}"


def identify(
    text_key: str, used: Mapping[str, tuple[str, int, Earlier]], key: str | None
) -> Identity[Earlier]:
    """The block's id and what the session knows of it: `key` is its content key (None: only the
    id a block that never ran would have been given is wanted)."""
    number = int(text_key[:26], 16)
    digits = ""
    while number:
        number, rest = divmod(number, len(ID_ALPHABET))
        digits += ID_ALPHABET[rest]
    digits = digits or "0"
    same_text = CONTENT_KEY_PREFIX + text_key
    lookalike: tuple[str, int, Earlier] | None = None
    for size in range(ID_CHARS, len(digits) + 1):
        candidate = digits[:size]
        earlier = used.get(candidate)
        if earlier is None:
            return Identity(candidate, None, lookalike)
        if key is not None and earlier[0] == key:
            return Identity(candidate, earlier, None)
        # (a record made before origins were part of the key has the text key alone)
        same = earlier[0] == same_text or earlier[0].startswith(same_text + "@")
        if same and (lookalike is None or earlier[1] >= lookalike[1]):
            lookalike = earlier
    return Identity(text_key, used.get(text_key), lookalike)


def earlier_outcome(result: CommandResult) -> str:
    """What became of a change in an earlier message: "applied", "declined", "refused (CODE)"."""
    if result.ok:
        return "applied"
    if result.status == "rejected":
        return "declined"
    return f"refused ({result.error_code})" if result.error_code else "not applied"


def lookalike_note(message: int, result: CommandResult) -> str:
    """What the consent dialog says of a change in a message that repeats an earlier one."""
    action = result.action or "command"
    return (
        f"this message has the same text as message {message}, whose {action} was "
        f"{earlier_outcome(result)}; approve only if it should run again"
    )
