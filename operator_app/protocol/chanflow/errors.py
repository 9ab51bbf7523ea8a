"""String's errors as values: `StringError` carries a stable code, a message and context lines
("✗ CODE: message" then the context; docs/design.md, "The String dialect"). The catalog says, for
the spec and the help text, when each code is given and what the model should do about it; the
codes after LOAD_ERROR are Operator's own, where String has none for what can go wrong here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

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
    NOT_APPROVED = "NOT_APPROVED"
    UNCLOSED_BLOCK = "UNCLOSED_BLOCK"
    NESTED_BLOCK = "NESTED_BLOCK"
    BLOCK_TOO_LARGE = "BLOCK_TOO_LARGE"
    WRITE_FAILED = "WRITE_FAILED"
    TIMEOUT = "TIMEOUT"
    KILLED = "KILLED"
    NO_SANDBOX = "NO_SANDBOX"
    INTERNAL = "INTERNAL"


@dataclass(frozen=True)
class StringCodeInfo:
    when: str
    what_to_do: str


CATALOG: dict[StringCode, StringCodeInfo] = {
    StringCode.NOT_FOUND: StringCodeInfo("no such file or folder", "check the close names; /ls"),
    StringCode.BLOCK_NOT_FOUND: StringCodeInfo(
        "the file has no block of that id", "pick one of the available blocks"
    ),
    StringCode.INVALID_PATH: StringCodeInfo(
        "outside the workspace, malformed, or a folder where a file is needed", "~/ is the root"
    ),
    StringCode.LINE_OUT_OF_RANGE: StringCodeInfo(
        "a line past the end of the file", "the error gives its line count"
    ),
    StringCode.CONFLICT: StringCodeInfo(
        "the file changed on disk since this topic read it", "/refresh, then retry"
    ),
    StringCode.COMMAND_UNSUPPORTED: StringCodeInfo(
        "not a command, or not one Operator serves", "use a listed command; /help"
    ),
    StringCode.INVALID_PARAMS: StringCodeInfo(
        "an argument or the content is missing or malformed", "follow the usage given"
    ),
    StringCode.INVALID_VARIABLE: StringCodeInfo("a $variable", "use {name}, set by /set"),
    StringCode.UNDEFINED_VARIABLE: StringCodeInfo(
        "a {variable} with no value here", '/set {name} = "value" first'
    ),
    StringCode.INVALID_TARGET: StringCodeInfo(
        "a malformed topic, or a web: or app: one", "use file:name or bash:name"
    ),
    StringCode.NO_HISTORY: StringCodeInfo(
        "/back or /undo with nothing to go back to", "open a document, or change one, first"
    ),
    StringCode.NO_COMMITS: StringCodeInfo("/log of a file never committed", "/commit path first"),
    StringCode.VERSION_NOT_FOUND: StringCodeInfo(
        "no such version", "the error gives the latest; /log path"
    ),
    StringCode.LOAD_ERROR: StringCodeInfo(
        "not readable as text: binary, not UTF-8, too large, or I/O",
        "read a part of it, or ask the person",
    ),
    StringCode.REJECTED: StringCodeInfo(
        "the person declined it; nothing changed", "ask them what they want"
    ),
    StringCode.NOT_APPROVED: StringCodeInfo(
        "no one could be asked: it and the blocks after it did not run",
        "tell the person it waits for their approval",
    ),
    StringCode.UNCLOSED_BLOCK: StringCodeInfo(
        "the message ended inside a block; nothing in it ran", "close it with </\U0001d49e>"
    ),
    StringCode.NESTED_BLOCK: StringCodeInfo(
        "an open tag inside a block; nothing in it ran", "one command per block"
    ),
    StringCode.BLOCK_TOO_LARGE: StringCodeInfo(
        "a block over 1,000,000 characters", "split it: /write, then /append"
    ),
    StringCode.WRITE_FAILED: StringCodeInfo(
        "the change could not be made (permissions, a symlink, I/O)",
        "the message says why",
    ),
    StringCode.TIMEOUT: StringCodeInfo("a script ran over 120 s; stopped", "run less at once"),
    StringCode.KILLED: StringCodeInfo("a script was stopped", "ask the person"),
    StringCode.NO_SANDBOX: StringCodeInfo("no sandbox here; nothing ran", "ask the person"),
    StringCode.INTERNAL: StringCodeInfo("Operator itself failed", "tell the person"),
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
