"""Strict base64 for *_b64 fields: single line, the spec's alphabet, correct padding, canonical,
UTF-8 inside. Invalid input is rejected with where it broke, never cleaned up."""

from __future__ import annotations

import base64
import binascii

from . import grammar
from .errors import ErrorCode, OperatorError

# Characters a message names in words; any other one is shown as its repr.
_CHAR_NAMES = {" ": "a space", "\t": "a tab"}


def _invalid(field: str, why: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_INVALID_BASE64,
        f"{field} {why}; re-encode the UTF-8 text as standard base64 on one line (A-Z a-z 0-9 + / "
        "and = padding)",
    )


def decode_b64_text(value: str, *, field: str) -> str:
    bad = grammar.BASE64_ALPHABET_RE.search(value)
    if bad:
        char = bad.group()
        shown = _CHAR_NAMES.get(char, repr(char))
        return _raise(
            field, f"has {shown} at position {bad.start() + 1}, outside the base64 alphabet"
        )
    if len(value) % 4:
        length = f"{len(value)} character{'' if len(value) == 1 else 's'}"
        return _raise(
            field, f"is {length} long, not a multiple of 4 (padding is wrong or a piece is missing)"
        )
    body = value.rstrip("=")
    if len(value) - len(body) > 2 or "=" in body:
        return _raise(field, "has '=' padding in the middle or more than two '=' at the end")
    try:
        raw = base64.b64decode(value, validate=True)
    except binascii.Error as exc:
        return _raise(field, f"does not decode ({exc})")
    if base64.b64encode(raw).decode("ascii") != value:
        return _raise(
            field,
            "is not canonical base64 (its last character carries stray bits; the payload was "
            "likely cut or altered)",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _raise(field, f"decodes to bytes that are not UTF-8 (byte {exc.start})")


def _raise(field: str, why: str) -> str:
    raise _invalid(field, why)


def encode_b64_text(text: str) -> str:
    # A file name that is not UTF-8 reaches us as lone surrogates; it must not crash a result.
    return base64.b64encode(text.encode("utf-8", errors="replace")).decode("ascii")
