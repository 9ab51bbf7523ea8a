"""fs.applyEdits as pure text operations: `apply_edits` applies the edits (parsed from the
command's document by protocol/edits.py) in order, each to the text the previous ones produced,
and raises on the first one that cannot apply, so a caller writes all of them or nothing. Texts
use "\n" line breaks.

The text never grows past `max_chars` (a write's byte limit: a character is at least a byte):
a replaceAll is sized (occurrences x growth) before its string is built, every other edit
checked as it is applied, so a few KB of edits cannot build a gigabyte preview."""

from __future__ import annotations

import json
from collections.abc import Sequence

from msgspec import Struct

from ...protocol.edits import Edit
from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.grammar import WRITE_MAX_BYTES
from .hints import closest_hint
from .line_moves import Change, Step, carry, change_of_span


class EditsOutcome(Struct, frozen=True):
    text: str
    applied: int
    replacements: int


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
    return f'{json.dumps(needle[:limit])[:-1]}..." ({len(needle):,} characters)'


def _chars(n: int) -> str:
    return f"{n:,} character" + ("s" if n != 1 else "")


def _too_large(
    where: str, label: str, before: int, after: int, limit: int, how: str = ""
) -> OperatorError:
    return OperatorError(
        ErrorCode.ERR_FILE_TOO_LARGE,
        (
            f"{where}{how} would make {label} {after:,} characters long (it is {before:,} "
            f"before this edit), over the {limit:,}-byte limit of a file Operator writes; "
            "nothing was written; change fewer places or send a shorter text"
        ),
    )


def apply_edits(
    text: str, edits: Sequence[Edit], *, label: str, max_chars: int = WRITE_MAX_BYTES
) -> EditsOutcome:
    replacements = 0
    # Line numbers in one command count the file as it was before it (docs/design.md, "the
    # line-number rule"): what each edit did to the lines is kept when a later edit names lines.
    steps: list[Step] | None = [] if any(edit.op == "replaceRange" for edit in edits[1:]) else None
    for index, edit in enumerate(edits):
        where = f"edit #{index + 1} (edits[{index}], {edit.op})"
        before = len(text)
        if steps is not None and edit.op == "replaceRange":
            _check_lines_held(edit, steps, where)
        if edit.op in ("insertAfter", "insertBefore"):
            text = _insert(text, edit, where, label, steps)
        elif edit.op in ("replaceFirst", "replaceAll"):
            text, hits = _replace(text, edit, where, label, steps, max_chars)
            replacements += hits
        else:
            text = _replace_range(text, edit, where, label, steps)
        if len(text) > max_chars:  # one edit adds at most its own text: checked after it
            raise _too_large(where, label, before, len(text), max_chars)
    return EditsOutcome(text, len(edits), replacements)


def _insert(text: str, edit: Edit, where: str, label: str, steps: list[Step] | None) -> str:
    """insertBefore or insertAfter the occurrence of the anchor the edit names."""
    assert edit.anchor is not None
    pos = _anchor(text, edit, where, label)
    if edit.op == "insertBefore":
        at, insert = pos, edit.text
    else:
        at, insert = pos + len(edit.anchor), edit.text
        # The spec's rule: an anchor that ends a line gets its own line after it.
        if (at == len(text) or text[at] == "\n") and not insert.startswith("\n"):
            insert = "\n" + insert
    if steps is not None:
        steps.append((change_of_span(text, at, at, insert),))
    return text[:at] + insert + text[at:]


def _anchor(text: str, edit: Edit, where: str, label: str) -> int:
    """Where the occurrence of the anchor the edit names begins: ERR_ANCHOR_NOT_FOUND when the
    anchor is nowhere, ERR_INVALID_ANCHOR_OCCURRENCE when it occurs fewer times."""
    assert edit.anchor is not None
    pos, seen = _nth(text, edit.anchor, edit.occurrence)
    if pos >= 0:
        return pos
    if seen == 0:
        raise OperatorError(
            ErrorCode.ERR_ANCHOR_NOT_FOUND,
            (
                f"{where}: anchor {_quoted(edit.anchor)} not found in "
                f"{label}{closest_hint(text, edit.anchor)}; nothing was written"
            ),
        )
    raise OperatorError(
        ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE,
        (
            f"{where}: anchor {_quoted(edit.anchor)} occurs {seen} "
            f"time{'s' if seen != 1 else ''} in {label}; occurrence "
            f"{edit.occurrence} is out of range; nothing was written"
        ),
    )


def _replace(
    text: str, edit: Edit, where: str, label: str, steps: list[Step] | None, max_chars: int
) -> tuple[str, int]:
    """replaceFirst or replaceAll: the new text and how many places changed; ERR_EDIT_FAILED
    when the find text is nowhere."""
    assert edit.find is not None
    if edit.op == "replaceFirst":
        replaced, hits = _replace_first(text, edit.find, edit.text)
    else:
        replaced, hits = _replace_all(text, edit.find, edit.text, where, label, max_chars)
    if not hits:
        raise OperatorError(
            ErrorCode.ERR_EDIT_FAILED,
            (
                f"{where}: find text {_quoted(edit.find)} not found in "
                f"{label}{closest_hint(text, edit.find)}; nothing was written"
            ),
        )
    if steps is not None:
        steps.append(_found_changes(text, edit.find, edit.text, edit.op == "replaceAll"))
    return replaced, hits


def _replace_first(text: str, find: str, new: str) -> tuple[str, int]:
    # str.replace returns the very same object when nothing matched: one search and one copy
    # instead of a find and then a replace that searches again.
    replaced = text.replace(find, new, 1)
    found = replaced is not text or (find == new and find in text)
    return replaced, int(found)


def _replace_all(
    text: str, find: str, new: str, where: str, label: str, max_chars: int
) -> tuple[str, int]:
    hits = text.count(find)
    grown = len(text) + hits * (len(new) - len(find))
    if grown > max_chars:  # sized before the string is built
        raise _too_large(
            where,
            label,
            len(text),
            grown,
            max_chars,
            (
                f": replacing {hits:,} occurrence{'s' if hits != 1 else ''} "
                f"of {_chars(len(find))} with {_chars(len(new))}"
            ),
        )
    return (text.replace(find, new) if hits else text), hits


def _check_lines_held(edit: Edit, steps: list[Step], where: str) -> None:
    """ERR_LINES_MOVED when an earlier edit of the command moved the lines this one names, or
    changed lines inside them (its numbers count the file as it was before the command)."""
    assert edit.start_line is not None and edit.end_line is not None
    carried = carry(edit.start_line, edit.end_line, steps)
    if not carried.touched_by:
        return
    earlier = carried.touched_by[0] + 1
    raise OperatorError(
        ErrorCode.ERR_LINES_MOVED,
        (
            f"{where}: lines {edit.start_line}-{edit.end_line} count the file as it was before "
            f"this command, and edit #{earlier} moved them or changed lines inside them, so they "
            "no longer name the lines you read; nothing was written; give line edits of one file "
            "bottom-up (highest lines first) or as one edit, and send the command again with a "
            "new id"
        ),
    )


def _found_changes(text: str, find: str, new: str, every: bool) -> Step:
    """The line changes of replacing the first (or every) occurrence of `find` with `new`."""
    changes: list[Change] = []
    pos, line, counted_to = text.find(find), 0, 0
    while pos >= 0:
        line += text.count("\n", counted_to, pos)  # counted once over the text, not per hit
        counted_to = pos
        changes.append(change_of_span(text, pos, pos + len(find), new, start_line=line))
        if not every:
            break
        pos = text.find(find, pos + len(find))
    return tuple(changes)


def _replace_range(
    text: str, edit: Edit, where: str, label: str, steps: list[Step] | None = None
) -> str:
    assert edit.start_line is not None and edit.end_line is not None
    starts = _line_starts(text) if text else []
    total = len(starts)
    if edit.end_line > total:
        raise OperatorError(
            ErrorCode.ERR_EDIT_FAILED,
            (
                f"{where}: lines {edit.start_line}-{edit.end_line} are outside {label} "
                f"({total} line{'s' if total != 1 else ''}); nothing was written"
            ),
        )
    begin = starts[edit.start_line - 1]
    end = starts[edit.end_line] if edit.end_line < total else len(text)
    replaced_had_newline = text[begin:end].endswith("\n")
    new = edit.text
    if new and replaced_had_newline and not new.endswith("\n"):
        new += "\n"  # keep the following line on its own line
    if steps is not None:
        steps.append((change_of_span(text, begin, end, new),))
    return text[:begin] + new + text[end:]
