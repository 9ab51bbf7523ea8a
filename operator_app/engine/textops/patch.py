"""fs.patch: a strict unified diff for one file, parsed with `unidiff` and applied by our own code.

Strict: every hunk applies exactly at the old line its header states, its context and removed
lines must equal the file's lines byte for byte, header counts must match the bodies, and
"\\ No newline at end of file" must agree with the file. All hunks apply or none (the function
raises before returning). Helpful: a mismatch names the hunk and line, shows expected and actual
lines, and when the hunk's old lines sit elsewhere in the file, gives the corrected header.
Texts use "\n" line breaks; a trailing "\n" means the file ends with a newline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ...protocol.errors import ErrorCode, OperatorError

_HUNK_HEADER_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"
MAX_SUGGESTIONS = 3


@dataclass(frozen=True)
class PatchOutcome:
    text: str
    hunks: int
    added: int
    removed: int
    created: bool


@dataclass
class _Hunk:
    number: int  # 1-based, for messages
    header: str
    old_start: int
    old: list[str]
    new: list[str]
    old_no_newline: bool
    new_no_newline: bool
    added: int
    removed: int


def _invalid(message: str) -> OperatorError:
    return OperatorError(ErrorCode.ERR_INVALID_PATCH, message + "; send a unified diff of one file (e.g. from diff -u or git diff)")


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], False
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def _prepare(patch_text: str, label: str) -> str:
    text = patch_text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not any(line.startswith("@@") for line in lines):
        raise _invalid("the patch has no @@ hunk")
    if not any(line.startswith("--- ") for line in lines):
        # Models often send bare hunks; the command's path names the file anyway.
        text = f"--- a/{label}\n+++ b/{label}\n" + text
    _check_counts(text.split("\n"))
    return text if text.endswith("\n") else text + "\n"


def _check_counts(lines: list[str]) -> None:
    """Compare each hunk header's counts with its body, for a message better than the parser's."""
    number = 0
    index = 0
    while index < len(lines):
        match = _HUNK_HEADER_RE.match(lines[index])
        if not match:
            index += 1
            continue
        number += 1
        old_want = 1 if match.group(2) is None else int(match.group(2))
        new_want = 1 if match.group(4) is None else int(match.group(4))
        old_seen = new_seen = 0
        index += 1
        while index < len(lines) and (old_seen < old_want or new_seen < new_want):
            line = lines[index]
            if line.startswith(("@@", "--- ", "+++ ", "diff ")):
                break
            kind = line[:1]
            if kind in (" ", ""):
                old_seen += 1
                new_seen += 1
            elif kind == "-":
                old_seen += 1
            elif kind == "+":
                new_seen += 1
            elif kind != "\\":
                break
            index += 1
        extra = 0
        while index < len(lines) and lines[index][:1] in ("+", "-", " ") and not lines[index].startswith(("--- ", "+++ ")):
            extra += 1
            index += 1
        if old_seen != old_want or new_seen != new_want or extra:
            body_old, body_new = old_seen, new_seen
            if extra:
                body_old = f"at least {old_seen + 1}"  # type: ignore[assignment]
            raise _invalid(
                f"hunk {number} header {match.group(0)} says {old_want} old and {new_want} new lines but the body has "
                f"{body_old} old and {body_new} new; recount the lines (context and removed lines are old, context and added "
                "lines are new) or regenerate the diff"
            )


def _parse(patch_text: str, label: str) -> tuple[list[_Hunk], bool]:
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    text = _prepare(patch_text, label)
    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        raise _invalid(f"the patch does not parse ({exc})") from None
    files = list(patch)
    if len(files) != 1:
        names = ", ".join(f.path for f in files) or "none"
        raise _invalid(f"the patch touches {len(files)} files ({names}); send one fs.patch per file")
    patched = files[0]
    if patched.is_binary_file:
        raise _invalid("the patch is a binary diff")
    if patched.is_removed_file or patched.target_file == "/dev/null":
        raise _invalid("the patch deletes the file; use fs.delete to delete it")
    if patched.is_rename:
        raise _invalid("the patch renames the file; write the new file and delete the old one instead")
    if not len(patched):
        raise _invalid("the patch has no @@ hunk")
    creates = patched.source_file == "/dev/null"
    hunks: list[_Hunk] = []
    for number, hunk in enumerate(patched, start=1):
        old: list[str] = []
        new: list[str] = []
        old_nn = new_nn = False
        previous = ""
        for line in hunk:
            value = line.value[:-1] if line.value.endswith("\n") else line.value
            kind = line.line_type
            if kind == "\\":
                old_nn |= previous in (" ", "-")
                new_nn |= previous in (" ", "+")
                continue
            if kind in (" ", "-"):
                old.append(value)
            if kind in (" ", "+"):
                new.append(value)
            previous = kind
        header = f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@"
        hunks.append(_Hunk(number, header, hunk.source_start, old, new, old_nn, new_nn, hunk.added, hunk.removed))
    return hunks, creates


def apply_patch(original: str | None, patch_text: str, *, label: str) -> PatchOutcome:
    hunks, creates = _parse(patch_text, label)
    added = sum(h.added for h in hunks)
    removed = sum(h.removed for h in hunks)
    if original is None:
        if not creates and not all(h.old_start == 0 and not h.old for h in hunks):
            raise OperatorError(ErrorCode.ERR_NOT_FOUND, (
                f"{label} does not exist; a patch that creates a file has --- /dev/null and @@ -0,0 +1,N @@"
            ))
        lines = [line for h in hunks for line in h.new]
        final = not hunks[-1].new_no_newline if hunks else True
        return PatchOutcome("\n".join(lines) + ("\n" if final and lines else ""), len(hunks), added, removed, True)
    if creates:
        raise OperatorError(ErrorCode.ERR_PATCH_MISMATCH, (
            f"the patch creates {label} (--- /dev/null) but it already exists; patch it against its current content "
            "(read it first) or use fs.write"
        ))
    file_lines, final_newline = _split(original)
    out: list[str] = []
    cursor = 0
    delta = 0
    for hunk in hunks:
        start = hunk.old_start - 1 if hunk.old else hunk.old_start
        if start < cursor:
            raise _invalid(f"hunk {hunk.number} ({hunk.header}) starts before the end of the previous hunk; order hunks by line")
        end = start + len(hunk.old)
        if end > len(file_lines) or start > len(file_lines):
            raise OperatorError(ErrorCode.ERR_PATCH_MISMATCH, (
                f"hunk {hunk.number} ({hunk.header}) reaches past the end of {label}, which has {len(file_lines)} "
                f"line{'s' if len(file_lines) != 1 else ''}{_elsewhere(file_lines, hunk, delta)}; read the file again and resend"
            ), _context(file_lines, hunk, start))
        for offset, expected in enumerate(hunk.old):
            actual = file_lines[start + offset]
            if actual != expected:
                raise OperatorError(ErrorCode.ERR_PATCH_MISMATCH, (
                    f"hunk {hunk.number} ({hunk.header}) does not match {label} at line {start + offset + 1}: expected "
                    f"{json.dumps(expected)}, found {json.dumps(actual)}{_elsewhere(file_lines, hunk, delta)}; "
                    "read the lines again with fs.readSlice and resend the patch"
                ), _context(file_lines, hunk, start))
        at_end = end == len(file_lines)
        if at_end and hunk.old and hunk.old_no_newline == final_newline:
            state = "has no newline at its end" if not final_newline else "ends with a newline"
            claim = "claims" if hunk.old_no_newline else "does not say"
            raise OperatorError(ErrorCode.ERR_PATCH_MISMATCH, (
                f"hunk {hunk.number} ({hunk.header}): {label} {state}, but the patch {claim} "
                '"\\ No newline at end of file" after its last old line; regenerate the diff against the file as it is'
            ))
        out.extend(file_lines[cursor:start])
        out.extend(hunk.new)
        cursor = end
        delta += len(hunk.new) - len(hunk.old)
        if at_end:
            final_newline = not hunk.new_no_newline
    out.extend(file_lines[cursor:])
    text = "\n".join(out) + ("\n" if final_newline and out else "")
    return PatchOutcome(text, len(hunks), added, removed, False)


def _elsewhere(file_lines: list[str], hunk: _Hunk, delta: int) -> str:
    """Where the hunk's old lines match exactly, as a corrected header (linear: candidates are
    the places holding the hunk's first old line)."""
    if not hunk.old:
        return ""
    first = hunk.old[0]
    places = []
    for index, line in enumerate(file_lines):
        if line == first and file_lines[index : index + len(hunk.old)] == hunk.old:
            places.append(index + 1)
            if len(places) > MAX_SUGGESTIONS:
                break
    if not places:
        return ""
    shown = places[:MAX_SUGGESTIONS]
    headers = ", ".join(f"line {p}: use @@ -{p},{len(hunk.old)} +{p + delta},{len(hunk.new)} @@" for p in shown)
    more = " (and more)" if len(places) > MAX_SUGGESTIONS else ""
    return f"; the hunk's lines match at {headers}{more}"


def _context(file_lines: list[str], hunk: _Hunk, start: int) -> str:
    width = max(len(hunk.old), 1)
    expected = "\n".join(f"  {line}" for line in hunk.old[:12]) or "  (nothing)"
    lo = max(0, min(start, len(file_lines)))
    actual = "\n".join(f"{n + 1}: {file_lines[n]}" for n in range(lo, min(len(file_lines), lo + min(width, 12))))
    return f"hunk {hunk.number} {hunk.header} expected these old lines:\n{expected}\nthe file has, from line {lo + 1}:\n{actual or '  (end of file)'}"
