"""Content as models write it (pure): a String change whose whole content is one fenced code
block (```python ... ```, or ~~~, blank lines around it allowed) means the code inside the fence,
which is what a chat page keeps byte for byte when it renders an answer as Markdown; content that
holds fences among other text (a Markdown file's own) is the file's text, as sent.

Fences are read as CommonMark reads them: an opening fence is three or more backticks or tildes
indented at most three spaces, an info string after it (a backtick fence's without backticks);
the block ends at the first closing fence, of the same character, at least as long, indented at
most three spaces, with nothing after it but spaces. So a longer fence can wrap a shorter one (a
```` fence around a Markdown sample holding ``` lines), and the block must end on the content's
last line: a closing fence before it means more than one block, and no closing fence at all is
not one block either (CommonMark would run it to the end; here that is a guess, so the content is
written as sent). The opening fence's indentation is taken off the lines inside, as CommonMark
does."""

from __future__ import annotations

import re

from msgspec import Struct

_OPEN_RE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_CLOSE_RE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")


class Unfenced(Struct, frozen=True):
    text: str  # the lines inside the fence, each ending with "\n" ("" for an empty block)
    fence: str  # the opening fence line as written, trimmed ("```python"), for the answer's note


def unfence(content: str) -> Unfenced | None:
    """What is inside `content`'s fence when the whole of it (blank lines aside) is one fenced
    code block; None when it is anything else (it is then written as sent)."""
    lines = content.split("\n")
    first, last = 0, len(lines) - 1
    while first <= last and not lines[first].strip():
        first += 1
    while last > first and not lines[last].strip():
        last -= 1
    if last <= first:
        return None  # nothing, or one line: no room for a fence and its close
    opening = _OPEN_RE.fullmatch(lines[first])
    if opening is None:
        return None
    indent, mark, info = opening.groups()
    if mark[0] == "`" and "`" in info:
        return None  # an inline code span, not a fence (CommonMark)
    for index in range(first + 1, last + 1):
        closing = _CLOSE_RE.fullmatch(lines[index])
        if closing is not None and _closes(mark, closing.group(1)):
            if index != last:
                return None  # the block ends before the content does: text follows it
            inner = [_dedent(line, len(indent)) for line in lines[first + 1 : last]]
            text = "".join(line + "\n" for line in inner)
            return Unfenced(text, lines[first].strip())
    return None


def _closes(opening: str, candidate: str) -> bool:
    return candidate[0] == opening[0] and len(candidate) >= len(opening)


def _dedent(line: str, width: int) -> str:
    """`line` less up to `width` leading spaces (the opening fence's indentation)."""
    stripped = len(line) - len(line.lstrip(" "))
    return line[min(stripped, width) :]
