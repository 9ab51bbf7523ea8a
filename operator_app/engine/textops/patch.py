"""fs.patch: a strict unified diff for ONE file, parsed with `unidiff`, applied by `hunks`.

Contract of `apply_patch(original, patch_text, label=..., crlf=...)`:
- `original` is the file's text with "\\n" line breaks (a trailing "\\n" means it ends with a
  newline), or None when the file does not exist. `label` is the file's path, used in messages.
  `crlf` says the file's "\\r\\n" breaks were turned into "\\n" in `original` (a CRLF file), and
  `bom` that its byte order mark was removed: a BOM that a diff shows at the start of line 1 is
  then no part of that line (the file keeps its BOM).
- Patch lines end at "\\n". A "\\r" before it is the line's own: a diff of a CRLF or mixed file
  carries it, so it is compared and kept (a created file gets the patch's CRLF lines as they
  are), except that for a CRLF file it is the file's line break and is dropped. Only a patch whose
  every line ends with "\\r\\n" (converted as a whole on its way) or that has lone "\\r" breaks
  only is read as plain lines. Bare hunks (no ---/+++ lines) get synthetic headers. Header file
  names are not compared with `label`, except /dev/null.
- ERR_INVALID_PATCH: not exactly one file, no hunk, binary/rename/delete diffs, @@ counts that
  differ from the hunk bodies, stray lines after a hunk, hunks out of order or overlapping.
- ERR_PATCH_MISMATCH: a hunk's old lines differ from the file at the line its header states (no
  fuzz, no offset search), a "\\ No newline at end of file" claim the file contradicts, a creation
  patch for a file that exists, or a patch that is applied already (the file holds every hunk's
  new side where the patch puts it, so it would add its lines twice). The message gives the
  corrected header when the hunk's old lines sit elsewhere in the file.
- ERR_NOT_FOUND: the file does not exist and the patch does not create it.
All hunks apply or none: the function raises before returning anything.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from ...protocol.errors import ErrorCode, OperatorError
from .hunks import (
    Hunk,
    LineIndex,
    applies,
    apply_hunks,
    apply_in_place,
    check_order,
    lines_word,
    quote,
    reverse,
)
from .textfile import join_lines, lines_and_final_newline, split_lines

if TYPE_CHECKING:
    from unidiff.patch import Hunk as UnidiffHunk
    from unidiff.patch import Line, PatchedFile

DEV_NULL = "/dev/null"
_HUNK_HEADER_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"
# Lines that start a new file's section; they end a hunk body once its counts are met.
_SECTION_STARTS = ("diff ", "Index: ")
_REFUSED_INFO = {
    "rename from": (
        "renames the file; write the new path with fs.write and remove the old one with fs.delete"
    ),
    "rename to": (
        "renames the file; write the new path with fs.write and remove the old one with fs.delete"
    ),
    "copy from": "copies a file; write the copy with fs.write",
    "copy to": "copies a file; write the copy with fs.write",
    "deleted file mode": "deletes the file; deleting a file via patch is refused: use fs.delete",
}


class PatchOutcome(Struct, frozen=True):
    text: str  # the new file text, "\n" line breaks
    hunks: int
    added: int  # lines added
    removed: int  # lines removed
    created: bool  # the patch created the file (old side /dev/null)


def _invalid(message: str) -> OperatorError:
    return OperatorError(ErrorCode.ERR_INVALID_PATCH, message)


def _counts_mismatch(want: tuple[int, int], have: tuple[int, int]) -> str:
    if want[0] != have[0] and want[1] != have[1]:
        return (
            f"says {want[0]} old and {want[1]} new lines but "
            f"the body has {have[0]} old and {have[1]} new"
        )
    side, n = ("old", 0) if want[0] != have[0] else ("new", 1)
    return f"says {want[n]} {side} lines but the body has {have[n]}"


def _patch_lines(patch_text: str) -> list[str]:
    """The patch's lines, split on "\\n" only, each keeping a "\\r" before its "\\n": in a diff of
    a CRLF or mixed file that carriage return is content (see the module docstring)."""
    if "\n" not in patch_text:
        lines = patch_text.split("\r")  # lone-CR breaks (a terminal paste), or a single line
    else:
        lines = patch_text.split("\n")
        # Every line "\r\n": the patch as a whole went through a CRLF conversion on its way.
        if len(lines) > 1 and all(line.endswith("\r") for line in lines[:-1]):
            lines = [line.removesuffix("\r") for line in lines]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _scan(lines: list[str]) -> list[str]:
    """Check every hunk body against its header's counts (unidiff stops reading a hunk once the
    counts are met and silently drops what follows) and return the lines cleaned for unidiff:
    blank lines outside hunk bodies dropped, "\\ ..." markers in their canonical English form, and
    the "\\r" of lines outside hunk bodies (headers) dropped."""
    cleaned: list[str] = []
    number = 0
    i = 0
    while i < len(lines):
        match = _HUNK_HEADER_RE.match(lines[i])
        if not match:
            if lines[i].strip():
                cleaned.append(lines[i].removesuffix("\r"))
            i += 1
            continue
        number += 1
        wanted = (
            1 if match[2] is None else int(match[2]),
            1 if match[4] is None else int(match[4]),
        )
        cleaned.append(lines[i].removesuffix("\r"))
        i, counted, stray = _hunk_body(lines, i + 1, wanted, cleaned)
        if counted != wanted:
            where = ""
            if stray is not None:
                where = (
                    f" (it stops at patch line {stray + 1}, "
                    f"{quote(lines[stray])}, which is not a hunk line)"
                )
            raise _invalid(
                f"hunk {number} header {match[0]} "
                f"{_counts_mismatch(wanted, counted)}{where}; "
                "recount the lines (context and removed lines are old, "
                "context and added lines are new) or regenerate the diff"
            )
        if stray is not None:
            raise _invalid(
                f"patch line {stray + 1} ({quote(lines[stray])}) follows hunk "
                f"{number} but is not a diff line; every hunk line starts "
                'with " ", "+", "-" or "\\"; remove that line and resend'
            )
    return cleaned


def _hunk_body(
    lines: list[str], i: int, wanted: tuple[int, int], cleaned: list[str]
) -> tuple[int, tuple[int, int], int | None]:
    """Read one hunk's body from line `i`, appending it (cleaned) to `cleaned`: where the body
    ended, the (old, new) line counts it has, and the index of a line that is no hunk line, when
    that is what ended it."""
    want_old, want_new = wanted
    old = new = 0
    pending_blanks: list[str] = []  # blank lines seen once the counts were met
    while i < len(lines):
        line = lines[i]
        filled = old >= want_old and new >= want_new
        if _ends_hunk(lines, i, filled):
            break
        if line in ("", "\r"):
            # A blank context line whose leading space was stripped (by an editor or a mail
            # client), unless it trails the hunk: that is only known from what follows.
            if filled:
                pending_blanks.append(" " + line)
            else:
                old, new = old + 1, new + 1
                cleaned.append(" " + line)
            i += 1
            continue
        kind = line[:1]
        if kind not in (" ", "+", "-", "\\"):
            return i, (old, new), i
        if pending_blanks and kind != "\\":
            old, new = old + len(pending_blanks), new + len(pending_blanks)
            cleaned.extend(pending_blanks)
        pending_blanks = []
        old += kind in (" ", "-")
        new += kind in (" ", "+")
        cleaned.append(_NO_NEWLINE if kind == "\\" else line)
        i += 1
    return i, (old, new), None


def _ends_hunk(lines: list[str], i: int, filled: bool) -> bool:
    """Whether lines[i] ends a hunk body: the next hunk's header, a new file's section, or, once
    the body's counts are met (`filled`), a ---/+++ pair (a removed line may begin "-- ")."""
    line = lines[i]
    if _HUNK_HEADER_RE.match(line) or line.startswith(_SECTION_STARTS):
        return True
    return (
        filled
        and line.startswith("--- ")
        and i + 1 < len(lines)
        and lines[i + 1].startswith("+++ ")
    )


def _prepare(patch_text: str, label: str) -> str:
    lines = _patch_lines(patch_text)
    first_hunk = next((n for n, line in enumerate(lines) if _HUNK_HEADER_RE.match(line)), None)
    cleaned = _scan(lines)  # before any synthetic header, so patch line numbers stay the model's
    headed = any(line.startswith(("--- ", "+++ ", "diff --git ")) for line in lines[:first_hunk])
    if first_hunk is not None and not headed:
        # Models often send bare hunks; the command's path names the file anyway.
        at = next(n for n, line in enumerate(cleaned) if _HUNK_HEADER_RE.match(line))
        cleaned[at:at] = [f"--- a/{label}", f"+++ b/{label}"]
    return "\n".join(cleaned) + "\n"


def _refusal(patched: PatchedFile, label: str) -> str | None:
    if patched.is_binary_file:
        return (
            "the patch is a binary diff; fs.patch edits text "
            f"only: send the whole content of {label} with fs.write"
        )
    for line in patched.patch_info or ():
        for prefix, what in _REFUSED_INFO.items():
            if line.startswith(prefix):
                return f"the patch {what}"
    if patched.target_file == DEV_NULL:
        return (
            f"the patch deletes {label} (+++ /dev/null); "
            "deleting a file via patch is refused: use fs.delete"
        )
    return None


def _convert(patched: PatchedFile, crlf: bool) -> tuple[list[Hunk], int, int]:
    """Our hunks, and the counts of added and removed lines. With `crlf`, a line's trailing "\\r"
    is its CRLF line break and is dropped, unless the line has no break at all ("\\ No newline at
    end of file" follows it), where the "\\r" is the last character of the file."""
    hunks = [_hunk(number, raw, crlf) for number, raw in enumerate(patched, start=1)]
    kinds = [line.line_type for raw in patched for line in raw]
    return hunks, kinds.count("+"), kinds.count("-")


def _hunk(number: int, raw: UnidiffHunk, crlf: bool) -> Hunk:
    """Hunk `number` of the patch, from unidiff's."""
    old: list[str] = []
    new: list[str] = []
    old_end = new_end = False  # a side whose last line has no line break, as a marker said
    previous = ""
    body = list(raw)
    for k, line in enumerate(body):
        kind = line.line_type
        if kind == "":
            continue  # a blank line after the hunk, kept by unidiff
        if kind == "\\":
            old_end, new_end = _marker_ends(number, previous, old_end, new_end)
            continue
        if (old_end and kind in (" ", "-")) or (new_end and kind in (" ", "+")):
            raise _invalid(
                f'hunk {number} has lines after "{_NO_NEWLINE}" on the same side; that marker '
                "goes right after the file's last line"
            )
        value = _text(body, k, crlf)
        if kind != "+":
            old.append(value)
        if kind != "-":
            new.append(value)
        previous = kind
    return Hunk(
        number=number,
        old_start=raw.source_start,
        new_start=raw.target_start,
        old=tuple(old),
        new=tuple(new),
        old_no_newline=old_end,
        new_no_newline=new_end,
    )


def _marker_ends(number: int, previous: str, old_end: bool, new_end: bool) -> tuple[bool, bool]:
    """The sides whose last line has no line break once a "\\ No newline" marker follows a line
    of kind `previous`: its side or sides (a context line is both)."""
    if previous == "" or (old_end and new_end):
        raise _invalid(
            f'hunk {number} has a misplaced "{_NO_NEWLINE}"; '
            "it goes right after a file's last line"
        )
    return old_end or previous in (" ", "-"), new_end or previous in (" ", "+")


def _text(body: list[Line], k: int, crlf: bool) -> str:
    """Line k of a hunk's body without its line break ("\\r\\n" for a CRLF file, unless a marker
    after it says it has none: then its "\\r" is the file's last character)."""
    value = body[k].value
    value = value[:-1] if value.endswith("\n") else value
    unbroken = k + 1 < len(body) and body[k + 1].line_type == "\\"
    return value[:-1] if crlf and value.endswith("\r") and not unbroken else value


def _parse(patch_text: str, label: str, crlf: bool) -> tuple[list[Hunk], int, int, bool]:
    """The hunks, the added and removed line counts, and whether the old side is /dev/null."""
    from unidiff.errors import UnidiffParseError
    from unidiff.patch import PatchSet

    text = _prepare(patch_text, label)
    try:
        files = list(PatchSet(text))
    except (UnidiffParseError, ValueError) as exc:
        detail = str(exc).strip().replace("\n", " ")
        raise _invalid(
            "the patch does not parse as a unified diff: "
            f"{detail}; regenerate it with diff -u or git diff"
        ) from None
    if len(files) > 1:
        names = [f.path for f in files]
        if len(set(names)) == 1:
            raise _invalid(
                f"the patch has {len(files)} ---/+++ sections for "
                f"{names[0]}; put all its hunks under one header"
            )
        raise _invalid(
            f"patch touches {len(files)} files ({', '.join(names)}); send one fs.patch per file"
        )
    refusal = _refusal(files[0], label) if files else None
    if refusal:
        raise _invalid(refusal)
    if files and not len(files[0]) and files[0].source_file == DEV_NULL:
        # git writes a new empty file as a header with no hunk, which no diff can apply.
        raise _invalid(
            "the patch creates an empty file, which a diff has no "
            "hunk for; use fs.write with an empty content: line"
        )
    if not files or not len(files[0]):
        raise _invalid(
            "the patch has no hunk (no line like @@ -12,4 +12,5 @@); send "
            "a unified diff: --- a/<path>, +++ b/<path>, then @@ hunks"
        )
    hunks, added, removed = _convert(files[0], crlf)
    return hunks, added, removed, files[0].source_file == DEV_NULL


def _without_bom(hunks: list[Hunk]) -> list[Hunk]:
    """The hunks with the byte order mark dropped from the first line of the file, on either
    side: diff(1) and git show it as part of line 1, while `original` (like Operator's reads)
    has it removed and the write puts it back."""
    out = []
    for hunk in hunks:
        old, new = hunk.old, hunk.new
        if hunk.old_start == 1 and old and old[0].startswith("\ufeff"):
            old = (old[0][1:], *old[1:])
        if hunk.new_start == 1 and new and new[0].startswith("\ufeff"):
            new = (new[0][1:], *new[1:])
        out.append(replace(hunk, old=old, new=new))
    return out


def apply_patch(
    original: str | None, patch_text: str, *, label: str, crlf: bool = False, bom: bool = False
) -> PatchOutcome:
    """Apply a one-file unified diff to `original` (None: the file does not exist; `crlf`: a CRLF
    file whose breaks `original` has as "\\n"; `bom`: a file whose byte order mark `original`
    does not hold)."""
    hunks, added, removed, from_dev_null = _parse(patch_text, label, crlf and original is not None)
    if bom and original is not None:
        hunks = _without_bom(hunks)
    check_order(hunks)
    only = hunks[0]
    creates = len(hunks) == 1 and only.old_start == 0 and not only.old
    if from_dev_null and not creates:
        raise _invalid(
            "the patch creates the file (--- /dev/null), so "
            "it must be one hunk @@ -0,0 +1,N @@ of + lines"
        )
    if original is None:
        if not creates:
            raise OperatorError(
                ErrorCode.ERR_NOT_FOUND,
                (
                    f"{label} does not exist; a patch that creates "
                    "a file has --- /dev/null and @@ -0,0 +1,N @@"
                ),
            )
        return PatchOutcome(join_lines(only.new, not only.new_no_newline), 1, added, removed, True)
    # An existing empty file may take a plain -0,0 hunk: exactly its diff against the new text.
    if from_dev_null or (creates and original):
        why = "--- /dev/null" if from_dev_null else f"its only hunk is {only.header}"
        raise OperatorError(
            ErrorCode.ERR_PATCH_MISMATCH,
            (
                f"the patch creates {label} ({why}), but {label} already exists "
                f"({lines_word(len(split_lines(original)))}); patch it against "
                "its current content (read it with fs.readSlice) or use fs.write"
            ),
        )
    return PatchOutcome(_patched(original, hunks, label), len(hunks), added, removed, False)


def _patched(original: str, hunks: list[Hunk], label: str) -> str:
    """The text with every hunk applied, or ERR_PATCH_MISMATCH (saying so when the patch looks
    applied already)."""
    index = LineIndex(original)  # shared by the application and the applied-already check
    # the common case, without a list of every line
    patched = apply_in_place(original, hunks, index)
    if patched is None:
        patched = _patched_by_lines(original, hunks, index, label)
    # A patch whose hunks have no context after them (an append at the end, a -U0 insertion)
    # matches again once applied. When the file also holds every hunk's new lines where the patch
    # puts them, it is refused: most likely the same patch sent again (say, after a result was
    # lost), which would add the lines twice. GNU patch asks the same ("previously applied?").
    if patched != original and _looks_applied(index, hunks):
        raise OperatorError(
            ErrorCode.ERR_PATCH_MISMATCH,
            (
                f"{_already_applied(label, hunks)}; nothing was written; check with "
                "fs.readSlice, and to add these lines once more, send a patch whose "
                "context takes in the copy already there (or use fs.applyEdits)"
            ),
        )
    return patched


def _patched_by_lines(original: str, hunks: list[Hunk], index: LineIndex, label: str) -> str:
    """The text with every hunk applied to its list of lines (where a hunk's lines do not match
    in place, this is what says where and why)."""
    try:
        new_lines, ends_with_newline = apply_hunks(
            *lines_and_final_newline(original), hunks, label=label
        )
    except OperatorError as exc:
        if exc.code is ErrorCode.ERR_PATCH_MISMATCH and _looks_applied(index, hunks):
            raise OperatorError(
                exc.code, f"{_already_applied(label, hunks)}; {exc.message}", exc.context
            ) from None
        raise
    return join_lines(new_lines, ends_with_newline)


def _looks_applied(index: LineIndex, hunks: list[Hunk]) -> bool:
    """The file holds every hunk's new side where the patch puts it. Only asked when every hunk
    has a new side to find: a hunk that only deletes (no context) leaves nothing to look for."""
    return all(hunk.new for hunk in hunks) and applies(index.text, reverse(hunks), index)


def _already_applied(label: str, hunks: list[Hunk]) -> str:
    first = hunks[0]
    where = f"line {first.new_start}" if first.new else f"after line {first.new_start}"
    return (
        f"the patch looks applied already: {label} holds the new side "
        f"of every hunk where the patch puts it (hunk 1 at {where})"
    )
