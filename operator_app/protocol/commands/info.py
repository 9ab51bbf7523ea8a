"""The actions about Operator itself, which take no path: operator.getInterfaceSpec and
operator.getCommentStyle."""

# No "from __future__ import annotations": see base.py.

from typing import Literal

from pydantic import field_validator

from ..errors import ErrorCode
from .base import Command, resolve_language, spec_field


class GetInterfaceSpec(Command):
    ACTION = "operator.getInterfaceSpec"
    BRIEF = "the full interface reference (all fields, limits and codes)"
    NOTES = ("Result: details_b64 contains this interface specification (base64 UTF-8)",)
    action: Literal["operator.getInterfaceSpec"]


class GetCommentStyle(Command):
    ACTION = "operator.getCommentStyle"
    BRIEF = "the comment styles regions use, as JSON"
    NOTES = (
        "Result: details_b64 contains JSON describing comment styles.",
        "If language is provided, the payload is a single style object:",
        '- {"language":"<id>","type":"line","line_prefix":"//"}',
        '- {"language":"<id>","type":"block","block_start":"<!--","block_end":"-->"}',
        'The "language" field uses the resolved mapping key (e.g., "ts" for "typescript").',
        'If language is omitted, returns {"styles":[...]} with all supported default mappings',
        "(each also lists its file extensions and aliases).",
    )
    action: Literal["operator.getCommentStyle"]
    language: str | None = spec_field(
        None,
        doc='language or alias (e.g., "ts", "python", "html")',
        code=ErrorCode.ERR_UNKNOWN_LANGUAGE,
    )

    _known_language = field_validator("language")(resolve_language)


MODELS = (GetInterfaceSpec, GetCommentStyle)
