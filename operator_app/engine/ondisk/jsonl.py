"""The state folder's record files: JSON objects, one a line, only ever appended. An append
restores a line boundary first (a crash can leave a torn last line) and writes all its records
in one write(); a reader skips any line that is not a whole JSON object, so a torn record costs
only itself. fsync helpers for the files and folders beside them."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

# json.dumps builds a new encoder for every call that sets an option.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


class Appended(Struct, frozen=True):
    """Where an append put its records: they end at `end`; `start` is the file's size before
    (so the records follow a line the file already ended, or a torn one this append closed)."""

    start: int
    end: int
    identity: tuple[int, int]  # device and inode of the file appended to


def append_jsonl(
    path: Path, records: dict[str, Any] | Sequence[dict[str, Any]], *, sync: bool = True
) -> Appended:
    """Append one record, or several in one write, each as one line. A last line left without
    its newline (a crash mid-append) is closed first: glued to it, this record would be
    unreadable and lost with it."""
    if isinstance(records, dict):
        records = (records,)
    data = "".join(_ENCODE(record) + "\n" for record in records).encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        # Callers hold the session lock; this lock of the file itself also keeps the boundary
        # check and the write together for any appender that does not.
        fcntl.flock(fd, fcntl.LOCK_EX)
        info = os.fstat(fd)
        size = info.st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
    return Appended(size, size + len(data), (info.st_dev, info.st_ino))


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with path.open("rb") as handle:
            for line in handle:
                record = parse_line(line)
                if record is not None:
                    yield record
    except FileNotFoundError:
        return


def parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:  # torn by a crash (cut JSON, or cut inside a UTF-8 sequence): skipped alone
        return None
    return record if isinstance(record, dict) else None


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
