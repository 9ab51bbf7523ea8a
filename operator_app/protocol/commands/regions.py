"""The actions on comment-marked regions of a file, and the comment-style fields they share (an
explicit style, or a language, else the file's extension decides): fs.listRegions and
fs.readRegion read; fs.insertRegion, fs.replaceRegion and fs.deleteRegion write."""

# No "from __future__ import annotations": see base.py.

import re
from typing import Any, Literal, Self

from pydantic import field_validator, model_validator

from ..errors import ErrorCode, OperatorError
from .base import FsCommand, decode_content, required, resolve_language, spec_field, whole_number

_MARKER_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")


class CommentStyleFields(FsCommand):
    comment_line_prefix: str | None = spec_field(
        None, doc='line comment prefix (e.g. "//" or "#")', code=ErrorCode.ERR_INVALID_COMMENT_STYLE
    )
    comment_block_start: str | None = spec_field(
        None,
        doc='block comment start (e.g. "/*" or "<!--")',
        code=ErrorCode.ERR_INVALID_COMMENT_STYLE,
    )
    comment_block_end: str | None = spec_field(
        None, doc='block comment end (e.g. "*/" or "-->")', code=ErrorCode.ERR_INVALID_COMMENT_STYLE
    )
    language: str | None = spec_field(
        None,
        doc="explicit mapping key, see operator.getCommentStyle",
        code=ErrorCode.ERR_UNKNOWN_LANGUAGE,
    )

    _known_language = field_validator("language")(resolve_language)

    @model_validator(mode="after")
    def _one_style(self) -> Self:
        line = self.comment_line_prefix is not None
        start, end = self.comment_block_start is not None, self.comment_block_end is not None
        given = [
            name
            for name, on in (
                ("comment_line_prefix", line),
                ("comment_block_start", start),
                ("comment_block_end", end),
                ("language", self.language is not None),
            )
            if on
        ]
        hint = (
            "give comment_line_prefix, or comment_block_start with comment_block_end, or language"
        )
        if start != end:
            raise OperatorError(
                ErrorCode.ERR_INVALID_COMMENT_STYLE, f"{given[0]} given without its partner; {hint}"
            )
        if (line and start) or (self.language is not None and (line or start)):
            raise OperatorError(
                ErrorCode.ERR_INVALID_COMMENT_STYLE, f"{', '.join(given)} given together; {hint}"
            )
        for name in ("comment_line_prefix", "comment_block_start", "comment_block_end"):
            value = getattr(self, name)
            if value is not None and (not value or "OPERATOR_" in value):
                raise OperatorError(
                    ErrorCode.ERR_INVALID_COMMENT_STYLE,
                    f"{name} {value!r} is not a usable comment delimiter; {hint}",
                )
        return self


class MarkerFields(CommentStyleFields):
    marker_id: str = spec_field(
        doc="region id (A-Z a-z 0-9 _ . -)", code=ErrorCode.ERR_MISSING_MARKER_ID
    )

    @field_validator("marker_id")
    @classmethod
    def _marker_id(cls, value: str) -> str:
        if not value:
            raise OperatorError(
                ErrorCode.ERR_MISSING_MARKER_ID,
                "marker_id is empty; name the region, e.g. marker_id: setup",
            )
        if not _MARKER_ID_RE.fullmatch(value):
            fixed = re.sub(r"[^A-Za-z0-9_.-]+", "-", value).strip("-")[:100]
            example = f", e.g. marker_id: {fixed}" if fixed else ""
            raise OperatorError(
                ErrorCode.ERR_INVALID_MARKER_ID,
                (
                    f"marker_id {value!r} may only use A-Z a-z 0-9 _ . - (at most 100 "
                    f"characters){example}"
                ),
            )
        return value


class FsListRegions(CommentStyleFields):
    ACTION = "fs.listRegions"
    BRIEF = "the regions of a file, as JSON"
    NOTES = (
        'Result: details_b64 contains JSON object {"regions":[...]}, one object per region in file '
        "order:",
        '{"marker_id","start_line","end_line","content_start_line","content_end_line",'
        '"content_lines"}; start_line and end_line',
        "are the marker lines, content_* the lines between them (an empty region has "
        "content_lines 0 and",
        'content_end_line = start_line). "problems" lists unpaired or overlapping markers when '
        "there are any.",
        "Like a read, the details hold at most 200,000 bytes: past that, the first regions are "
        "listed, the",
        "summary says how many were left out, and readRegion or fs.search reach the rest.",
    )
    action: Literal["fs.listRegions"]


class FsReadRegion(MarkerFields):
    ACTION = "fs.readRegion"
    BRIEF = "the content of a region"
    NOTES = (
        "Result: details_b64 contains the content between markers (base64 UTF-8), as it stands "
        "(empty for an empty region)",
        "A region over 200000 bytes is ERR_FILE_TOO_LARGE, as for fs.read; the message gives its "
        "lines for fs.readSlice.",
    )
    action: Literal["fs.readRegion"]


class FsInsertRegion(MarkerFields):
    ACTION = "fs.insertRegion"
    BRIEF = "a new region before or after the line holding anchor"
    WRITES = True
    NOTES = (
        "Behavior: inserts a new marker block before or after the line holding the occurrence-th",
        "occurrence of anchor and writes content between markers; the markers take that line's "
        "indentation.",
        "The content is written as given, not re-indented: give each line the indentation it "
        "needs.",
    )
    action: Literal["fs.insertRegion"]
    anchor: str = spec_field(
        doc="text on the line to insert next to", code=ErrorCode.ERR_MISSING_ANCHOR
    )
    content_b64: str = spec_field(doc="base64 UTF-8", code=ErrorCode.ERR_MISSING_CONTENT_B64)
    position: Literal["before", "after"] = spec_field(
        "after", doc="before|after (default after)", code=ErrorCode.ERR_INVALID_INSERT_POSITION
    )
    occurrence: int = spec_field(
        1, doc="<number> (default 1)", code=ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE
    )

    _anchor = field_validator("anchor")(
        required(
            ErrorCode.ERR_MISSING_ANCHOR,
            "anchor is empty; give text that appears on the line to insert next to",
        )
    )

    _content = field_validator("content_b64")(decode_content)

    @field_validator("position", mode="before")
    @classmethod
    def _position(cls, value: Any) -> str:
        if value not in ("before", "after"):
            raise OperatorError(
                ErrorCode.ERR_INVALID_INSERT_POSITION,
                f"position must be before or after, got {value!r}",
            )
        return str(value)

    @field_validator("occurrence", mode="before")
    @classmethod
    def _occurrence(cls, value: Any) -> int:
        return whole_number(
            str(value), field="occurrence", code=ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE
        )


class FsReplaceRegion(MarkerFields):
    ACTION = "fs.replaceRegion"
    BRIEF = "a region's content replaced (written as given, not re-indented)"
    WRITES = True
    NOTES = (
        "Behavior: replaces lines between markers, preserves the marker lines",
        "The content is written as given, not re-indented: give each line the indentation it "
        "needs.",
    )
    action: Literal["fs.replaceRegion"]
    content_b64: str = spec_field(doc="base64 UTF-8", code=ErrorCode.ERR_MISSING_CONTENT_B64)

    _content = field_validator("content_b64")(decode_content)


class FsDeleteRegion(MarkerFields):
    ACTION = "fs.deleteRegion"
    BRIEF = "a region emptied, its markers kept"
    WRITES = True
    NOTES = ("Behavior: removes lines between markers, preserves the marker lines",)
    action: Literal["fs.deleteRegion"]


MODELS = (FsListRegions, FsReadRegion, FsInsertRegion, FsReplaceRegion, FsDeleteRegion)
