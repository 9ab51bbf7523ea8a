"""What a String block spoiled before its command is even read is told (pure): the error each
fault of protocol/chanflow/blocks.py gets, with what to do, in String's own words."""

from __future__ import annotations

from ..grammar import WINDOW_CHARS
from . import grammar
from .blocks import ChanBlock
from .errors import StringCode, StringError
from .near_miss import exact_form

# Said without a tag: a response shows every tag start with one more backslash (tag_escape.py),
# so a tag written here would reach the model with two and be copied so into the file.
ESCAPES = (
    "to write text holding a tag, put one backslash right after the < of each of its open and "
    "close tags in the content; the file gets the tags without it"
)


def fault_error(block: ChanBlock) -> StringError | None:
    """The error of a block with a fault; None for a sound one."""
    fault = block.fault
    if fault is None:
        return None
    if fault == "unclosed":
        return StringError(
            StringCode.UNCLOSED_BLOCK,
            "the message ended before this block was closed; nothing in it was run",
            f"end every block with its close tag {grammar.CLOSE}",
        )
    if fault == "nested":
        return StringError(
            StringCode.NESTED_BLOCK,
            "another open tag stands inside this block, so where it ends cannot be told; "
            "nothing in it was run",
            "send one command per block",
            ESCAPES,
        )
    if fault == "too_large":
        return StringError(
            StringCode.BLOCK_TOO_LARGE,
            f"this block is over {WINDOW_CHARS:,} characters, more than Operator reads of a "
            "message; nothing in it was run",
            f"split the content: /write the first part, then /append the rest, each block under "
            f"{WINDOW_CHARS:,} characters",
        )
    if fault == "cut":
        return StringError(
            StringCode.BLOCK_TOO_LARGE,
            f"the block ending at line {block.end_line} starts before the last {WINDOW_CHARS:,} "
            "characters of the message, which are all Operator reads; nothing in it was run",
            "send it again near the end of a message; split a large content: /write the first "
            f"part, then /append the rest, each block under {WINDOW_CHARS:,} characters",
        )
    header = f"{block.channel}:{block.topic}" if block.topic is not None else None
    return StringError(
        StringCode.MALFORMED_TAG,
        f"{block.problem}; nothing in the block was run",
        f"write it exactly: {exact_form(header)} (U+1D49E between < and =, on one line), the "
        f"command, then {grammar.CLOSE} (a response shows a tag with a \\ after its <: write "
        "it without)",
    )
