"""Text from the model or from disk made safe to show: control characters written as the escapes
Python would print ("\\x1b", "\\u2028"), so that nothing in an id, a summary or a file name can
forge a line of a result block or reach a terminal as an escape sequence (ESC, CSI "\\x9b").

`escape_controls` is the one rule. What counts as a control: C0 (U+0000-U+001F), DEL, C1
(U+007F-U+009F), the line and paragraph separators U+2028 and U+2029, which many viewers
break lines on, and the bidirectional marks, embeddings, overrides and isolates (U+061C,
U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which reorder what a terminal shows (a name
"bidi<U+202E>gnp.exe" reads as "bidiexe.png"). Each caller says which of them it keeps, because
the places differ:

- a result's summary or id keeps tab (`escape_controls(text)`; protocol/results.py `one_line`
  first turns line breaks into spaces);
- a name or path in a one-line message escapes tab too (`escape_name`): "a<TAB>b" must not read
  as "a b", and a path holding one is refused for it (engine/boundary/workspace.py);
- the TUI keeps tab and newline, as it lays multi-line text out itself (tui/display.py
  `printable`);
- the text of a String response (a file's content, a listing) keeps tab and line feed
  (`escape_text`); the names in it are escaped whole first, so a name holding a line break can
  never add a line, let alone a tag.

A file's own lines shown in the TUI are not escaped but drawn with each control as a space, so
that the columns stay where the file has them (tui/display.py `screen_line`); the bidirectional
ones, which take no column, are written as escapes there too.

A script a command would run is shown to the person whole (`escape_hidden`): every control but
tab escaped, and the zero-width characters too (U+200B-U+200D, U+2060, U+FEFF), which hide
between letters as well as any control; the dialog says when one is there."""

from __future__ import annotations

import re
from functools import lru_cache

_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_CONTROLS = (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *_BIDI)
_ZERO_WIDTH = (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF)
BIDI_CHARACTERS = re.compile("[" + "".join(chr(code) for code in _BIDI) + "]")
_HIDDEN = re.compile(
    "[" + "".join(re.escape(chr(code)) for code in (*_CONTROLS, *_ZERO_WIDTH) if code != 0x09) + "]"
)


@lru_cache(maxsize=8)
def _controls_but(keep: str) -> re.Pattern[str]:
    """The controls other than those in `keep`, as one character class."""
    return re.compile(
        "[" + "".join(re.escape(chr(code)) for code in _CONTROLS if chr(code) not in keep) + "]"
    )


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, *, keep: str = "\t") -> str:
    """`text` with every control character not in `keep` written as an escape; cheap when there
    are none."""
    if text.isprintable():
        # Every control above is unprintable to Python (categories Cc, Cf, Zl, Zp): text that has
        # none needs no pattern, and a plain result never compiles one (a class of 80 characters,
        # some 3 M instructions of an `exec`'s start: docs/design.md, "Start-up").
        return text
    pattern = _controls_but(keep)
    return pattern.sub(_escaped, text) if pattern.search(text) else text


def escape_name(name: str) -> str:
    """A name or path from disk or from the model, for a one-line message: every control character
    escaped, tab too."""
    return escape_controls(name, keep="")


def escape_text(text: str) -> str:
    """Lines of text shown as they are but for their control characters: tab and line feed
    kept, everything else escaped (a carriage return too, which would draw over a line)."""
    return escape_controls(text, keep="\t\n")


def escape_bidi(text: str) -> str:
    """`text` with its bidirectional controls (and only those) written as escapes."""
    return BIDI_CHARACTERS.sub(_escaped, text) if BIDI_CHARACTERS.search(text) else text


def escape_hidden(line: str) -> tuple[str, bool]:
    """One line of a script as the person must read it: every character that does not show (a
    control but tab, a bidirectional or zero-width character) written as an escape; and whether
    there was one."""
    if _HIDDEN.search(line) is None:
        return line, False
    return _HIDDEN.sub(_escaped, line), True
