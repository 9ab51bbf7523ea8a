"""Bytes <-> text with the file's own conventions, so that an edit changes only what it means to.

`TextDoc.decode` accepts UTF-8 text only (NUL bytes in the first 8 KiB mean binary) and records
the newline style, BOM and final-newline state; `encode` puts them back, so
`TextDoc.decode(b).encode(TextDoc.decode(b).text) == b` for every text file `b`.

Lines end at "\n" only: "\f", "\v", U+2028 and the other characters str.splitlines() also breaks
on are text (docs/design.md, decision 13). `split_lines` and the helpers below it are the one way
the engine cuts a text into lines and joins them again.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from typing import Literal

from msgspec import Struct

from ...protocol.errors import ErrorCode, OperatorError

BOM = codecs.BOM_UTF8
BINARY_SNIFF_BYTES = 8192
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _decode(data: bytes, label: str) -> tuple[str, bool]:
    """(text without BOM, had BOM), or ERR_BINARY_FILE / ERR_NOT_UTF8."""
    if data.startswith(UTF16_BOMS):
        # Checked before the NUL test: UTF-16 text is full of NULs but is not binary, and saying
        # what it is tells the person what to convert.
        raise OperatorError(
            ErrorCode.ERR_NOT_UTF8,
            f"{label} is not valid UTF-8 (it starts with a UTF-16 byte order mark, offset 0); "
            "Operator reads and edits UTF-8 text only; ask the person to convert it to UTF-8",
        )
    nul = data.find(b"\x00", 0, BINARY_SNIFF_BYTES)
    if nul != -1:
        raise OperatorError(
            ErrorCode.ERR_BINARY_FILE,
            f"{label} holds binary data (a NUL byte at offset {nul}); "
            "Operator reads and edits text only; pick a text file",
        )
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    try:
        return body.decode("utf-8"), bom
    except UnicodeDecodeError as error:
        offset = error.start + (len(BOM) if bom else 0)
        raise OperatorError(
            ErrorCode.ERR_NOT_UTF8,
            f"{label} is not valid UTF-8 (byte 0x{data[offset]:02x} at offset {offset}); "
            "Operator reads and edits UTF-8 text only; ask the person to convert it to UTF-8",
        ) from None


def _is_crlf(text: str) -> bool:
    # "\r\r\n" would leave a "\r\n" inside the normalised text, which encode() could not tell
    # from a line break the model sent; such a file is treated as mixed, where "\r" is text.
    # the common LF file: a one-character test is a memchr; "\r\n" in is 70x slower
    if "\r" not in text:
        return False
    line_feeds = text.count("\n")
    return line_feeds > 0 and text.count("\r\n") == line_feeds and "\r\r\n" not in text


class TextDoc(Struct, frozen=True):
    text: str  # "\n" line breaks ("\r\n" -> "\n" for CRLF files), BOM removed
    newline: Literal["\n", "\r\n"]
    bom: bool
    final_newline: bool  # the original ends with a line break

    @classmethod
    def decode(cls, data: bytes, *, label: str) -> TextDoc:
        """`label` names the file in error messages (its workspace-relative path)."""
        text, bom = _decode(data, label)
        if _is_crlf(text):
            return cls(text.replace("\r\n", "\n"), "\r\n", bom, text.endswith("\n"))
        return cls(text, "\n", bom, text.endswith("\n"))

    def conform(self, text: str, *, keep_final_newline: bool = True) -> str:
        """`text` as this file will hold it, still with "\n" breaks: a stray "\r\n" of a CRLF
        file's edit normalised, and (with keep_final_newline) ending with a line break exactly
        when the original did (one break added or removed); an empty text stays empty."""
        if self.newline == "\r\n":
            text = text.replace("\r\n", "\n")
        if keep_final_newline and text:
            if self.final_newline and not text.endswith("\n"):
                text += "\n"
            elif not self.final_newline and text.endswith("\n"):
                text = text[:-1]
        return text

    def encode(self, text: str, *, keep_final_newline: bool = True) -> bytes:
        """`text` (with "\n" breaks) as bytes in this file's newline style and BOM (see conform)."""
        return self.encode_conformed(self.conform(text, keep_final_newline=keep_final_newline))

    def encode_conformed(self, text: str) -> bytes:
        if self.newline == "\r\n":
            text = text.replace("\n", "\r\n")
        return (BOM if self.bom else b"") + text.encode("utf-8")

    def line_count(self) -> int:
        """Lines as an editor counts them: "a\nb" and "a\nb\n" have 2, "" has 0."""
        return count_lines(self.text)


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def split_lines(text: str) -> list[str]:
    """Split on "\n" only: "a\nb\n" -> ["a", "b"], "a\n\n" -> ["a", ""], "" -> []."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def lines_and_final_newline(text: str) -> tuple[list[str], bool]:
    """`split_lines(text)` and whether the text ends with a line break (an empty text counts as
    ending with one: a line added to it gets its break). `join_lines` puts them back together."""
    return split_lines(text), not text or text.endswith("\n")


def join_lines(lines: Sequence[str], final_newline: bool) -> str:
    """The text of `lines`, with a final line break when `final_newline`; no lines: ""."""
    if not lines:
        return ""
    # A trailing "" item instead of `+ "\n"`, which would copy the whole text once more.
    return "\n".join([*lines, ""] if final_newline else lines)


def split_keepends(text: str) -> list[str]:
    """`split_lines(text)` with each line's "\n" kept (the last line has none when the text does
    not end with one): what difflib compares."""
    lines = [line + "\n" for line in split_lines(text)]
    if lines and not text.endswith("\n"):
        lines[-1] = lines[-1][:-1]
    return lines


def decode_text(data: bytes, *, label: str) -> str:
    """The file's text exactly as stored (line breaks untouched), BOM removed; checked as decode."""
    return _decode(data, label)[0]


def new_file_bytes(text: str) -> bytes:
    """Bytes for a file Operator creates: UTF-8, no BOM, line breaks as given."""
    return text.encode("utf-8")
