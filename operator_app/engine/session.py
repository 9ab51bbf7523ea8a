"""The session's state folder: which command ids were used (for duplicate detection), every
message and every result, appended and fsynced as each is produced, so a restart, a second
process, or `operator-app results` after a crash sees exactly what the model was (or should be)
told. The journal of changes lives beside it (journal.py).

Layout of a state folder (one per workspace):
    session/messages.jsonl   one record when a message starts and one when it ends
    session/messages/N.txt   the message text
    session/results.jsonl    one record per result: message number, result, content key
    journal/                 see journal.py
    trash/                   deleted files when the system has no trash
    lock                     held while a message is processed
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from pathlib import Path

from ..protocol.results import CommandResult

STATE_APP_NAME = "operator-app"
MESSAGE_TEXT_LIMIT = 5_000_000  # bytes of a message kept for the history view
LOCK_TIMEOUT_S = 30.0


class StateUnusable(Exception):
    pass


def default_state_dir(workspace_root: Path) -> Path:
    from platformdirs import user_state_dir

    digest = hashlib.sha256(str(workspace_root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in workspace_root.name)[:40] or "root"
    return Path(user_state_dir(STATE_APP_NAME)) / "workspaces" / f"{name}-{digest}"


def append_jsonl(path: Path, record: dict[str, object], *, sync: bool = True) -> None:
    line = json.dumps(record, ensure_ascii=False) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with path.open("r", encoding="utf-8") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line torn by a crash: everything before it still counts
                if isinstance(record, dict):
                    yield record
    except FileNotFoundError:
        return


@dataclass(frozen=True)
class StoredResult:
    message: int
    result: CommandResult
    content_key: str | None  # set when the result belongs to a command that ran (or was refused)


@dataclass(frozen=True)
class MessageRecord:
    number: int
    started: float
    source: str
    chars: int
    warnings: tuple[str, ...]
    ended: bool


class Session:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.dir = state_dir / "session"
        try:
            (self.dir / "messages").mkdir(parents=True, exist_ok=True)
            probe = state_dir / ".probe"
            probe.write_text("ok")
            probe.unlink()
        except OSError as exc:
            raise StateUnusable(f"cannot use state folder {state_dir}: {exc.strerror or exc}") from exc
        self._messages = self.dir / "messages.jsonl"
        self._results = self.dir / "results.jsonl"

    # --- reading -------------------------------------------------------------------------

    def stored_results(self) -> list[StoredResult]:
        out = []
        for record in read_jsonl(self._results):
            try:
                result = CommandResult.from_json(record["result"])
            except (KeyError, TypeError):
                continue
            out.append(StoredResult(int(record.get("message", 0)), result, record.get("content_key")))
        return out

    def used_ids(self) -> dict[str, tuple[str, int, CommandResult]]:
        """id -> (content key, message number, first result) of every command that ran."""
        used: dict[str, tuple[str, int, CommandResult]] = {}
        for stored in self.stored_results():
            if stored.content_key is not None and stored.result.id not in used:
                used[stored.result.id] = (stored.content_key, stored.message, stored.result)
        return used

    def messages(self) -> list[MessageRecord]:
        started: dict[int, dict[str, Any]] = {}
        warnings: dict[int, tuple[str, ...]] = {}
        ended: set[int] = set()
        for record in read_jsonl(self._messages):
            number = int(record.get("message", 0))
            if record.get("event") == "start":
                started[number] = record
            elif record.get("event") == "end":
                ended.add(number)
                warnings[number] = tuple(record.get("warnings", ()))
        return [
            MessageRecord(n, float(r.get("time", 0)), str(r.get("source", "")), int(r.get("chars", 0)),
                          warnings.get(n, ()), n in ended)
            for n, r in sorted(started.items())
        ]

    def message_text(self, number: int) -> str | None:
        try:
            return (self.dir / "messages" / f"{number}.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def results_of(self, number: int) -> list[CommandResult]:
        return [s.result for s in self.stored_results() if s.message == number]

    def last_message_number(self) -> int:
        numbers = [m.number for m in self.messages()]
        return max(numbers, default=0)

    # --- writing -------------------------------------------------------------------------

    def start_message(self, *, source: str, text: str | None) -> int:
        number = self.last_message_number() + 1
        if text is not None:
            (self.dir / "messages" / f"{number}.txt").write_text(text[-MESSAGE_TEXT_LIMIT:], encoding="utf-8", errors="surrogateescape")
        append_jsonl(self._messages, {"event": "start", "message": number, "time": time.time(), "source": source,
                                      "chars": len(text) if text is not None else 0})
        return number

    def append_message_text(self, number: int, chunk: str) -> None:
        with (self.dir / "messages" / f"{number}.txt").open("a", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(chunk)

    def end_message(self, number: int, warnings: list[str]) -> None:
        append_jsonl(self._messages, {"event": "end", "message": number, "time": time.time(), "warnings": warnings})

    def record_result(self, number: int, result: CommandResult, content_key: str | None) -> None:
        append_jsonl(self._results, {"message": number, "result": result.to_json(), "content_key": content_key})

    @contextmanager
    def lock(self, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        """One message at a time per workspace, across processes (the TUI and `exec` may share one)."""
        fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise StateUnusable(f"another Operator process is working in {self.state_dir}; try again when it is done") from None
                    time.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock
