"""The actions that take a second path, `path_to`: fs.copy, fs.move and fs.rename. Each moves or
copies a whole entry (a file, a folder with everything in it, or a symlink itself) to the new
path it names, with the person's consent; an existing file there is replaced only with
`overwrite: true` (and the person sees the diff of the file it replaces), a folder never.

fs.rename is the narrow one: the entry stays in its folder and only its name changes, so a
path_to in another folder is refused (fs.move is for that). fs.move goes anywhere in the
workspace and makes the missing folders on the way, as fs.write does; so does fs.copy."""

# No "from __future__ import annotations": see base.py.

from typing import Any, Literal

from pydantic import field_validator

from ..errors import ErrorCode, OperatorError
from .base import FsCommand, required, spec_field

_TRUE, _FALSE = "true", "false"


class TwoPathCommand(FsCommand):
    WRITES = True
    path_to: str = spec_field(
        doc="the new path itself, relative to the workspace root; not a folder to put the entry in",
        code=ErrorCode.ERR_MISSING_PATH_TO,
    )
    overwrite: bool = spec_field(
        False,
        doc="true|false (default false): replace an existing file at path_to",
        code=ErrorCode.ERR_INVALID_OVERWRITE,
    )

    _path_to = field_validator("path_to")(
        required(
            ErrorCode.ERR_MISSING_PATH_TO,
            "path_to is empty; give the new path, relative to the workspace root",
        )
    )

    @field_validator("overwrite", mode="before")
    @classmethod
    def _overwrite(cls, value: Any) -> bool:
        word = str(value).lower()
        if word not in (_TRUE, _FALSE):
            raise OperatorError(
                ErrorCode.ERR_INVALID_OVERWRITE, f"overwrite must be true or false, got {value!r}"
            )
        return word == _TRUE


COPY_MAX_BYTES = 1_000_000_000  # what fs.copy (or a move to another file system) copies at most
COPY_MAX_FILES = 20_000

_SHARED = (
    "Both paths are checked like any other (inside the workspace, no symlink leading out); a FIFO, "
    "socket or device",
    "is never copied, nor moved on its own (ERR_SPECIAL_FILE); path_to is never the entry or "
    "inside it (ERR_INVALID_PATH_TO).",
    "An existing file at path_to is refused (ERR_TARGET_EXISTS) unless overwrite: true, and then "
    "the person sees the",
    "diff of the file it replaces; a folder or symlink at path_to is never replaced.",
    "A relative symlink (the entry, or one inside the folder) that would lead outside the "
    "workspace from its new place",
    "is refused (ERR_SYMLINK_WOULD_ESCAPE); links that stay inside are carried as they are.",
)


class FsCopy(TwoPathCommand):
    ACTION = "fs.copy"
    BRIEF = "a file or folder copied to path_to (the new path itself)"
    NOTES = (
        "Behavior: copies the file, or the folder with everything in it, to path_to (symlinks "
        "inside are copied as",
        "symlinks; modes and modification times are kept); missing folders on the way to path_to "
        "are created.",
        f"At most {COPY_MAX_FILES} files and {COPY_MAX_BYTES} bytes are copied "
        "(ERR_FILE_TOO_LARGE).",
        *_SHARED,
    )
    action: Literal["fs.copy"]


class FsMove(TwoPathCommand):
    ACTION = "fs.move"
    BRIEF = "a file or folder moved to path_to"
    NOTES = (
        "Behavior: moves the file or folder (or symlink itself) to path_to, anywhere in the "
        "workspace; missing",
        "folders on the way to path_to are created. One rename where the file system allows; "
        "across file systems",
        "the entry is copied, synced to disk, and the original goes to the trash.",
        *_SHARED,
    )
    action: Literal["fs.move"]


class FsRename(TwoPathCommand):
    ACTION = "fs.rename"
    BRIEF = "a file or folder renamed in its folder (path_to: the new path, src/b.py)"
    NOTES = (
        "Behavior: gives the file or folder a new name in the same folder: path_to is the new "
        "path, in the folder",
        "of path (path: src/old.py, path_to: src/new.py); another folder is refused "
        "(ERR_INVALID_PATH_TO: use fs.move).",
        *_SHARED,
    )
    action: Literal["fs.rename"]


MODELS = (FsCopy, FsMove, FsRename)
