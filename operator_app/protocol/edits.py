"""The fs.applyEdits payload: the JSON document edits_b64 decodes to, and its parsing into `Edit`
values. Part of the command format, so it lives with the protocol (pure: text in, values or an
ERR_INVALID_EDITS_JSON naming the edit and field out); the engine's textops/edits.py applies the
edits to a file's text."""

from __future__ import annotations

import json
from typing import Any, Literal

from msgspec import Struct

from .errors import ErrorCode, OperatorError

Op = Literal["insertAfter", "insertBefore", "replaceFirst", "replaceAll", "replaceRange"]
MAX_EDITS = 1000
_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # op -> (required, optional)
    "insertAfter": (("anchor", "text"), ("occurrence",)),
    "insertBefore": (("anchor", "text"), ("occurrence",)),
    "replaceFirst": (("find", "text"), ()),
    "replaceAll": (("find", "text"), ()),
    "replaceRange": (("startLine", "endLine", "text"), ()),
}


class Edit(Struct, frozen=True):
    op: Op
    text: str
    anchor: str | None = None
    occurrence: int = 1
    find: str | None = None
    start_line: int | None = None
    end_line: int | None = None


def _bad(message: str) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_INVALID_EDITS_JSON,
        (
            f"{message}; the format is "
            f'{{"version":1,"edits":[{{"op":"replaceFirst","find":"...","text":"..."}}, ...]}}'
        ),
    )


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def parse_edits(document: str) -> tuple[Edit, ...]:
    try:
        data = json.loads(document, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise _bad(
            f"edits_b64 is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise _bad("edits_b64 nests too deeply") from None
    except ValueError as exc:  # Python's cap on the digits of an integer (4300) is not JSON's
        raise _bad(
            f"edits_b64 holds a number Operator cannot read ({str(exc).split(':')[0]})"
        ) from None
    if not isinstance(data, dict):
        raise _bad(f"the document must be a JSON object, not {_json_kind(data)}")
    extra = sorted(set(data) - {"version", "edits"})
    if extra:
        raise _bad(f"unknown top-level key {extra[0]!r}")
    # not true, not 1.0: the number 1
    if type(data.get("version")) is not int or data["version"] != 1:
        raise _bad(f"version must be the number 1, got {json.dumps(data.get('version'))}")
    edits = data.get("edits")
    if not isinstance(edits, list) or not edits:
        got = (
            "it is missing"
            if "edits" not in data
            else f"got {'an empty array' if edits == [] else _json_kind(edits)}"
        )
        raise _bad(f"edits must be a non-empty array of edit objects; {got}")
    if len(edits) > MAX_EDITS:
        raise _bad(
            f"{len(edits)} edits is over the limit of {MAX_EDITS}; split them over several commands"
        )
    return tuple(_parse_one(index, item) for index, item in enumerate(edits))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose key repeats is refused: json.loads would keep the last value silently."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _bad(f"the key {json.dumps(key)} appears twice in one object")
        data[key] = value
    return data


def _no_constant(name: str) -> Any:
    raise _bad(f"{name} is not a JSON value")


def _no_lone_surrogate(value: str, where: str) -> None:
    """JSON's \\u escapes can name half of a UTF-16 pair alone ("\\ud800"): json.loads keeps it,
    but no file can hold it (it has no UTF-8 form)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        half = f"\\u{ord(value[exc.start]):04x}"
        raise _bad(
            f"{where} holds a lone surrogate {half} at character {exc.start + 1}, which is not a "
            "character; a character beyond \\uffff is escaped as both halves of its pair (e.g. "
            "\\ud83d\\ude00); fix the escape or write the character itself"
        ) from None


def _json_kind(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words (the model wrote JSON, not Python)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    kinds = {
        dict: "an object",
        list: "an array",
        str: "a string",
        int: "a number",
        float: "a number",
    }
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


def _parse_one(index: int, item: Any) -> Edit:
    where = f"edit #{index + 1} (edits[{index}])"
    if not isinstance(item, dict):
        raise _bad(f"{where} must be an object, not {_json_kind(item)}")
    op = item.get("op")
    if op not in _FIELDS:
        raise _bad(f"{where} has op {json.dumps(op)}; ops: {', '.join(_FIELDS)}")
    where = f"{where} ({op})"
    _check_keys(item, op, where)
    _check_texts(item, where)
    _check_numbers(item, where)
    if op == "replaceRange" and item["startLine"] > item["endLine"]:
        raise _bad(f"{where}: startLine {item['startLine']} is after endLine {item['endLine']}")
    return Edit(
        op=op,
        text=_normalise(item["text"]),
        anchor=_normalise(item["anchor"]) if "anchor" in item else None,
        occurrence=item.get("occurrence", 1),
        find=_normalise(item["find"]) if "find" in item else None,
        start_line=item.get("startLine"),
        end_line=item.get("endLine"),
    )


def _check_keys(item: dict[str, Any], op: str, where: str) -> None:
    """The edit has every field its op requires and none it does not take."""
    required, optional = _FIELDS[op]
    unknown = sorted(set(item) - set(required) - set(optional) - {"op"})
    if unknown:
        raise _bad(
            f"{where} does not take {unknown[0]!r}; it takes {', '.join(required + optional)}"
        )
    missing = [name for name in required if name not in item]
    if missing:
        raise _bad(f"{where} is missing {', '.join(missing)}")


def _check_texts(item: dict[str, Any], where: str) -> None:
    """Its texts are strings a file can hold, and an anchor or find text is not empty."""
    for name in ("anchor", "find", "text"):
        if name not in item:
            continue
        if not isinstance(item[name], str):
            raise _bad(f"{where}: {name} must be a string, not {_json_kind(item[name])}")
        _no_lone_surrogate(item[name], f"{where}: {name}")
    for name in ("anchor", "find"):
        if name in item and item[name] == "":
            raise _bad(f"{where}: {name} must not be empty")


def _check_numbers(item: dict[str, Any], where: str) -> None:
    for name in ("occurrence", "startLine", "endLine"):
        if name in item and not _whole(item[name]):
            raise _bad(f"{where}: {name} must be a whole number >= 1, got {json.dumps(item[name])}")
