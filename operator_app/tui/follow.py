"""Tailing a file another program writes a message into (`--follow FILE`). `poll()` returns the
text added since the last call, and whether the message ended: the file was truncated (it got
smaller) or replaced (another inode at that path). Text is decoded incrementally, so a UTF-8
character split across two writes is not garbled."""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path

READ_LIMIT = 1 << 20  # bytes per poll; the rest comes on the next one


@dataclass
class Poll:
    text: str
    restarted: bool  # the file was truncated or replaced: the previous message is over


class FileFollower:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._inode: tuple[int, int] | None = None
        self._offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def poll(self) -> Poll:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return Poll("", False)
        identity = (st.st_dev, st.st_ino)
        restarted = False
        if self._inode is not None and (identity != self._inode or st.st_size < self._offset):
            restarted = True
            self._offset = 0
            self._decoder.reset()
        self._inode = identity
        if st.st_size <= self._offset:
            return Poll("", restarted)
        with open(self.path, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read(min(READ_LIMIT, st.st_size - self._offset))
        self._offset += len(data)
        return Poll(self._decoder.decode(data), restarted)
