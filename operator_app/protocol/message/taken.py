"""The text of a message the scanner has taken so far (sans-IO): its line count and its hash,
worked out only when asked for (a span reader's line, a block's key) or when enough has piled
up, so a chunk of prose costs a list append."""

from __future__ import annotations

import hashlib

from .. import grammar

ACCOUNT_EVERY = 1 << 16  # pieces taken before they are counted and hashed anyway (a bound)
TAIL = 12  # characters of the text taken kept at hand for what the next chunk starts with


class Taken:
    def __init__(self, first_line: int) -> None:
        # Cleared, never replaced: the scanner's fast path appends to this very list.
        self.pieces: list[str] = []  # taken, not yet counted and hashed
        self._at_line = first_line  # the line the first piece not yet counted is on
        self._accounted_tail = ""  # the last characters counted and hashed (TAIL of them)
        self._cr = False  # the last character counted was "\r" (maybe half of "\r\n")
        self._hash = hashlib.sha256()

    def take(self, piece: str) -> None:
        """`piece` is the message's next characters."""
        if piece:
            self.pieces.append(piece)
            if len(self.pieces) > ACCOUNT_EVERY:
                self.account()

    def tail(self, size: int) -> str:
        """The last `size` characters taken; at most TAIL."""
        pieces = self.pieces
        if pieces and len(pieces[-1]) >= size:  # the usual case: the last piece holds it
            return pieces[-1][-size:]
        tail = "".join(pieces[-size:]) if pieces else ""
        return (self._accounted_tail + tail)[-size:]

    def line(self) -> int:
        self.account()
        return self._at_line

    def key(self) -> str:
        """A hash of all the text taken, its line breaks made alike."""
        self.account()
        return self._hash.copy().hexdigest()

    def account(self) -> None:
        """Count the line breaks of the text taken since the last call and hash it, its line
        breaks made alike ("\r\n" and a lone "\r" hash as "\n")."""
        pieces = self.pieces
        if not pieces:
            return
        text = pieces[0] if len(pieces) == 1 else "".join(pieces)
        pieces.clear()
        self._accounted_tail = (self._accounted_tail + text[-TAIL:])[-TAIL:]
        breaks = text.count("\n")
        if "\r" in text or self._cr:
            breaks += text.count("\r") - text.count("\r\n")
            if self._cr and text[0] == "\n":  # the "\r" before it was counted as the break
                breaks -= 1
                text = text[1:]
            self._cr = text[-1:] == "\r" if text else self._cr
            text = grammar.with_lf_breaks(text)
        self._hash.update(text.encode("utf-8", "surrogatepass"))
        self._at_line += breaks
