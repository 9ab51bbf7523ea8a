"""Every error code Operator can emit, and the one error type that carries them.

Errors are values: an `OperatorError` holds a stable ERR code, a message written for the model
(what happened, then what to do), and optional multi-line context that goes into details_b64.
The spec text lists these codes from `ERROR_CATALOG`, so a code cannot exist without a sentence
telling the model how to react to it.
"""

from __future__ import annotations

from enum import StrEnum

from msgspec import Struct


class ErrorCode(StrEnum):
    # Core errors (spec: "Core errors").
    ERR_MARKER_NOT_ALONE = "ERR_MARKER_NOT_ALONE"
    ERR_MISSING_END_MARKER = "ERR_MISSING_END_MARKER"
    ERR_NESTED_BLOCK = "ERR_NESTED_BLOCK"
    ERR_NON_KEY_VALUE_LINE = "ERR_NON_KEY_VALUE_LINE"
    ERR_EMPTY_LINE_IN_CMD = "ERR_EMPTY_LINE_IN_CMD"
    ERR_NON_ASCII_IN_CMD = "ERR_NON_ASCII_IN_CMD"
    ERR_MISSING_REQUIRED_FIELDS = "ERR_MISSING_REQUIRED_FIELDS"
    ERR_ACTION_REQUIRES_PATH = "ERR_ACTION_REQUIRES_PATH"
    ERR_ACTION_FORBIDS_PATH = "ERR_ACTION_FORBIDS_PATH"
    ERR_CONTENT_HAS_NEWLINES = "ERR_CONTENT_HAS_NEWLINES"
    ERR_INVALID_BASE64 = "ERR_INVALID_BASE64"
    ERR_SEARCH_PATH_IS_DIR = "ERR_SEARCH_PATH_IS_DIR"
    # Additional validation errors (spec: "Additional validation errors").
    ERR_MISSING_QUERY = "ERR_MISSING_QUERY"
    ERR_INVALID_READSLICE_PARAMS = "ERR_INVALID_READSLICE_PARAMS"
    ERR_MISSING_EDITS_B64 = "ERR_MISSING_EDITS_B64"
    ERR_MISSING_PATCH_B64 = "ERR_MISSING_PATCH_B64"
    ERR_INVALID_EDITS_JSON = "ERR_INVALID_EDITS_JSON"
    ERR_UNKNOWN_ACTION = "ERR_UNKNOWN_ACTION"
    ERR_RESERVED_ACTION = "ERR_RESERVED_ACTION"
    ERR_DUPLICATE_ID = "ERR_DUPLICATE_ID"
    ERR_BLOCK_TOO_LARGE = "ERR_BLOCK_TOO_LARGE"
    ERR_UNSUPPORTED_VERSION = "ERR_UNSUPPORTED_VERSION"
    ERR_FILE_TOO_LARGE = "ERR_FILE_TOO_LARGE"
    ERR_MISSING_MARKER_ID = "ERR_MISSING_MARKER_ID"
    ERR_MISSING_CONTENT_B64 = "ERR_MISSING_CONTENT_B64"
    ERR_MISSING_WRITE_CONTENT = "ERR_MISSING_WRITE_CONTENT"
    ERR_UNKNOWN_LANGUAGE = "ERR_UNKNOWN_LANGUAGE"
    ERR_COMMENT_STYLE_REQUIRED = "ERR_COMMENT_STYLE_REQUIRED"
    ERR_INVALID_COMMENT_STYLE = "ERR_INVALID_COMMENT_STYLE"
    ERR_REGION_MARKER_NOT_FOUND = "ERR_REGION_MARKER_NOT_FOUND"
    ERR_REGION_MARKER_NOT_UNIQUE = "ERR_REGION_MARKER_NOT_UNIQUE"
    ERR_REGION_MARKER_ORDER = "ERR_REGION_MARKER_ORDER"
    ERR_REGION_MARKER_MISMATCH = "ERR_REGION_MARKER_MISMATCH"
    ERR_REGION_MARKER_ALREADY_EXISTS = "ERR_REGION_MARKER_ALREADY_EXISTS"
    ERR_MISSING_ANCHOR = "ERR_MISSING_ANCHOR"
    ERR_ANCHOR_NOT_FOUND = "ERR_ANCHOR_NOT_FOUND"
    ERR_INVALID_ANCHOR_OCCURRENCE = "ERR_INVALID_ANCHOR_OCCURRENCE"
    ERR_INVALID_INSERT_POSITION = "ERR_INVALID_INSERT_POSITION"
    # The two-path actions' codes, as the original app's newer specification names them.
    ERR_MISSING_PATH_TO = "ERR_MISSING_PATH_TO"
    ERR_UNEXPECTED_PATH_TO = "ERR_UNEXPECTED_PATH_TO"
    # Added by Operator where the spec is silent (docs/design.md, decision 14).
    ERR_CONTROL_CHARACTER_IN_CMD = "ERR_CONTROL_CHARACTER_IN_CMD"
    ERR_DUPLICATE_FIELD = "ERR_DUPLICATE_FIELD"
    ERR_UNKNOWN_FIELD = "ERR_UNKNOWN_FIELD"
    ERR_WORKSPACE_FIELD = "ERR_WORKSPACE_FIELD"
    ERR_INVALID_MARKER_ID = "ERR_INVALID_MARKER_ID"
    ERR_INVALID_PATH = "ERR_INVALID_PATH"
    ERR_PATH_OUTSIDE_WORKSPACE = "ERR_PATH_OUTSIDE_WORKSPACE"
    ERR_NOT_FOUND = "ERR_NOT_FOUND"
    ERR_NOT_A_FILE = "ERR_NOT_A_FILE"
    ERR_NOT_A_DIRECTORY = "ERR_NOT_A_DIRECTORY"
    ERR_SPECIAL_FILE = "ERR_SPECIAL_FILE"
    ERR_SYMLINK_TARGET = "ERR_SYMLINK_TARGET"
    ERR_BINARY_FILE = "ERR_BINARY_FILE"
    ERR_NOT_UTF8 = "ERR_NOT_UTF8"
    ERR_PERMISSION_DENIED = "ERR_PERMISSION_DENIED"
    ERR_IO = "ERR_IO"
    ERR_INVALID_PATCH = "ERR_INVALID_PATCH"
    ERR_PATCH_MISMATCH = "ERR_PATCH_MISMATCH"
    ERR_EDIT_FAILED = "ERR_EDIT_FAILED"
    ERR_DELETE_ROOT = "ERR_DELETE_ROOT"
    ERR_DELETE_INCOMPLETE = "ERR_DELETE_INCOMPLETE"
    ERR_TARGET_EXISTS = "ERR_TARGET_EXISTS"
    ERR_INVALID_PATH_TO = "ERR_INVALID_PATH_TO"
    ERR_INVALID_OVERWRITE = "ERR_INVALID_OVERWRITE"
    ERR_CONFLICT = "ERR_CONFLICT"
    ERR_REJECTED = "ERR_REJECTED"
    ERR_NOT_APPROVED = "ERR_NOT_APPROVED"
    ERR_INTERNAL = "ERR_INTERNAL"
    ERR_MISSING_PATTERN = "ERR_MISSING_PATTERN"
    ERR_INVALID_PATTERN = "ERR_INVALID_PATTERN"
    ERR_PATTERN_TOO_COSTLY = "ERR_PATTERN_TOO_COSTLY"
    ERR_INVALID_FLAG = "ERR_INVALID_FLAG"
    ERR_INVALID_DEPTH = "ERR_INVALID_DEPTH"
    ERR_EARLIER_WRITE_FAILED = "ERR_EARLIER_WRITE_FAILED"
    ERR_SYMLINK_WOULD_ESCAPE = "ERR_SYMLINK_WOULD_ESCAPE"
    ERR_LINES_MOVED = "ERR_LINES_MOVED"
    # shell.run, an Operator extension (engine/shell).
    ERR_MISSING_COMMAND = "ERR_MISSING_COMMAND"
    ERR_INVALID_TIMEOUT = "ERR_INVALID_TIMEOUT"
    ERR_COMMAND_TIMEOUT = "ERR_COMMAND_TIMEOUT"
    ERR_COMMAND_KILLED = "ERR_COMMAND_KILLED"
    ERR_NOT_SANDBOXED = "ERR_NOT_SANDBOXED"
    ERR_SANDBOX_FAILED = "ERR_SANDBOX_FAILED"
    ERR_SECRET_DECLINED = "ERR_SECRET_DECLINED"


# How a write no person was asked about gets its approval, as the model is to tell the person
# (ERR_NOT_APPROVED, and String's NOT_APPROVED; engine/messages/not_approved.py).
HOW_TO_APPROVE = (
    "they can run the same message again in a terminal, where Operator shows each diff and asks, "
    "or with --approve all"
)


class ErrorInfo(Struct, frozen=True):
    section: str
    meaning: str  # one line for the spec: when it happens and what to do


CORE = "core"
VALIDATION = "validation"
ADDED = "added"

ERROR_CATALOG: dict[ErrorCode, ErrorInfo] = {
    ErrorCode.ERR_MARKER_NOT_ALONE: ErrorInfo(
        CORE,
        "a marker shares its line with other text (a fence, a prefix or suffix); put it alone "
        "on its line",
    ),
    ErrorCode.ERR_MISSING_END_MARKER: ErrorInfo(
        CORE,
        "the message ended inside an OPERATOR_CMD block; close every block with END_OPERATOR_CMD",
    ),
    ErrorCode.ERR_NESTED_BLOCK: ErrorInfo(
        CORE,
        "OPERATOR_CMD appeared before the open block's END_OPERATOR_CMD (neither was run; resend "
        "each block closed), or inside an OPERATOR_RESULT block (never run; do not write "
        "OPERATOR_RESULT blocks)",
    ),
    ErrorCode.ERR_NON_KEY_VALUE_LINE: ErrorInfo(
        CORE, 'a line inside the block is not "key: value"; remove prose, bullets and indentation'
    ),
    ErrorCode.ERR_EMPTY_LINE_IN_CMD: ErrorInfo(CORE, "a blank line inside the block; remove it"),
    ErrorCode.ERR_NON_ASCII_IN_CMD: ErrorInfo(
        CORE, "a non-ASCII character inside the block; use ASCII, put other text in a *_b64 field"
    ),
    ErrorCode.ERR_MISSING_REQUIRED_FIELDS: ErrorInfo(
        CORE, "version, id or action is missing or empty"
    ),
    ErrorCode.ERR_ACTION_REQUIRES_PATH: ErrorInfo(
        CORE, "an fs.* action without a path; add path: <relative path>"
    ),
    ErrorCode.ERR_ACTION_FORBIDS_PATH: ErrorInfo(
        CORE, "a non-fs action with a path; remove the path line"
    ),
    ErrorCode.ERR_CONTENT_HAS_NEWLINES: ErrorInfo(
        CORE, "content spans several lines; send it as content_b64"
    ),
    ErrorCode.ERR_INVALID_BASE64: ErrorInfo(
        CORE,
        "a *_b64 value is not strict base64 of UTF-8 text on one line; re-encode it on one line "
        "(the message says where it broke)",
    ),
    ErrorCode.ERR_SEARCH_PATH_IS_DIR: ErrorInfo(
        CORE, "fs.search was given a folder; use fs.searchTree for folders"
    ),
    ErrorCode.ERR_MISSING_QUERY: ErrorInfo(
        VALIDATION, "fs.search / fs.searchTree without a non-empty query (alias q)"
    ),
    ErrorCode.ERR_INVALID_READSLICE_PARAMS: ErrorInfo(
        VALIDATION,
        "start or lines is not a positive whole number, or start is past the end of the file (the "
        "message gives the line count)",
    ),
    ErrorCode.ERR_MISSING_EDITS_B64: ErrorInfo(VALIDATION, "fs.applyEdits without edits_b64"),
    ErrorCode.ERR_MISSING_PATCH_B64: ErrorInfo(VALIDATION, "fs.patch without patch_b64"),
    ErrorCode.ERR_INVALID_EDITS_JSON: ErrorInfo(
        VALIDATION,
        'edits_b64 does not decode to {"version":1,"edits":[...]} with valid edit objects; the '
        "message names the edit and field",
    ),
    ErrorCode.ERR_UNKNOWN_ACTION: ErrorInfo(
        VALIDATION, "the action is not defined; the message lists the actions"
    ),
    ErrorCode.ERR_RESERVED_ACTION: ErrorInfo(
        VALIDATION, "operator.error is produced by Operator only; never send it"
    ),
    ErrorCode.ERR_DUPLICATE_ID: ErrorInfo(
        VALIDATION,
        "this id was already used in this session for a different command; send it again with a "
        "new id",
    ),
    ErrorCode.ERR_BLOCK_TOO_LARGE: ErrorInfo(
        VALIDATION,
        "the block has more than 200 lines or 50000 characters; split the payload over several "
        "commands",
    ),
    ErrorCode.ERR_UNSUPPORTED_VERSION: ErrorInfo(VALIDATION, "version is not exactly 1"),
    ErrorCode.ERR_FILE_TOO_LARGE: ErrorInfo(
        VALIDATION, "the file is over the action's size limit; use fs.readSlice / fs.search"
    ),
    ErrorCode.ERR_MISSING_MARKER_ID: ErrorInfo(VALIDATION, "a region action without marker_id"),
    ErrorCode.ERR_MISSING_CONTENT_B64: ErrorInfo(
        VALIDATION, "fs.insertRegion / fs.replaceRegion without content_b64"
    ),
    ErrorCode.ERR_MISSING_WRITE_CONTENT: ErrorInfo(
        VALIDATION, "fs.write without content_b64 or content"
    ),
    ErrorCode.ERR_UNKNOWN_LANGUAGE: ErrorInfo(
        VALIDATION,
        "no comment style is known for that language; use one the message lists, or pass "
        "comment_line_prefix (or comment_block_start and comment_block_end)",
    ),
    ErrorCode.ERR_COMMENT_STYLE_REQUIRED: ErrorInfo(
        VALIDATION,
        "the file's extension has no known comment style; pass language or comment_* overrides",
    ),
    ErrorCode.ERR_INVALID_COMMENT_STYLE: ErrorInfo(
        VALIDATION,
        "comment overrides are incomplete or mixed; give comment_line_prefix, or both "
        "comment_block_start and comment_block_end, or language",
    ),
    ErrorCode.ERR_REGION_MARKER_NOT_FOUND: ErrorInfo(
        VALIDATION,
        "no OPERATOR_BEGIN/OPERATOR_END pair for marker_id; the message lists the regions in the "
        "file",
    ),
    ErrorCode.ERR_REGION_MARKER_NOT_UNIQUE: ErrorInfo(
        VALIDATION, "marker_id occurs more than once; the message gives the lines"
    ),
    ErrorCode.ERR_REGION_MARKER_ORDER: ErrorInfo(
        VALIDATION, "OPERATOR_END comes before OPERATOR_BEGIN"
    ),
    ErrorCode.ERR_REGION_MARKER_MISMATCH: ErrorInfo(
        VALIDATION, "regions overlap or nest, or a BEGIN has no matching END"
    ),
    ErrorCode.ERR_REGION_MARKER_ALREADY_EXISTS: ErrorInfo(
        VALIDATION,
        "fs.insertRegion with a marker_id the file already has; pick a new id or use "
        "fs.replaceRegion",
    ),
    ErrorCode.ERR_MISSING_ANCHOR: ErrorInfo(VALIDATION, "fs.insertRegion without anchor"),
    ErrorCode.ERR_ANCHOR_NOT_FOUND: ErrorInfo(
        VALIDATION, "the anchor text is not in the file; the message shows the closest line"
    ),
    ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE: ErrorInfo(
        VALIDATION,
        "occurrence is not a whole number >= 1, or the anchor occurs fewer times (the message "
        "gives the count)",
    ),
    ErrorCode.ERR_INVALID_INSERT_POSITION: ErrorInfo(VALIDATION, "position is not before or after"),
    ErrorCode.ERR_MISSING_PATH_TO: ErrorInfo(
        VALIDATION,
        "fs.copy / fs.move / fs.rename without path_to (the new path, relative to the workspace "
        "root)",
    ),
    ErrorCode.ERR_UNEXPECTED_PATH_TO: ErrorInfo(
        VALIDATION,
        "path_to on an action that takes one path; remove it (only fs.copy, fs.move and fs.rename "
        "take path_to)",
    ),
    ErrorCode.ERR_CONTROL_CHARACTER_IN_CMD: ErrorInfo(
        ADDED,
        "a control character (ESC, NUL, form feed, vertical tab, DEL...) inside the block; only "
        "printable ASCII and tab, put other text in a *_b64 field",
    ),
    ErrorCode.ERR_DUPLICATE_FIELD: ErrorInfo(
        ADDED,
        "a key (or two aliases of one field, or content and content_b64, or query and query_b64) "
        "appears twice in one block; keep one",
    ),
    ErrorCode.ERR_UNKNOWN_FIELD: ErrorInfo(
        ADDED,
        "a key the action does not take (a typo, or another action's field); the message names "
        "the field meant and lists the action's fields",
    ),
    ErrorCode.ERR_WORKSPACE_FIELD: ErrorInfo(
        ADDED,
        "workspace/workspaceRoot/cwd in a command; remove it, paths are relative to the workspace "
        "the person chose",
    ),
    ErrorCode.ERR_INVALID_MARKER_ID: ErrorInfo(
        ADDED, "marker_id has characters other than A-Z a-z 0-9 _ . - (or is over 100 characters)"
    ),
    ErrorCode.ERR_INVALID_PATH: ErrorInfo(
        ADDED,
        "the path is malformed (backslashes, control characters, empty); use a relative path with "
        "/ separators, . for the root",
    ),
    ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE: ErrorInfo(
        ADDED,
        "the path is absolute, uses .. or ~ to leave the workspace, or goes through a symlink that "
        "leads outside; use a path inside the workspace",
    ),
    ErrorCode.ERR_NOT_FOUND: ErrorInfo(
        ADDED,
        "nothing exists at the path; the message lists close names in that folder; check with "
        "fs.list",
    ),
    ErrorCode.ERR_NOT_A_FILE: ErrorInfo(
        ADDED, "the action needs a file and the path is a folder; use fs.list or fs.searchTree"
    ),
    ErrorCode.ERR_NOT_A_DIRECTORY: ErrorInfo(
        ADDED, "fs.list or fs.tree was given a file, or a parent in the path is a file"
    ),
    ErrorCode.ERR_SPECIAL_FILE: ErrorInfo(
        ADDED, "the path is a FIFO, socket or device; Operator never opens those"
    ),
    ErrorCode.ERR_SYMLINK_TARGET: ErrorInfo(
        ADDED, "the target of a write is a symlink; write to the real file's path instead"
    ),
    ErrorCode.ERR_BINARY_FILE: ErrorInfo(
        ADDED, "the file holds binary data (NUL bytes); Operator reads and edits text only"
    ),
    ErrorCode.ERR_NOT_UTF8: ErrorInfo(
        ADDED,
        "the file is not valid UTF-8 (the message gives the byte offset); Operator reads and edits "
        "UTF-8 text only",
    ),
    ErrorCode.ERR_PERMISSION_DENIED: ErrorInfo(
        ADDED, "the operating system refused access; ask the person to fix the permissions"
    ),
    ErrorCode.ERR_IO: ErrorInfo(ADDED, "another operating system error; the message gives it"),
    ErrorCode.ERR_INVALID_PATCH: ErrorInfo(
        ADDED,
        "patch_b64 is not a one-file unified diff with consistent @@ counts; the message says "
        "which line is wrong",
    ),
    ErrorCode.ERR_PATCH_MISMATCH: ErrorInfo(
        ADDED,
        "a hunk's context or removed lines differ from the file; the message shows both and where "
        "the hunk matches instead; read the file again and resend",
    ),
    ErrorCode.ERR_EDIT_FAILED: ErrorInfo(
        ADDED,
        "an fs.applyEdits edit could not apply (find text absent, range outside the file); the "
        "message gives the edit's index; nothing was written",
    ),
    ErrorCode.ERR_DELETE_ROOT: ErrorInfo(
        ADDED, "fs.delete of the workspace root; delete entries inside it instead"
    ),
    ErrorCode.ERR_DELETE_INCOMPLETE: ErrorInfo(
        ADDED,
        "fs.delete (or fs.move to another file system, for the original) moved the entry away from "
        "its place but could not finish putting it in the trash; the message says where it is now; "
        "tell the person and do not send the command again",
    ),
    ErrorCode.ERR_TARGET_EXISTS: ErrorInfo(
        ADDED,
        "path_to of fs.copy / fs.move / fs.rename exists; send overwrite: true to replace a file "
        "(the person sees its diff), or choose another path_to; a folder is never replaced",
    ),
    ErrorCode.ERR_INVALID_PATH_TO: ErrorInfo(
        ADDED,
        "path_to is the entry itself or lies inside the folder being copied or moved, or "
        "(fs.rename) is in another folder than path; the message says which",
    ),
    ErrorCode.ERR_INVALID_OVERWRITE: ErrorInfo(ADDED, "overwrite is not true or false"),
    ErrorCode.ERR_CONFLICT: ErrorInfo(
        ADDED,
        "the file (for fs.copy / fs.move / fs.rename: either side) changed between the preview and "
        "the write; nothing was written; read it again and resend",
    ),
    ErrorCode.ERR_REJECTED: ErrorInfo(
        ADDED, "the person declined this write; nothing changed; ask them before trying again"
    ),
    ErrorCode.ERR_SECRET_DECLINED: ErrorInfo(
        ADDED,
        "a read of a file that looks like a secret (.env*, *.pem, *.key, id_rsa*, .aws/, ...) "
        "waits for the person's yes, and they did not give it; nothing was read; do without it",
    ),
    ErrorCode.ERR_NOT_APPROVED: ErrorInfo(
        ADDED,
        "no person was asked (Operator ran without a terminal and without --approve), so this "
        "write was not applied (this shell.run did not run), and the commands after it in the "
        "message did not run; nothing changed; not a refusal: tell the person it waits for their "
        "approval (the same message run again in a terminal, or with --approve all, runs them); "
        "do not resend under new ids",
    ),
    ErrorCode.ERR_INTERNAL: ErrorInfo(
        ADDED, "Operator itself failed on this command; nothing was changed; tell the person"
    ),
    ErrorCode.ERR_MISSING_PATTERN: ErrorInfo(
        ADDED, "fs.find without a non-empty pattern; give a glob such as *.py"
    ),
    ErrorCode.ERR_INVALID_PATTERN: ErrorInfo(
        ADDED,
        "a glob (include, exclude, fs.find's pattern) or a regex: true query cannot be used; the "
        "message says what is wrong and where",
    ),
    ErrorCode.ERR_PATTERN_TOO_COSTLY: ErrorInfo(
        ADDED,
        "a glob or a regex: true query is over the size limits (a glob 256 characters, 50 in a "
        "list; a regex 1000 characters, repeats that expand past 100000, no recursion) or a regex "
        "took over its 1 s time limit on one file; the message says which; nothing was searched: "
        "send a simpler pattern (no nested repeats such as (a+)+), or narrow path or include",
    ),
    ErrorCode.ERR_INVALID_FLAG: ErrorInfo(ADDED, "regex or ignore_case is not true or false"),
    ErrorCode.ERR_INVALID_DEPTH: ErrorInfo(ADDED, "fs.tree's depth is not a whole number >= 1"),
    ErrorCode.ERR_EARLIER_WRITE_FAILED: ErrorInfo(
        ADDED,
        "a write of an entry an earlier write of the message failed on (or the person declined) "
        "was not run; read the file again and send the changes anew",
    ),
    ErrorCode.ERR_SYMLINK_WOULD_ESCAPE: ErrorInfo(
        ADDED,
        "fs.copy / fs.move / fs.rename would put a relative symlink (the entry, or one inside the "
        "folder) where it leads outside the workspace; the message names the link; copy or move "
        "what it points to instead, or ask the person",
    ),
    ErrorCode.ERR_LINES_MOVED: ErrorInfo(
        ADDED,
        "a replaceRange or fs.patch hunk names lines that an earlier write of the message (or an "
        "earlier edit of the same fs.applyEdits) moved or changed; line numbers count the file as "
        "it was when the message began; nothing was written; the message shows the lines now and "
        "the range to send",
    ),
    ErrorCode.ERR_MISSING_COMMAND: ErrorInfo(
        ADDED, "shell.run without a script; send command (one line) or command_b64 (a script)"
    ),
    ErrorCode.ERR_INVALID_TIMEOUT: ErrorInfo(
        ADDED, "shell.run's timeout_s is not a whole number from 1 to 600"
    ),
    ErrorCode.ERR_COMMAND_TIMEOUT: ErrorInfo(
        ADDED,
        "the command ran past its timeout_s and was stopped, children and all; the details hold "
        "its output so far; its file changes were discarded; send a quicker command or a larger "
        "timeout_s",
    ),
    ErrorCode.ERR_COMMAND_KILLED: ErrorInfo(
        ADDED,
        "the command was stopped by the person or ended by a signal; its file changes were "
        "discarded; ask the person before running it again",
    ),
    ErrorCode.ERR_NOT_SANDBOXED: ErrorInfo(
        ADDED,
        "no sandbox can be had on this machine and unsandboxed commands are not allowed here; "
        "nothing ran; ask the person to run it themselves",
    ),
    ErrorCode.ERR_SANDBOX_FAILED: ErrorInfo(
        ADDED,
        "the sandbox could not be set up for this command (the message gives the reason); "
        "nothing ran; tell the person",
    ),
}


# The codes a model meets first, in the order it tends to: the compact system prompt lists these
# with their meaning (the full interface text lists every code).
FIRST_MET: tuple[ErrorCode, ...] = (
    ErrorCode.ERR_MARKER_NOT_ALONE,
    ErrorCode.ERR_NON_KEY_VALUE_LINE,
    ErrorCode.ERR_CONTENT_HAS_NEWLINES,
    ErrorCode.ERR_INVALID_BASE64,
    ErrorCode.ERR_UNKNOWN_FIELD,
    ErrorCode.ERR_NOT_FOUND,
    ErrorCode.ERR_ANCHOR_NOT_FOUND,
    ErrorCode.ERR_PATCH_MISMATCH,
    ErrorCode.ERR_UNKNOWN_LANGUAGE,
    ErrorCode.ERR_EARLIER_WRITE_FAILED,
    ErrorCode.ERR_REJECTED,
)


class OperatorError(Exception):
    """A failure the model can act on. `message` is one line; `context` may span lines.

    A plain exception (not a frozen dataclass) so the interpreter and pydantic can attach
    tracebacks and notes to it; pydantic lets it pass through validators unchanged.
    """

    def __init__(self, code: ErrorCode, message: str, context: str | None = None) -> None:
        super().__init__(code, message, context)
        self.code = code
        self.message = message
        self.context = context

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"

    def __repr__(self) -> str:
        return f"OperatorError({self.code.value}, {self.message!r})"
