"""A topic's session, kept in the state folder so it survives a restart: the current document and
the history /back walks, the variables /set gave, the hash of each file as this topic last read
(or wrote) it, which CONFLICT is checked against, the changes /undo takes back, and the versions
/commit kept. `/close` removes it all.

A topic is read from disk once per message and written back once (TopicStore.flush), when the
message's blocks have run, before the engine lets go of the session lock (a chunk of a streamed
message ends, a write waits for the person): rewriting and syncing it after every block made
5,000 /write blocks in one topic take minutes. Each save is a temporary file, fsynced and
renamed, under the session lock."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from msgspec import Struct, field, to_builtins

from ..ondisk.private import private_folder

HISTORY_KEPT = 50
CHANGES_KEPT = 200


class Place(Struct):
    """A location the topic opened: the file (workspace-relative), the block or lines in it, and
    how the model wrote it (for the system messages)."""

    rel: str
    shown: str
    block: str | None = None
    lines: tuple[int, int] | None = None


class Version(Struct):
    number: int
    time: float
    sha: str
    size: int


class TopicState(Struct):
    name: str  # "file:notes"
    current: Place | None = None
    history: list[Place] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)
    read: dict[str, str] = field(default_factory=dict)  # rel -> sha256 of the bytes last read
    changes: list[str] = field(default_factory=list)  # command ids of its changes, oldest first
    versions: dict[str, list[Version]] = field(default_factory=dict)  # rel -> its versions
    # A bash topic's session (engine/chanflow/bash.py): the folder its next script starts in,
    # the last exit status and when, and the script running now (with the pid of the Operator
    # that runs it), if any. Nothing else of a shell persists: each script is a new bash.
    cwd: str = "."
    last_exit: int | None = None
    last_at: str = ""
    running: dict[str, Any] | None = None

    def go_to(self, place: Place) -> None:
        if self.current is not None and self.current != place:
            self.history.append(self.current)
            del self.history[:-HISTORY_KEPT]
        self.current = place

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = to_builtins(self)  # nested places and versions too
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TopicState:
        def place(value: Any) -> Place | None:
            if not isinstance(value, dict):
                return None
            lines = value.get("lines")
            return Place(
                str(value["rel"]),
                str(value["shown"]),
                value.get("block"),
                (int(lines[0]), int(lines[1])) if lines else None,
            )

        history = [p for p in (place(v) for v in data.get("history", [])) if p is not None]
        versions = {
            str(rel): [Version(**v) for v in items]
            for rel, items in dict(data.get("versions", {})).items()
        }
        return cls(
            name=str(data["name"]),
            current=place(data.get("current")),
            history=history,
            variables={str(k): str(v) for k, v in dict(data.get("variables", {})).items()},
            read={str(k): str(v) for k, v in dict(data.get("read", {})).items()},
            changes=[str(c) for c in data.get("changes", [])],
            versions=versions,
            cwd=str(data.get("cwd") or "."),
            last_exit=data["last_exit"] if isinstance(data.get("last_exit"), int) else None,
            last_at=str(data.get("last_at") or ""),
            running=data["running"] if isinstance(data.get("running"), dict) else None,
        )


class TopicStore:
    """The topics of one state folder: state/topics/<name>.json and <name>.versions/."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir / "topics"
        self._open: dict[str, TopicState] = {}  # the topics this message has loaded
        self._changed: set[str] = set()  # those of them to write back

    def _stem(self, topic: str) -> str:
        """file:notes is "notes" (as it always was), bash:dev "bash.dev": a name has no dots."""
        kind, _, name = topic.partition(":")
        return name if kind == "file" else f"{kind}.{name}"

    def _file(self, topic: str) -> Path:
        return self.dir / f"{self._stem(topic)}.json"

    def versions_dir(self, topic: str) -> Path:
        return self.dir / f"{self._stem(topic)}.versions"

    def load(self, topic: str) -> TopicState:
        """The topic's state: the one this message already has, else the saved one."""
        state = self._open.get(topic)
        if state is None:
            state = self._open[topic] = self._read(topic)
        return state

    def _read(self, topic: str) -> TopicState:
        try:
            data = json.loads(self._file(topic).read_text(encoding="utf-8"))
            state = TopicState.from_json(data)
        except FileNotFoundError:
            return TopicState(topic)
        except (OSError, ValueError, KeyError, TypeError):
            # A broken record costs the topic its memory, never the command: it starts afresh.
            return TopicState(topic)
        return state if state.name == topic else TopicState(topic)

    def save(self, state: TopicState) -> None:
        """Keep `state` to be written back by the next flush()."""
        self._open[state.name] = state
        self._changed.add(state.name)

    def flush(self) -> None:
        """Write back every topic changed since the last flush, and forget what was loaded (the
        next message reads the topics afresh: another Operator may have used them meanwhile)."""
        changed, self._changed = self._changed, set()
        try:
            for name in sorted(changed):
                self._write(self._open[name])
        finally:
            self._open.clear()

    def _write(self, state: TopicState) -> None:
        private_folder(self.dir, top=self.dir.parent)
        del state.changes[:-CHANGES_KEPT]
        fd, temp = tempfile.mkstemp(dir=self.dir, prefix=".topic-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(state.to_json(), handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self._file(state.name))
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def discard(self, topic: str) -> None:
        self._open.pop(topic, None)
        self._changed.discard(topic)
        self._file(topic).unlink(missing_ok=True)
        shutil.rmtree(self.versions_dir(topic), ignore_errors=True)

    def keep_version(self, topic: str, sha: str, data: bytes) -> None:
        folder = self.versions_dir(topic)
        private_folder(folder, top=self.dir.parent)
        path = folder / f"{sha}.bin"
        if not path.exists():
            fd, temp = tempfile.mkstemp(dir=folder, prefix=".version-", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise

    def version_bytes(self, topic: str, sha: str) -> bytes:
        return (self.versions_dir(topic) / f"{sha}.bin").read_bytes()
