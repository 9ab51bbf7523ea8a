"""fs.applyEdits as pure text operations. `parse_edits` validates the decoded JSON document
(ERR_INVALID_EDITS_JSON, naming the edit and field); `apply_edits` applies the edits in order,
each to the text the previous ones produced, and raises on the first one that cannot apply, so
a caller writes all of them or nothing. Texts use "\n" line breaks.

The text never grows past `max_chars` (a write's byte limit: a character is at least a byte):
a replaceAll is sized (occurrences x growth) before its string is built, every other edit
checked as it is applied, so a few KB of edits cannot build a gigabyte preview."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.grammar import WRITE_MAX_BYTES
from .hints import closest_hint

Op = Literal["insertAfter", "insertBefore", "replaceFirst", "replaceAll", "replaceRange"]
MAX_EDITS = 1000
_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # op -> (required, optional)
    "insertAfter": (("anchor", "text"), ("occurrence",)),
    "insertBefore": (("anchor", "text"), ("occurrence",)),
    "replaceFirst": (("find", "text"), ()),
    "replaceAll": (("find", "text"), ()),
    "replaceRange": (("startLine", "endLine", "text"), ()),
}


@dataclass(frozen=True)
class Edit:
    op: Op
    text: str
    anchor: str | None = None
    occurrence: int = 1
    find: str | None = None
    start_line: int | None = None
    end_line: int | None = None


@dataclass(frozen=True)
class EditsOutcome:
    text: str
    applied: int
    replacements: int


def _bad(message: str) -> OperatorError:
    return OperatorError(ErrorCode.ERR_INVALID_EDITS_JSON, (
        f'{message}; the format is {{"version":1,"edits":[{{"op":"replaceFirst","find":"...","text":"..."}}, ...]}}'
    ))


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def parse_edits(document: str) -> tuple[Edit, ...]:
    try:
        data = json.loads(document, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise _bad(f"edits_b64 is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise _bad("edits_b64 nests too deeply") from None
    except ValueError as exc:  # Python's cap on the digits of an integer (4300) is not JSON's
        raise _bad(f"edits_b64 holds a number Operator cannot read ({str(exc).split(':')[0]})") from None
    if not isinstance(data, dict):
        raise _bad(f"the document must be a JSON object, not {_json_kind(data)}")
    extra = sorted(set(data) - {"version", "edits"})
    if extra:
        raise _bad(f"unknown top-level key {extra[0]!r}")
    if type(data.get("version")) is not int or data["version"] != 1:  # not true, not 1.0: the number 1
        raise _bad(f"version must be the number 1, got {json.dumps(data.get('version'))}")
    edits = data.get("edits")
    if not isinstance(edits, list) or not edits:
        got = "it is missing" if "edits" not in data else f"got {'an empty array' if edits == [] else _json_kind(edits)}"
        raise _bad(f"edits must be a non-empty array of edit objects; {got}")
    if len(edits) > MAX_EDITS:
        raise _bad(f"{len(edits)} edits is over the limit of {MAX_EDITS}; split them over several commands")
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
            f"{where} holds a lone surrogate {half} at character {exc.start + 1}, which is not a character; "
            "a character beyond \\uffff is escaped as both halves of its pair (e.g. \\ud83d\\ude00); fix the escape or "
            "write the character itself"
        ) from None


def _json_kind(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words (the model wrote JSON, not Python)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    kinds = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


def _parse_one(index: int, item: Any) -> Edit:
    where = f"edit #{index + 1} (edits[{index}])"
    if not isinstance(item, dict):
        raise _bad(f"{where} must be an object, not {_json_kind(item)}")
    op = item.get("op")
    if op not in _FIELDS:
        raise _bad(f"{where} has op {json.dumps(op)}; ops: {', '.join(_FIELDS)}")
    required, optional = _FIELDS[op]
    unknown = sorted(set(item) - set(required) - set(optional) - {"op"})
    if unknown:
        raise _bad(f"{where} ({op}) does not take {unknown[0]!r}; it takes {', '.join(required + optional)}")
    missing = [name for name in required if name not in item]
    if missing:
        raise _bad(f"{where} ({op}) is missing {', '.join(missing)}")
    for name in ("anchor", "find", "text"):
        if name in item and not isinstance(item[name], str):
            raise _bad(f"{where} ({op}): {name} must be a string, not {_json_kind(item[name])}")
        if name in item:
            _no_lone_surrogate(item[name], f"{where} ({op}): {name}")
    for name in ("anchor", "find"):
        if name in item and item[name] == "":
            raise _bad(f"{where} ({op}): {name} must not be empty")
    for name in ("occurrence", "startLine", "endLine"):
        if name in item and not _whole(item[name]):
            raise _bad(f"{where} ({op}): {name} must be a whole number >= 1, got {json.dumps(item[name])}")
    if op == "replaceRange" and item["startLine"] > item["endLine"]:
        raise _bad(f"{where} (replaceRange): startLine {item['startLine']} is after endLine {item['endLine']}")
    return Edit(
        op=op, text=_normalise(item["text"]),
        anchor=_normalise(item["anchor"]) if "anchor" in item else None,
        occurrence=item.get("occurrence", 1),
        find=_normalise(item["find"]) if "find" in item else None,
        start_line=item.get("startLine"), end_line=item.get("endLine"),
    )


def _nth(text: str, needle: str, n: int) -> tuple[int, int]:
    """(position of the n-th non-overlapping occurrence or -1, occurrences seen up to it)."""
    pos, seen = -1, 0
    start = 0
    while seen < n:
        pos = text.find(needle, start)
        if pos < 0:
            return -1, seen
        seen += 1
        start = pos + len(needle)
    return pos, seen


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final newline does not start another line
    return starts


def _quoted(needle: str, limit: int = 200) -> str:
    """The model's anchor or find text for a message: whole up to `limit` characters (the model
    has it; echoing 36 KB back costs a round trip's worth of context and says nothing more)."""
    if len(needle) <= limit:
        return json.dumps(needle)
    return f"{json.dumps(needle[:limit])[:-1]}...\" ({len(needle):,} characters)"


def _chars(n: int) -> str:
    return f"{n:,} character" + ("s" if n != 1 else "")


def _too_large(where: str, label: str, before: int, after: int, limit: int, how: str = "") -> OperatorError:
    return OperatorError(ErrorCode.ERR_FILE_TOO_LARGE, (
        f"{where}{how} would make {label} {after:,} characters long (it is {before:,} before this edit), over the "
        f"{limit:,}-byte limit of a file Operator writes; nothing was written; change fewer places or send a shorter text"
    ))


def apply_edits(text: str, edits: Sequence[Edit], *, label: str, max_chars: int = WRITE_MAX_BYTES) -> EditsOutcome:
    replacements = 0
    for index, edit in enumerate(edits):
        where = f"edit #{index + 1} (edits[{index}], {edit.op})"
        before = len(text)
        if edit.op in ("insertAfter", "insertBefore"):
            assert edit.anchor is not None
            pos, seen = _nth(text, edit.anchor, edit.occurrence)
            if pos < 0 and seen == 0:
                raise OperatorError(ErrorCode.ERR_ANCHOR_NOT_FOUND, (
                    f"{where}: anchor {_quoted(edit.anchor)} not found in {label}{closest_hint(text, edit.anchor)}; "
                    "nothing was written"
                ))
            if pos < 0:
                raise OperatorError(ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE, (
                    f"{where}: anchor {_quoted(edit.anchor)} occurs {seen} time{'s' if seen != 1 else ''} in {label}; "
                    f"occurrence {edit.occurrence} is out of range; nothing was written"
                ))
            if edit.op == "insertBefore":
                text = text[:pos] + edit.text + text[pos:]
            else:
                end = pos + len(edit.anchor)
                insert = edit.text
                # The spec's rule: an anchor that ends a line gets its own line after it.
                if (end == len(text) or text[end] == "\n") and not insert.startswith("\n"):
                    insert = "\n" + insert
                text = text[:end] + insert + text[end:]
        elif edit.op in ("replaceFirst", "replaceAll"):
            assert edit.find is not None
            if edit.op == "replaceFirst":
                # str.replace returns the very same object when nothing matched: one search and
                # one copy instead of a find and then a replace that searches again.
                replaced = text.replace(edit.find, edit.text, 1)
                found = replaced is not text or (edit.find == edit.text and edit.find in text)
            else:
                hits = text.count(edit.find)
                grown = len(text) + hits * (len(edit.text) - len(edit.find))
                if grown > max_chars:  # sized before the string is built
                    raise _too_large(where, label, before, grown, max_chars, (
                        f": replacing {hits:,} occurrence{'s' if hits != 1 else ''} of {_chars(len(edit.find))} with "
                        f"{_chars(len(edit.text))}"))
                replaced, found = (text.replace(edit.find, edit.text) if hits else text), hits > 0
            if not found:
                raise OperatorError(ErrorCode.ERR_EDIT_FAILED, (
                    f"{where}: find text {_quoted(edit.find)} not found in {label}{closest_hint(text, edit.find)}; "
                    "nothing was written"
                ))
            replacements += 1 if edit.op == "replaceFirst" else hits
            text = replaced
        else:
            text = _replace_range(text, edit, where, label)
        if len(text) > max_chars:  # one edit adds at most its own text: checked after it
            raise _too_large(where, label, before, len(text), max_chars)
    return EditsOutcome(text, len(edits), replacements)


def _replace_range(text: str, edit: Edit, where: str, label: str) -> str:
    assert edit.start_line is not None and edit.end_line is not None
    starts = _line_starts(text) if text else []
    total = len(starts)
    if edit.end_line > total:
        raise OperatorError(ErrorCode.ERR_EDIT_FAILED, (
            f"{where}: lines {edit.start_line}-{edit.end_line} are outside {label} ({total} line{'s' if total != 1 else ''}); "
            "nothing was written"
        ))
    begin = starts[edit.start_line - 1]
    end = starts[edit.end_line] if edit.end_line < total else len(text)
    replaced_had_newline = text[begin:end].endswith("\n")
    new = edit.text
    if new and replaced_had_newline and not new.endswith("\n"):
        new += "\n"  # keep the following line on its own line
    return text[:begin] + new + text[end:]
