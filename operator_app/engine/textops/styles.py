"""Which comment style a region command uses: its explicit overrides, else its language, else the
file's extension; with none of those, ERR_COMMENT_STYLE_REQUIRED."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol.comments import LANGUAGES, CommentStyle, language_for_path
from ...protocol.errors import ErrorCode, OperatorError

if TYPE_CHECKING:
    from ...protocol.commands.regions import CommentStyleFields


def style_for(cmd: CommentStyleFields, rel: str) -> CommentStyle:
    if cmd.comment_line_prefix is not None:
        return CommentStyle(kind="line", line_prefix=cmd.comment_line_prefix)
    if cmd.comment_block_start is not None and cmd.comment_block_end is not None:
        return CommentStyle(
            kind="block", block_start=cmd.comment_block_start, block_end=cmd.comment_block_end
        )
    language = cmd.language or language_for_path(rel)
    if language is None:
        raise OperatorError(
            ErrorCode.ERR_COMMENT_STYLE_REQUIRED,
            (
                f"no comment style is known for {rel}; pass language: <id> "
                "(see operator.getCommentStyle) or comment_line_prefix, "
                "or comment_block_start with comment_block_end"
            ),
        )
    return LANGUAGES[language]
