"""The session's state folder: which command ids were used (for duplicate detection), every
message and every result, appended as each is produced, so a restart, a second process, or
`operator-app results` after a crash sees exactly what the model was (or should be) told. The
journal of changes lives beside it (safety/journal.py).

Layout of a state folder (one per workspace):
    session/messages.jsonl   one record when a message starts and one when it ends
    session/messages/N.txt   the message text
    (every folder 0700, every file 0600: the person's alone, ondisk/private.py)
    session/results.jsonl    one record per result: message number, result (with the record of
                             what its action did, protocol/outcomes.py), content key
    journal/                 see safety/journal.py
    trash/                   deleted files when the system has no trash
    lock                     held while a process works in the session (state/lock.py)
    waiting/                 which writes wait for a person's answer meanwhile
    workspace                the workspace folder this state folder serves (known.py reads it:
                             `undo` and `results` name the workspaces that have a session)

The state folder must lie outside the workspace and the workspace outside it
(`check_state_location`): inside, the model could read the session and, with one approved write,
plant journal records that make `undo` move files across the boundary.

A write's result is appended and fsynced on its own, before it is shown. Read results are staged
and appended together, one write for a batch (the engine flushes before anything is shown),
and fsynced with the message's end: a read can be run again, and a 100-block paste paid for 100
appends. Used ids come from an index (used_ids.py) kept up to date without reading back what
this process wrote.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from ...protocol.results import CommandResult
from ..ondisk.jsonl import append_jsonl, fsync_file, read_jsonl
from ..ondisk.private import narrow_tree, private_folder, write_private
from .lock import LOCK_TIMEOUT_S, SessionLock, StateUnusable
from .used_ids import UsedId, UsedIdIndex, UsedIds, WriteIntent

__all__ = [
    "LOCK_TIMEOUT_S",
    "MESSAGE_TEXT_LIMIT",
    "STATE_APP_NAME",
    "STORED_DIFF_LIMIT",
    "WORKSPACE_RECORD",
    "MessageRecord",
    "Session",
    "StateUnusable",
    "StoredResult",
    "UsedId",
    "UsedIds",
    "WriteIntent",
    "check_state_location",
    "default_state_dir",
]

STATE_APP_NAME = "operator-app"
WORKSPACE_RECORD = "workspace"  # in the state folder: the root of the workspace it serves
MESSAGE_TEXT_LIMIT = 5_000_000  # bytes of a message kept for the history view
# A write's diff is kept in results.jsonl for the history view only (the model never gets it):
# a rewrite of a large file must not make a line of that size, read back on every restart.
STORED_DIFF_LIMIT = 200_000  # characters


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
        where = (
            "is the workspace folder itself" if state == root else f"is inside the workspace {root}"
        )
        raise StateUnusable(
            f"the state folder {state} {where}, where the model could read the session "
            "and change the undo journal; use a state folder outside the workspace"
        )
    if root.is_relative_to(state):
        raise StateUnusable(
            f"the workspace {root} is inside the state folder "
            f"{state}; use a state folder outside the workspace"
        )


def state_home() -> Path:
    """Where the sessions of every workspace live: $OPERATOR_STATE_DIR when set (beside
    $OPERATOR_CONFIG_DIR, so a trial or a test moves all of Operator's files with two variables),
    else the user's state folder (platformdirs)."""
    override = os.environ.get("OPERATOR_STATE_DIR")
    if override:
        return Path(override)
    home = _xdg_state_home()
    if home is not None:
        return Path(home) / STATE_APP_NAME
    from platformdirs import user_state_dir

    return Path(user_state_dir(STATE_APP_NAME))


def _xdg_state_home() -> str | None:
    """On Linux, the folder platformdirs names for XDG_STATE_HOME, read without importing it (as
    settings.py's `_xdg_home` reads the config home, and for the same reason: docs/design.md,
    "Start-up"); None where platformdirs must answer."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel"):
        return None
    named = os.environ.get("XDG_STATE_HOME", "")
    if os.path.isabs(named):
        return named
    home = os.environ.get("HOME", "")
    return os.path.expanduser("~/.local/state") if os.path.isabs(home) else None


def default_state_dir(workspace_root: Path) -> Path:
    digest = hashlib.sha256(str(workspace_root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = (
        "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in workspace_root.name)[:40]
        or "root"
    )
    return state_home() / "workspaces" / f"{name}-{digest}"


class StoredResult(Struct, frozen=True):
    message: int
    result: CommandResult
    content_key: str | None  # set when the result belongs to a command that ran (or was refused)


class MessageRecord(Struct, frozen=True, kw_only=True):
    number: int
    started: float
    source: str
    chars: int
    warnings: tuple[str, ...]
    ended: bool


class Session:
    def __init__(self, state_dir: Path, *, workspace_root: Path | None = None) -> None:
        """`workspace_root`: refuse (StateUnusable) a state folder in or holding that workspace."""
        if workspace_root is not None:
            check_state_location(workspace_root, state_dir)
        self.state_dir = state_dir
        self.dir = state_dir / "session"
        try:
            # Every folder from Operator's state home down is the person's alone (ondisk/private).
            home = state_home()
            if private_folder(state_dir, top=home if state_dir.is_relative_to(home) else None):
                narrow_tree(state_dir)  # made by an Operator that left it readable to others
            private_folder(self.dir / "messages", top=state_dir)
            probe = state_dir / ".probe"
            write_private(probe, b"ok")
            probe.unlink()
            if workspace_root is not None:
                _record_workspace(state_dir, workspace_root)
        except OSError as exc:
            raise StateUnusable(
                f"cannot use state folder {state_dir}: {exc.strerror or exc}"
            ) from exc
        self._messages = self.dir / "messages.jsonl"
        self._results = self.dir / "results.jsonl"
        self._used = UsedIdIndex(self._results)
        self._lock = SessionLock(state_dir, on_acquired=self._others_may_have_written)
        self._staged: list[
            tuple[int, CommandResult, str | None]
        ] = []  # read results not appended yet

    def _others_may_have_written(self) -> None:
        self._used.current = False

    # --- reading -------------------------------------------------------------------------

    def stored_results(self) -> list[StoredResult]:
        out = []
        for record in read_jsonl(self._results):
            try:
                result = CommandResult.from_json(record["result"])
            except (KeyError, TypeError):
                continue
            out.append(
                StoredResult(int(record.get("message", 0)), result, record.get("content_key"))
            )
        return out

    def _index(self) -> UsedIdIndex:
        self._used.refresh()
        # While this thread holds the lock no one else appends: no need to look again until
        # the lock is let go of (a wait for consent) and taken back.
        self._used.current = self._lock.held
        return self._used

    def unresolved_intents(self) -> list[WriteIntent]:
        """Approved writes with no result after them: the app died between consent and result."""
        return list(self._index().open_intents.values())

    def used_ids(self) -> UsedIds:
        """id -> (content key, message number, first result) of every command that ran, including
        those recorded by another process since the last call and the results staged here. Do
        not change the dict returned."""
        return self._index().used

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
            MessageRecord(
                number=n,
                started=float(r.get("time", 0)),
                source=str(r.get("source", "")),
                chars=int(r.get("chars", 0)),
                warnings=warnings.get(n, ()),
                ended=n in ended,
            )
            for n, r in sorted(started.items())
        ]

    def message_text(self, number: int) -> str | None:
        try:
            return (self.dir / "messages" / f"{number}.txt").read_text(
                encoding="utf-8", errors="replace"
            )
        except OSError:
            return None

    def results_of(self, number: int) -> list[CommandResult]:
        return [s.result for s in self.stored_results() if s.message == number]

    def last_message_number(self) -> int:
        numbers = [m.number for m in self.messages()]
        return max(numbers, default=0)

    def waits(self) -> list[dict[str, Any]]:
        """The writes that wait for a person's answer in other Operator processes (or threads) of
        this session: message, id, action, path, pid, since."""
        return self._lock.waits()

    # --- writing -------------------------------------------------------------------------

    def start_message(self, *, source: str, text: str | None) -> int:
        number = self.last_message_number() + 1
        if text is not None:
            write_private(
                self.dir / "messages" / f"{number}.txt",
                text[-MESSAGE_TEXT_LIMIT:].encode("utf-8", "surrogateescape"),
            )
        append_jsonl(
            self._messages,
            {
                "event": "start",
                "message": number,
                "time": time.time(),
                "source": source,
                "chars": len(text) if text is not None else 0,
            },
        )
        return number

    def append_message_text(self, number: int, chunk: str) -> None:
        write_private(
            self.dir / "messages" / f"{number}.txt",
            chunk.encode("utf-8", "surrogateescape"),
            append=True,
        )

    def end_message(self, number: int, warnings: list[str]) -> None:
        self.flush_results()
        fsync_file(self._results)  # the read results, appended without a sync of their own
        append_jsonl(
            self._messages,
            {"event": "end", "message": number, "time": time.time(), "warnings": warnings},
        )

    def record_intent(
        self,
        number: int,
        command_id: str,
        *,
        action: str,
        path: str,
        line: int | None,
        summary: str,
        content_key: str | None,
        extra: dict[str, object] | None = None,
    ) -> None:
        """Before an approved write is committed (durable): see WriteIntent. Readers of results
        skip these records; a result for the same command closes it. `extra`: what a String
        block's result needs to be told again (its topic, command line, time; an /undo's change)."""
        self._append(
            [
                {
                    "message": number,
                    "content_key": content_key,
                    "intent": {
                        "id": command_id,
                        "action": action,
                        "path": path,
                        "line": line,
                        "summary": summary,
                        "time": time.time(),
                        **({"extra": extra} if extra else {}),
                    },
                }
            ],
            sync=True,
        )

    def record_result(
        self, number: int, result: CommandResult, content_key: str | None, *, durable: bool = True
    ) -> None:
        """Append a result now (after any staged ones, which keep their order). The write() alone
        survives the app dying (the data is in the kernel); `durable` also fsyncs it, against a
        power cut, which a write's result needs (the file on disk changed)."""
        self.stage_result(number, result, content_key)
        self.flush_results(sync=durable)

    def stage_result(self, number: int, result: CommandResult, content_key: str | None) -> None:
        """Keep a read's result for the next `flush_results()`. Its id counts as used at once."""
        stored = _stored(result)
        self._staged.append((number, stored, content_key))
        self._used.take({"message": number, "result": stored, "content_key": content_key})

    def flush_results(self, *, sync: bool = False) -> None:
        """Append the staged results in one write (their ids are in the index already)."""
        if not self._staged:
            return
        staged, self._staged = self._staged, []
        records = [
            {"message": n, "result": r.to_json(), "content_key": key} for n, r, key in staged
        ]
        self._used.appended(append_jsonl(self._results, records, sync=sync))

    def _append(self, records: list[dict[str, Any]], *, sync: bool) -> None:
        self.flush_results()  # the staged results come first, in message order
        for record in records:
            self._used.take(record)
        self._used.appended(append_jsonl(self._results, records, sync=sync))

    @contextmanager
    def lock(self, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        """Hold the session while working in it, across processes and threads (state/lock.py)."""
        with self._lock.hold(timeout):
            yield

    @contextmanager
    def waiting_for_person(
        self, number: int, command_id: str, action: str, path: str
    ) -> Iterator[None]:
        """Let go of the session while a write of message `number` waits for its consent."""
        with self._lock.waiting(
            {"message": number, "id": command_id, "action": action, "path": path}
        ):
            yield


def _record_workspace(state_dir: Path, workspace_root: Path) -> None:
    # Written once (again only when another workspace takes over a --state-dir): the hashed name
    # of a default state folder cannot be read back into the folder it serves.
    text = os.path.realpath(workspace_root).encode("utf-8", "surrogateescape")
    record = state_dir / WORKSPACE_RECORD
    try:
        if record.read_bytes() == text:
            return
    except OSError:
        pass
    write_private(record, text)


def message_count(state_dir: Path) -> int:
    """How many messages the session in `state_dir` holds, read without opening the session (no
    folder is created, no lock taken): for a list of workspaces to choose from."""
    return sum(
        1
        for record in read_jsonl(state_dir / "session" / "messages.jsonl")
        if record.get("event") == "start"
    )


def _stored(result: CommandResult) -> CommandResult:
    """The result as the session keeps it: whole, except a write's preview diff over
    STORED_DIFF_LIMIT, cut at a line break, with a last line and `extra["diff_clipped"]` (its full
    length) saying so. What the model is told (id, ok, summary, details) is never cut."""
    diff = result.diff
    if diff is None or len(diff) <= STORED_DIFF_LIMIT:
        return result
    cut = diff.rfind("\n", 0, STORED_DIFF_LIMIT) + 1 or STORED_DIFF_LIMIT
    note = f"[... diff clipped: {len(diff) - cut} more characters are not kept in the session]"
    return replace(
        result, diff=diff[:cut] + note, extra={**result.extra, "diff_clipped": len(diff)}
    )
