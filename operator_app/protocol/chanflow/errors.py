"""String's errors as values: `StringError` carries a stable code, a message and context lines
("✗ CODE: message" then the context; docs/design.md, "The String dialect"). The catalog says, for
the spec and the help text, when each code is given and what the model should do about it; the
codes after LOAD_ERROR are Operator's own, where String has none for what can go wrong here."""

from __future__ import annotations

from enum import StrEnum

from msgspec import Struct

from .grammar import ERROR_MARK


class StringCode(StrEnum):
    NOT_FOUND = "NOT_FOUND"
    BLOCK_NOT_FOUND = "BLOCK_NOT_FOUND"
    INVALID_PATH = "INVALID_PATH"
    LINE_OUT_OF_RANGE = "LINE_OUT_OF_RANGE"
    CONFLICT = "CONFLICT"
    COMMAND_UNSUPPORTED = "COMMAND_UNSUPPORTED"
    INVALID_PARAMS = "INVALID_PARAMS"
    INVALID_VARIABLE = "INVALID_VARIABLE"
    UNDEFINED_VARIABLE = "UNDEFINED_VARIABLE"
    INVALID_TARGET = "INVALID_TARGET"
    NO_HISTORY = "NO_HISTORY"
    NO_COMMITS = "NO_COMMITS"
    VERSION_NOT_FOUND = "VERSION_NOT_FOUND"
    LOAD_ERROR = "LOAD_ERROR"
    # Operator's own:
    REJECTED = "REJECTED"
    SECRET_DECLINED = "SECRET_DECLINED"
    NOT_APPROVED = "NOT_APPROVED"
    UNCLOSED_BLOCK = "UNCLOSED_BLOCK"
    MALFORMED_TAG = "MALFORMED_TAG"
    NESTED_BLOCK = "NESTED_BLOCK"
    BLOCK_TOO_LARGE = "BLOCK_TOO_LARGE"
    LINES_MOVED = "LINES_MOVED"
    WRITE_FAILED = "WRITE_FAILED"
    TIMEOUT = "TIMEOUT"
    KILLED = "KILLED"
    NO_SANDBOX = "NO_SANDBOX"
    INTERNAL = "INTERNAL"


class StringCodeInfo(Struct, frozen=True):
    when: str
    what_to_do: str


CATALOG: dict[StringCode, StringCodeInfo] = {
    StringCode.NOT_FOUND: StringCodeInfo("no such file or folder", "see the close names; /ls"),
    StringCode.BLOCK_NOT_FOUND: StringCodeInfo("no block of that id", "pick an available one"),
    StringCode.INVALID_PATH: StringCodeInfo(
        "outside the workspace, malformed, or a folder for a file", "~/ is the root"
    ),
    StringCode.LINE_OUT_OF_RANGE: StringCodeInfo("past the end of the file", "see its line count"),
    StringCode.CONFLICT: StringCodeInfo(
        "the file changed since this topic read it", "/refresh, then retry"
    ),
    StringCode.COMMAND_UNSUPPORTED: StringCodeInfo("not a command Operator serves", "/help"),
    StringCode.INVALID_PARAMS: StringCodeInfo(
        "an argument or content missing or malformed", "see the usage"
    ),
    StringCode.INVALID_VARIABLE: StringCodeInfo("a $variable", "use {name}"),
    StringCode.UNDEFINED_VARIABLE: StringCodeInfo("a {name} with no value", "/set it first"),
    StringCode.INVALID_TARGET: StringCodeInfo(
        "a malformed or unserved topic", "file:name or bash:name"
    ),
    StringCode.NO_HISTORY: StringCodeInfo("/back or /undo with nothing to go back to", ""),
    StringCode.NO_COMMITS: StringCodeInfo("a file never committed", "/commit it first"),
    StringCode.VERSION_NOT_FOUND: StringCodeInfo("no such version", "/log path"),
    StringCode.LOAD_ERROR: StringCodeInfo(
        "binary, not UTF-8, too large or unreadable", "open some lines"
    ),
    StringCode.REJECTED: StringCodeInfo("the person said no; nothing changed", "ask them"),
    StringCode.SECRET_DECLINED: StringCodeInfo(
        "reading a secret-looking file was declined", "do without it"
    ),
    StringCode.NOT_APPROVED: StringCodeInfo(
        "no one was asked; it and the rest did not run", "tell the person"
    ),
    StringCode.UNCLOSED_BLOCK: StringCodeInfo("no close tag before the message ended", ""),
    StringCode.MALFORMED_TAG: StringCodeInfo(
        "a tag almost right, or a stray close tag", "write the form shown"
    ),
    StringCode.NESTED_BLOCK: StringCodeInfo("an open tag inside a block", "one command per block"),
    StringCode.BLOCK_TOO_LARGE: StringCodeInfo(
        "a block over 200,000 characters or before a message's last 200,000",
        "/write, then /append",
    ),
    StringCode.LINES_MOVED: StringCodeInfo(
        "an earlier change moved a :L range's lines", "send the range given"
    ),
    StringCode.WRITE_FAILED: StringCodeInfo("the change could not be made", "the error says why"),
    StringCode.TIMEOUT: StringCodeInfo("a script ran over 120 s; stopped", "run less at once"),
    StringCode.KILLED: StringCodeInfo("a script was stopped", "ask the person"),
    StringCode.NO_SANDBOX: StringCodeInfo("no sandbox here; nothing ran", "ask the person"),
    StringCode.INTERNAL: StringCodeInfo("Operator failed", "tell the person"),
}


class StringError(Exception):
    """ "✗ CODE: message" with its context lines (available options, correct syntax)."""

    def __init__(self, code: StringCode, message: str, *context: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.context = tuple(line for line in context if line)

    @property
    def headline(self) -> str:
        return f"{ERROR_MARK} {self.code.value}: {self.message}"
