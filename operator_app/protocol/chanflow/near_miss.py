"""Tags that were meant as ChanFlow tags but are not (pure): a look-alike of the sigil where 𝒞
(U+1D49E) goes, full-width brackets, an invisible character inside, a tag split over two lines,
the channel in capitals, a close tag with a space. reader.py finds the places where one
may stand (the sigil, or "=string" after a "<" and one character) and asks here; a tag read
this way opens a block that is answered with MALFORMED_TAG showing the exact form, instead of
being passed over in silence. Only called at those places, never on the hot path of prose."""

from __future__ import annotations

import re
import unicodedata

from msgspec import Struct

from . import grammar

TRIGGER = "=" + grammar.CHANNEL  # what a tag with a look-alike of the sigil still holds
# Zero-width and other invisible characters a tag may carry without a reader seeing them.
INVISIBLE = frozenset("\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\ufeff")
FULL_WIDTH = {"\uff1c": "<", "\uff1e": ">", "\uff0f": "/", "\uff1d": "="}
_HEAD_RE = re.compile(r"([A-Za-z0-9_.@-]+)(?::([^\s<>\U0001d49e]*))?")
_LOOK_BACK = 4  # characters before a trigger where the tag's "<" and sigil may stand


class TagMiss(Struct, frozen=True):
    start: int  # where the tag begins in the text
    end: int  # just past its ">"
    header: str  # channel and topic as meant ("string:file:main")
    close: str  # the close tag its block most likely ends with ("</C>" for a look-alike)
    problem: str  # what is wrong with it, for the answer


def described(ch: str) -> str:
    """A character as an answer names it: "C (U+0043 LATIN CAPITAL LETTER C)"."""
    name = unicodedata.name(ch, "")
    shown = ch if ch.isprintable() and ch not in INVISIBLE else ""
    return f"{shown} (U+{ord(ch):04X}{' ' + name if name else ''})".lstrip()


def _normal(text: str, start: int, stop: int) -> tuple[str, list[int], list[tuple[int, str]]]:
    """text[start:stop] without invisible characters and with full-width brackets made plain,
    where each kept character came from, and what was changed where (described)."""
    kept: list[str] = []
    places: list[int] = []
    changes: list[tuple[int, str]] = []
    for index in range(start, min(stop, len(text))):
        ch = text[index]
        if ch in INVISIBLE:
            changes.append((index, f"an invisible {described(ch)}"))
            continue
        if ch in FULL_WIDTH:
            changes.append((index, f"the full-width {described(ch)} for {FULL_WIDTH[ch]}"))
            ch = FULL_WIDTH[ch]
        kept.append(ch)
        places.append(index)
    return "".join(kept), places, changes


def plausible(before: str, after: str) -> bool:
    """A cheap first look: a near-miss tag has "<" just before its sigil (or look-alike) and "="
    just after; only then is the place read (open_miss), so prose that uses the sigil, or
    "=string", costs a few slices."""
    return ("<" in before or "\uff1c" in before) and ("=" in after or "\uff1d" in after)


def open_miss(text: str, at: int, *, ended: bool, lead: str = "") -> TagMiss | str | None:
    """The near-miss open tag around `at` (the sigil, or the "=" of "=string"), None when there is
    none, or "more" when the text ends before it can be told (feed more, or end the message).
    `lead`: the text taken just before `text` (a tag may begin there; `at` may be negative, the
    trigger itself begun there). Only a window of MAX_TAG_CHARS around `at` is read."""
    base = max(0, at - _LOOK_BACK)
    window = lead + text[base : at + grammar.MAX_TAG_CHARS]
    offset = base - len(lead)  # a window position plus this is a position in `text`
    pos = at - offset
    close_at = _tag_end(window, pos)
    if close_at is None:
        open_ended = not ended and at + grammar.MAX_TAG_CHARS >= len(text)
        return "more" if open_ended and _breaks(window, pos, len(window)) <= 2 else None
    if close_at < 0:
        return None
    parts = _tag_parts(window, pos, close_at)
    if parts is None:
        return None
    begin, end, problems, header, sigil = parts
    if not problems:
        return None  # the exact form: the scanner's own
    close = f"</{sigil}>" if sigil != grammar.SIGIL else grammar.CLOSE
    return TagMiss(begin + offset, end + offset, header, close, "; ".join(problems))


def _breaks(window: str, start: int, stop: int) -> int:
    return window.count("\n", start, stop) + window.count("\r", start, stop)


def _tag_end(window: str, pos: int) -> int | None:
    """Where the ">" (or its full-width look-alike) ending a tag at `pos` stands; None when the
    window has none within the tag's line and the next (more text may bring it), -1 when there
    can be no tag here (it spills over more lines, or another tag begins first)."""
    ends = [found for found in (window.find(">", pos), window.find("\uff1e", pos)) if found >= 0]
    if not ends:
        return None
    close_at = min(ends)
    if _breaks(window, pos, close_at) > 2:  # a tag is one line; a near miss may spill onto the next
        return -1
    if "<" in window[pos + 1 : close_at] or "\uff1c" in window[pos + 1 : close_at]:
        return -1  # another tag begins before this one would end
    return close_at


# A near-miss tag read: where it begins and ends in its window, what is wrong with it, the header
# it meant, and the sigil (or look-alike) it was written with.
_Parts = tuple[int, int, list[str], str, str]


def _tag_parts(window: str, pos: int, close_at: int) -> _Parts | None:
    """The tag ending at `close_at`, read with invisible characters left out and full-width
    brackets made plain: None when what stands there is no tag of String's channel."""
    normal, places, changes = _normal(window, 0, close_at + 1)
    lt = _last_open_bracket(normal, places, pos)
    if lt < 0:
        return None
    sigil, rest = normal[lt + 1 : lt + 2], normal[lt + 2 :]
    if not sigil or sigil in "<>/= \t\r\n":
        return None
    spaced = rest[: len(rest) - len(rest.lstrip(" \t"))]
    rest = rest.lstrip(" \t")
    gt = rest.find(">", 1)
    if not rest.startswith("=") or gt < 0:
        return None
    head = rest[1:gt]
    match = _HEAD_RE.fullmatch(re.sub(r"\s+", "", head))
    if match is None:
        return None
    channel, topic = match.group(1), match.group(2)
    if channel.lower() != grammar.CHANNEL:
        return None  # another channel's tag, or prose
    begin = places[lt]
    end = places[lt + 1 + len(sigil) + len(spaced) + gt] + 1
    problems = list(dict.fromkeys(what for index, what in changes if begin <= index < end))
    problems = _written_wrong(problems, sigil, spaced, head, channel)
    header = f"{grammar.CHANNEL}:{topic}" if topic is not None else grammar.CHANNEL
    return begin, end, problems, header, sigil


def _written_wrong(
    problems: list[str], sigil: str, spaced: str, head: str, channel: str
) -> list[str]:
    """What else is wrong with a tag besides characters changed in it: the sigil, a space before
    "=", a line break, the channel's case."""
    if sigil != grammar.SIGIL:
        problems.insert(0, f"{described(sigil)} where the sigil {described(grammar.SIGIL)} goes")
    if spaced:
        problems.append("a space before =")
    if "\n" in head or "\r" in head:
        problems.append("a line break inside it (a tag is one line)")
    if channel != grammar.CHANNEL:
        problems.append(f'the channel written "{channel}" (it is "{grammar.CHANNEL}", lower case)')
    return problems


def _line_end(text: str, start: int) -> int:
    newline, cr = text.find("\n", start), text.find("\r", start)
    if newline < 0 or (0 <= cr < newline):
        return cr
    return newline


def _last_open_bracket(normal: str, places: list[int], at: int) -> int:
    """The "<" a tag at `at` begins with: the last one before it, at most a few characters back."""
    found = -1
    for index, place in enumerate(places):
        if place >= at:
            break
        if normal[index] == "<" and place >= at - _LOOK_BACK:
            found = index
    return found


def close_miss(text: str, at: int) -> tuple[int, str] | str | None:
    """At `at` stands "</" and the sigil: where the close tag ends and what is wrong with it (a
    space or an invisible character before its ">"), None when it is text, "more" when the text
    ends before it can be told."""
    pos = at + len(grammar.CLOSE) - 1
    seen: list[str] = []
    while pos < len(text) and (text[pos] in " \t" or text[pos] in INVISIBLE):
        seen.append("a space" if text[pos] in " \t" else f"an invisible {described(text[pos])}")
        pos += 1
        if len(seen) > 8:
            return None
    if pos >= len(text):
        return "more"
    if text[pos] not in ">\uff1e":
        return None
    if text[pos] == "\uff1e":
        seen.append(f"the full-width {described(text[pos])} for >")
    return pos + 1, "; ".join(dict.fromkeys(seen)) + " before its >" if seen else ""


def exact_form(header: str | None) -> str:
    """The tag a malformed one meant, written exactly."""
    topic = header.partition(":")[2] if header and ":" in header else ""
    return f"<{grammar.SIGIL}={grammar.CHANNEL}:{topic or 'file:main'}>"
