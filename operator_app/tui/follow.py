"""Tailing a file another program writes a message into (`--follow FILE`). `poll()` returns the
text added since the last call, and whether the message ended: the file was truncated (it got
smaller, or its first bytes changed under the same size or larger), or replaced (another inode at
that path). Text is decoded incrementally, so a UTF-8 character split across two writes is not
garbled. No threads and no Textual here: the caller polls."""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import BinaryIO

from msgspec import Struct

from ..protocol import WINDOW_CHARS

READ_LIMIT = 1 << 20  # bytes per poll; the rest comes on the next one
HEAD_BYTES = 256  # kept to notice a file rewritten from the start between two polls
# A message already longer than this when it is first seen starts being read this far from its
# end: its last WINDOW_CHARS characters (at most 4 bytes each) are all the spec lets be scanned.
TAIL_BYTES = 4 * WINDOW_CHARS + 4


def _open(path: Path) -> BinaryIO | None:
    """The file open for reading, or None if it cannot be opened. Only the opening is guarded:
    an error while reading an open file is not taken for a missing file."""
    try:
        return open(path, "rb")
    except OSError:
        return None


class Poll(Struct):
    text: str
    restarted: bool  # the file was truncated or replaced: the previous message is over


class FileFollower:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._identity: tuple[int, int] | None = None
        self._offset = 0
        self._head = b""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def poll(self) -> Poll:
        handle = _open(self.path)
        if handle is None:  # not there (yet, or between a delete and a re-create)
            return Poll("", False)
        with handle:
            st = os.fstat(handle.fileno())
            identity = (st.st_dev, st.st_ino)
            restarted = False
            if self._identity is not None and (
                identity != self._identity
                or st.st_size < self._offset
                or handle.read(len(self._head)) != self._head
            ):
                restarted = True
                self._offset, self._head = 0, b""
                self._decoder.reset()
            self._identity = identity
            if st.st_size <= self._offset:
                return Poll("", restarted)
            if self._offset == 0 and st.st_size > TAIL_BYTES:
                # Text written before Operator looked: read from near its end (the head is kept
                # all the same, to notice a rewrite); the scan skips the cut line at the start.
                # From byte 0: the restart check above may have read past it already.
                handle.seek(0)
                self._head = handle.read(HEAD_BYTES)
                self._offset = st.st_size - TAIL_BYTES
            handle.seek(self._offset)
            data = handle.read(min(READ_LIMIT, st.st_size - self._offset))
        if len(self._head) < HEAD_BYTES:
            self._head += data[: HEAD_BYTES - len(self._head)]
        self._offset += len(data)
        return Poll(self._decoder.decode(data), restarted)
