"""Which command ids a session has used, and which approved writes have no result yet, kept in
memory from results.jsonl: read once, then only from where the last read stopped, so checking
a block costs the same however long the session is, and another process's appends are still
seen. What this process appends itself is taken in as it is written, never read back.

A line still without its newline is left for later (its writer may not be done, or it was torn by
a crash and the next append closes it); a file replaced or cut short is read again whole."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from msgspec import Struct, field

from ...protocol.results import CommandResult
from ..ondisk.jsonl import Appended, parse_line


class WriteIntent(Struct, frozen=True, kw_only=True):
    """A write the person approved, recorded (durably) just before its commit: if no result
    follows it, the app died in between, and recovery works out from the journal whether the
    change landed."""

    message: int
    command_id: str
    action: str
    path: str
    line: int | None
    summary: str  # the ok summary the plan would give
    time: float
    content_key: str | None
    extra: dict[str, Any] = field(default_factory=dict)  # a String block's: dialect, topic, ...


class UsedId(NamedTuple):
    """A command id the session has used: what its block said (the content key, which tells a
    repeat from a duplicate id), the message that ran it first, and that first result."""

    content_key: str
    message: int
    result: CommandResult


UsedIds = dict[str, UsedId]  # command id -> its first use, for every command that ran


class UsedIdIndex:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.used: UsedIds = {}
        # (message, id) -> intent without a result
        self.open_intents: dict[tuple[int, str], WriteIntent] = {}
        self.offset = 0
        self.identity: tuple[int, int] | None = None
        # lines parsed from the file, for tests that prove a block costs the same late in a session
        self.records_parsed = 0
        # Nothing can have changed the file since the last look: the session lock has been held
        # throughout, and every append made under it was taken in as it was written.
        self.current = False

    def refresh(self) -> UsedIds:
        if self.current:
            return self.used
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            self.used, self.open_intents, self.offset, self.identity = {}, {}, 0, None
            return self.used
        try:
            info = os.fstat(fd)
            identity = (info.st_dev, info.st_ino)
            if identity != self.identity or info.st_size < self.offset:
                self.used, self.open_intents, self.offset, self.identity = {}, {}, 0, identity
            if info.st_size == self.offset:
                return self.used
            data = os.pread(fd, info.st_size - self.offset, self.offset)
        finally:
            os.close(fd)
        complete = data.rfind(b"\n") + 1
        for line in data[:complete].split(b"\n"):
            if line:
                self.records_parsed += 1
                record = parse_line(line)
                if record is not None:
                    self.take(record)
        self.offset += complete
        return self.used

    def appended(self, where: Appended) -> None:
        """This process has just appended records at `where`, which it took in already: when they
        follow exactly what was read before, the next refresh starts after them; else it reads
        them too (taking a record twice changes nothing)."""
        same_file = where.identity == self.identity or (self.identity is None and where.start == 0)
        if same_file and where.start == self.offset:
            self.offset, self.identity = where.end, where.identity

    def take(self, record: dict[str, Any]) -> None:
        try:
            message = int(record.get("message", 0))
            if isinstance(record.get("intent"), dict):
                intent = record["intent"]
                line_no = intent.get("line")
                self.open_intents[(message, str(intent["id"]))] = WriteIntent(
                    message=message,
                    command_id=str(intent["id"]),
                    action=str(intent.get("action", "")),
                    path=str(intent.get("path", "")),
                    line=int(line_no) if line_no is not None else None,
                    summary=str(intent.get("summary", "")),
                    time=float(intent.get("time", 0)),
                    content_key=record.get("content_key"),
                    extra=dict(intent.get("extra") or {}),
                )
                return
            result = record["result"]
            if not isinstance(result, CommandResult):
                result = CommandResult.from_json(result)
        except (KeyError, TypeError, ValueError):
            return
        self.open_intents.pop((message, result.id), None)
        if record.get("content_key") is not None:
            self.used.setdefault(
                result.id,
                UsedId(content_key=str(record["content_key"]), message=message, result=result),
            )
