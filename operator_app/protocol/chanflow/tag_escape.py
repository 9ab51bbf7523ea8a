"""ChanFlow tags inside text that travels in a block (pure): how content sent to Operator writes
one, and how a response shows one, so neither ends or opens a block (docs/design.md, "The String
dialect", Escapes). A tag's "<" followed by backslashes is an escaped tag: `<\\𝒞=` and `<\\/𝒞>`
stand for `<𝒞=` and `</𝒞>`, `<\\\\/𝒞>` for `<\\/𝒞>`, and so on. Content a model sends loses one
backslash (`unescape_tags`); every text a response carries gains one (`escape_tags`), so a
response pasted anywhere holds no tag but its own, and content copied from a response writes
back exactly the file's text."""

from __future__ import annotations

import re

from .grammar import SIGIL

# "<", any backslashes, maybe "/", the sigil: a tag's start, open or close, escaped or not.
_TAG_START = re.compile("<(\\\\*)(/?)" + SIGIL)
_ESCAPED_START = re.compile("<\\\\(\\\\*)(/?)" + SIGIL)


def escape_tags(text: str) -> str:
    """`text` with every tag start given one more backslash: what a response shows."""
    if SIGIL not in text:
        return text
    return _TAG_START.sub(lambda m: f"<\\{m.group(1)}{m.group(2)}{SIGIL}", text)


def unescape_tags(text: str) -> str:
    """Content as a model wrote it, with one backslash taken from every escaped tag start."""
    if SIGIL not in text:
        return text
    return _ESCAPED_START.sub(lambda m: f"<{m.group(1)}{m.group(2)}{SIGIL}", text)
