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

The state folder must lie outside the workspace and the workspace outside it
(`check_state_location`): inside, the model could read the session and, with one approved write,
plant journal records that make `undo` move files across the boundary.

Appends restore a line boundary first (a crash can leave a torn last line), and readers skip any
line that is not a whole JSON object, so a torn record costs only itself. Used ids are kept in
memory and brought up to date from the end of results.jsonl, so checking a block costs the same
however long the session is, and another process's appends are still seen.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any
from pathlib import Path

from ..protocol.results import CommandResult

STATE_APP_NAME = "operator-app"
MESSAGE_TEXT_LIMIT = 5_000_000  # bytes of a message kept for the history view
LOCK_TIMEOUT_S = 30.0
# A write's diff is kept in results.jsonl for the history view only (the model never gets it):
# a rewrite of a large file must not make a line of that size, read back on every restart.
STORED_DIFF_LIMIT = 200_000  # characters


class StateUnusable(Exception):
    pass


def check_state_location(workspace_root: Path, state_dir: Path) -> None:
    """Refuse a state folder inside the workspace, equal to it, or holding it (symlinks resolved).

    Inside the workspace the model could read every message and result and, with one approved
    fs.write, forge journal records that `undo` would act on outside the workspace. The default
    folder (under the user state folder) is refused the same way when the workspace holds it,
    e.g. a home folder chosen as the workspace: the person must then pass --state-dir.
    """
    root = Path(os.path.realpath(workspace_root))
    state = Path(os.path.realpath(state_dir))
    if state.is_relative_to(root):
        where = "is the workspace folder itself" if state == root else f"is inside the workspace {root}"
        raise StateUnusable(
            f"the state folder {state} {where}, where the model could read the session and change the undo "
            "journal; use a state folder outside the workspace"
        )
    if root.is_relative_to(state):
        raise StateUnusable(
            f"the workspace {root} is inside the state folder {state}; use a state folder outside the workspace"
        )


def default_state_dir(workspace_root: Path) -> Path:
    from platformdirs import user_state_dir

    digest = hashlib.sha256(str(workspace_root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in workspace_root.name)[:40] or "root"
    return Path(user_state_dir(STATE_APP_NAME)) / "workspaces" / f"{name}-{digest}"


def append_jsonl(path: Path, record: dict[str, object], *, sync: bool = True) -> None:
    """Append one record as one line. A last line left without its newline (a crash mid-append)
    is closed first: glued to it, this record would be unreadable and lost with it."""
    data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        # Callers hold the session lock; this lock of the file itself also keeps the boundary
        # check and the write together for any appender that does not.
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock


def fsync_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
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
        with path.open("rb") as handle:
            for line in handle:
                record = _parse_line(line)
                if record is not None:
                    yield record
    except FileNotFoundError:
        return


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:  # torn by a crash (cut JSON, or cut inside a UTF-8 sequence): skipped alone
        return None
    return record if isinstance(record, dict) else None


@dataclass(frozen=True)
class StoredResult:
    message: int
    result: CommandResult
    content_key: str | None  # set when the result belongs to a command that ran (or was refused)


@dataclass(frozen=True)
class WriteIntent:
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


@dataclass(frozen=True)
class MessageRecord:
    number: int
    started: float
    source: str
    chars: int
    warnings: tuple[str, ...]
    ended: bool


UsedIds = dict[str, tuple[str, int, CommandResult]]


class _UsedIdIndex:
    """The used ids of results.jsonl, read once and then only from where the last read stopped.
    A line still without its newline is left for later (its writer may not be done, or it was
    torn by a crash and the next append closes it); a file replaced or cut short is read again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.used: UsedIds = {}
        self.open_intents: dict[tuple[int, str], WriteIntent] = {}  # (message, id) -> intent without a result
        self.offset = 0
        self.identity: tuple[int, int] | None = None
        self.records_parsed = 0  # work done, for tests that prove a block costs the same late in a session

    def refresh(self) -> UsedIds:
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
                self._add(line)
        self.offset += complete
        return self.used

    def _add(self, line: bytes) -> None:
        self.records_parsed += 1
        record = _parse_line(line)
        if record is None:
            return
        try:
            message = int(record.get("message", 0))
            if isinstance(record.get("intent"), dict):
                intent = record["intent"]
                line_no = intent.get("line")
                self.open_intents[(message, str(intent["id"]))] = WriteIntent(
                    message, str(intent["id"]), str(intent.get("action", "")), str(intent.get("path", "")),
                    int(line_no) if line_no is not None else None, str(intent.get("summary", "")),
                    float(intent.get("time", 0)), record.get("content_key"))
                return
            result = CommandResult.from_json(record["result"])
        except (KeyError, TypeError, ValueError):
            return
        self.open_intents.pop((message, result.id), None)
        if record.get("content_key") is not None:
            self.used.setdefault(result.id, (str(record["content_key"]), message, result))


class Session:
    def __init__(self, state_dir: Path, *, workspace_root: Path | None = None) -> None:
        """`workspace_root`: refuse (StateUnusable) a state folder inside that workspace or holding it."""
        if workspace_root is not None:
            check_state_location(workspace_root, state_dir)
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
        self._used = _UsedIdIndex(self._results)

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

    def unresolved_intents(self) -> list[WriteIntent]:
        """Approved writes with no result after them: the app died between consent and result."""
        self._used.refresh()
        return list(self._used.open_intents.values())

    def used_ids(self) -> UsedIds:
        """id -> (content key, message number, first result) of every command that ran, including
        those recorded by another process since the last call. Do not change the dict returned."""
        return self._used.refresh()

    @property
    def result_records_parsed(self) -> int:
        """How many result records used_ids() has parsed so far (a work counter for tests)."""
        return self._used.records_parsed

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
        fsync_file(self._results)  # the results recorded without a sync of their own (see record_result)
        append_jsonl(self._messages, {"event": "end", "message": number, "time": time.time(), "warnings": warnings})

    def record_intent(self, number: int, command_id: str, *, action: str, path: str, line: int | None, summary: str,
                      content_key: str | None) -> None:
        """Before an approved write is committed (durable): see WriteIntent. Readers of results
        skip these records; a result for the same command closes it."""
        append_jsonl(self._results, {"message": number, "content_key": content_key, "intent": {
            "id": command_id, "action": action, "path": path, "line": line, "summary": summary, "time": time.time()}})

    def record_result(self, number: int, result: CommandResult, content_key: str | None, *, durable: bool = True) -> None:
        """Append a result. The write() alone survives the app dying (the data is in the kernel);
        `durable` also fsyncs it, against a power cut, which a write's result needs (the file on
        disk changed). A read's result can be had again by running the read; paying an fsync for
        each one made a 100-block paste wait 100 disk flushes, so those are synced once, when the
        message ends."""
        append_jsonl(self._results, {"message": number, "result": _stored(result).to_json(), "content_key": content_key},
                     sync=durable)

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


def message_count(state_dir: Path) -> int:
    """How many messages the session in `state_dir` holds, read without opening the session (no
    folder is created, no lock taken): for a list of workspaces to choose from."""
    return sum(1 for record in read_jsonl(state_dir / "session" / "messages.jsonl") if record.get("event") == "start")


def _stored(result: CommandResult) -> CommandResult:
    """The result as the session keeps it: whole, except a write's preview diff over
    STORED_DIFF_LIMIT, cut at a line break, with a last line and `extra["diff_clipped"]` (its full
    length) saying so. What the model is told (id, ok, summary, details) is never cut."""
    diff = result.diff
    if diff is None or len(diff) <= STORED_DIFF_LIMIT:
        return result
    cut = diff.rfind("\n", 0, STORED_DIFF_LIMIT) + 1 or STORED_DIFF_LIMIT
    note = f"[... diff clipped: {len(diff) - cut} more characters are not kept in the session]"
    return replace(result, diff=diff[:cut] + note, extra={**result.extra, "diff_clipped": len(diff)})
