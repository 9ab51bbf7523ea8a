"""The actions that write one file or entry with the person's consent: fs.write, fs.patch,
fs.applyEdits and fs.delete. Their payloads are decoded and checked here, so a write that cannot
be read is refused before anything is planned."""

# No "from __future__ import annotations": see base.py.

from typing import Any, Literal, Self

from pydantic import field_validator, model_validator

from ..codec import decode_b64_text
from ..errors import ErrorCode, OperatorError
from .base import FsCommand, spec_field


def _b64(value: str | None, field: str) -> str | None:
    return None if value is None else decode_b64_text(value, field=field)


class FsWrite(FsCommand):
    ACTION = "fs.write"
    ONE_OF = ("content_b64", "content")
    BRIEF = "a file created or replaced (content: one line only)"
    WRITES = True
    NOTES = (
        "Payload: content_b64 (preferred, base64 UTF-8, multi-line allowed) OR content "
        "(single-line only)",
        "Behavior: overwrites or creates the file (and its missing parent folders). An existing "
        "file keeps",
        "its line endings (LF/CRLF), BOM and final-newline state.",
        "If payload is missing, returns ERR_MISSING_WRITE_CONTENT.",
    )
    action: Literal["fs.write"]
    content_b64: str | None = spec_field(
        None, doc="base64 UTF-8 (preferred)", code=ErrorCode.ERR_MISSING_WRITE_CONTENT
    )
    content: str | None = spec_field(
        None, doc="single-line text only", code=ErrorCode.ERR_MISSING_WRITE_CONTENT
    )

    @field_validator("content_b64")
    @classmethod
    def _decode(cls, value: str | None) -> str | None:
        return _b64(value, "content_b64")

    @model_validator(mode="after")
    def _one_payload(self) -> Self:
        if self.content_b64 is None and self.content is None:
            raise OperatorError(
                ErrorCode.ERR_MISSING_WRITE_CONTENT,
                (
                    "fs.write needs content_b64 (base64 UTF-8, preferred) or content (one line of "
                    "text)"
                ),
            )
        if self.content_b64 is not None and self.content is not None:
            raise OperatorError(
                ErrorCode.ERR_DUPLICATE_FIELD,
                "give content_b64 or content, not both; keep content_b64",
            )
        return self

    @property
    def text(self) -> str:
        return self.content_b64 if self.content_b64 is not None else self.content or ""


class FsPatch(FsCommand):
    ACTION = "fs.patch"
    BRIEF = "a strict unified diff applied (context must match exactly)"
    WRITES = True
    NOTES = (
        "Behavior: strict unified diff for a single file; supports @@ -a,b +c,d @@ hunks; context "
        "must match exactly.",
        "Hunks apply at the lines their headers state (no fuzz); header counts must match the hunk "
        "bodies;",
        '"\\ No newline at end of file" is honoured; --- /dev/null creates a file that does not '
        "exist.",
        "All hunks apply or none. On a mismatch the error names the hunk and line and, when the "
        "hunk's lines",
        "match elsewhere, the corrected @@ header.",
    )
    action: Literal["fs.patch"]
    patch_b64: str = spec_field(
        doc="base64 UTF-8 unified diff", code=ErrorCode.ERR_MISSING_PATCH_B64
    )

    @field_validator("patch_b64")
    @classmethod
    def _decode(cls, value: str) -> str:
        if not value:
            raise OperatorError(
                ErrorCode.ERR_MISSING_PATCH_B64,
                "patch_b64 is empty; send the unified diff base64-encoded",
            )
        return decode_b64_text(value, field="patch_b64")


class FsApplyEdits(FsCommand):
    ACTION = "fs.applyEdits"
    BRIEF = "JSON edits applied in order, all or none"
    WRITES = True
    NOTES = (
        'Decoded JSON format: {"version":1,"edits":[...]}',
        "Edit objects (op): insertAfter, insertBefore, replaceFirst, replaceAll, replaceRange.",
        "For insert*: anchor (string), text (string), optional occurrence (number>=1).",
        "For replace*: find (string), text (string).",
        'For replaceRange: startLine (1-based), endLine (1-based), text (string); text "" deletes '
        "the lines.",
        "Behavior note: insertAfter inserts text right after the anchor text; if the anchor ends a "
        'line and text does not start with "\\n", Operator will prepend "\\n".',
        "Edits apply in order, each to the text the previous ones produced; but line numbers count "
        "the file as it was",
        "before the command (and in a message, as it was when the message began): a replaceRange "
        "whose lines an earlier",
        "edit or write moved or changed is refused with ERR_LINES_MOVED. Give line edits "
        "bottom-up, or as one edit.",
        "Strict semantics: first failure aborts and no changes are written (the error names the "
        "edit).",
    )
    action: Literal["fs.applyEdits"]
    edits_b64: Any = spec_field(doc="base64 UTF-8 JSON", code=ErrorCode.ERR_MISSING_EDITS_B64)

    @field_validator("edits_b64", mode="before")
    @classmethod
    def _decode(cls, value: str) -> Any:
        if not value:
            raise OperatorError(
                ErrorCode.ERR_MISSING_EDITS_B64,
                "edits_b64 is empty; send the edits JSON base64-encoded",
            )
        from ..edits import parse_edits

        return parse_edits(decode_b64_text(value, field="edits_b64"))


class FsDelete(FsCommand):
    ACTION = "fs.delete"
    BRIEF = "a file or folder moved to the trash"
    WRITES = True
    NOTES = (
        "Behavior: moves the file or folder to the trash (never a permanent delete); the workspace "
        "root is refused.",
    )
    action: Literal["fs.delete"]


MODELS = (FsWrite, FsPatch, FsApplyEdits, FsDelete)
