"""A command's output as it arrives: all of it written to a file in the state folder, and what the
result keeps of it: the whole output when it is short, else its first and last lines with "N
lines cut" between them. Also the last lines so far, for the live view.

The file keeps at most SAVED_MAX_BYTES: a command may print for its whole time limit (`yes` fills
gigabytes in two minutes), and the state folder must not fill the person's disk for it; past the
bound the output is still counted, and its last lines kept, but no longer saved."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import NamedTuple

from ...protocol.escapes import escape_text
from ..ondisk.atomic import write_all

HEAD_LINES = 100
TAIL_LINES = 100
HEAD_BYTES = 20_000
TAIL_BYTES = 20_000
LIVE_BYTES = 8_000
SAVED_MAX_BYTES = 64 * 1024 * 1024


class OutputLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        self._lock = threading.Lock()
        self.bytes = 0
        self.saved = 0  # bytes written to the file: all of them, up to SAVED_MAX_BYTES
        self.lines = 0  # line breaks seen
        self._head = bytearray()  # the first bytes, up to HEAD_LINES lines and HEAD_BYTES
        self._head_full = False
        self._tail = bytearray()  # the last bytes (a little more than TAIL_BYTES)
        self.ends_with_break = True

    def write(self, chunk: bytes) -> None:
        with self._lock:
            kept = chunk[: SAVED_MAX_BYTES - self.saved]
            if kept:
                write_all(self._fd, kept)
                self.saved += len(kept)
            self.bytes += len(chunk)
            self.lines += chunk.count(b"\n")
            if not self._head_full:  # all of a short output; kept() takes its first lines
                room = HEAD_BYTES - len(self._head)
                self._head += chunk[:room]
                self._head_full = len(self._head) >= HEAD_BYTES
            self._tail += chunk
            if len(self._tail) > 2 * TAIL_BYTES:
                del self._tail[: len(self._tail) - TAIL_BYTES]
            if chunk:
                self.ends_with_break = chunk.endswith(b"\n")

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def live(self) -> str:
        """The last lines so far, for the person watching."""
        with self._lock:
            tail = bytes(self._tail[-LIVE_BYTES:])
        if len(tail) == LIVE_BYTES:
            tail = tail.split(b"\n", 1)[-1]
        return tail.decode("utf-8", "replace")

    @property
    def line_count(self) -> int:
        """Lines of output, a last one without its line break counted."""
        return self.lines + (0 if self.ends_with_break or not self.bytes else 1)

    def kept(self) -> Kept:
        """What the result shows: the whole output when short, else its first lines (at most
        HEAD_LINES and HEAD_BYTES) and its last (TAIL_LINES, TAIL_BYTES), with what was cut
        between them said exactly, in lines and bytes: one line of megabytes is cut too."""
        with self._lock:
            total, breaks = self.bytes, self.lines
            head, tail = bytes(self._head), bytes(self._tail)
            whole = total <= HEAD_BYTES and self.line_count <= HEAD_LINES + TAIL_LINES
        if whole:
            return Kept(readable(head))
        shown_head = _first_lines(head, HEAD_LINES)
        room = min(TAIL_BYTES, total - len(shown_head))
        shown_tail = _last_lines(tail[len(tail) - room :] if room > 0 else b"", TAIL_LINES)
        cut_bytes = total - len(shown_head) - len(shown_tail)
        if cut_bytes <= 0:  # the two ends meet: all of it fits after all (20,001 to 40,000 bytes)
            return Kept(readable(shown_head + shown_tail))
        cut_lines = breaks - shown_head.count(b"\n") - shown_tail.count(b"\n")
        if cut_lines:
            what = f"{cut_lines} line{'s' if cut_lines != 1 else ''} cut ({cut_bytes:,} bytes"
        else:
            what = f"{cut_bytes:,} bytes of one long line cut (no line break among them"
        middle = f"... {what}; the whole output: {self.path}) ..."
        text = readable(shown_head)
        if text and not text.endswith("\n"):
            text += "\n"
        text += middle + "\n" + readable(shown_tail)
        if not text.endswith("\n"):
            text += "\n"
        return Kept(text, cut_lines, cut_bytes)


def readable(data: bytes) -> str:
    """Output as a terminal would have shown it, in text a model reads: colours and cursor moves
    dropped, a line redrawn with carriage returns (a progress bar) as it was last drawn, bytes
    that are not UTF-8 as U+FFFD, and any other control character escaped (\\x07), tab and line
    feed kept. The saved file keeps the bytes as they came."""
    text = data.decode("utf-8", "replace")
    if "\x1b" in text:
        text = _OSC_RE.sub("", _CSI_RE.sub("", text))
    if "\r" in text:
        text = "\n".join(_as_drawn(line) for line in text.replace("\r\n", "\n").split("\n"))
    return escape_text(text)


def _as_drawn(line: str) -> str:
    if "\r" not in line:
        return line
    return next((part for part in reversed(line.split("\r")) if part), "")


# ECMA-48 control sequences: CSI (colours, cursor moves, erasing) and OSC (a window title, a
# link), which tools print even into a pipe when told to (pytest --color=yes, FORCE_COLOR).
_CSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_OSC_RE = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


class Kept(NamedTuple):
    text: str
    cut_lines: int = 0  # line breaks in the part left out
    cut_bytes: int = 0  # 0: nothing was left out


def _first_lines(data: bytes, count: int) -> bytes:
    """The first `count` lines of `data` with their breaks, or all of it (a line it cuts short
    stays as far as it goes)."""
    parts = data.split(b"\n")
    if len(parts) <= count:
        return data
    return b"\n".join(parts[:count]) + b"\n"


def _last_lines(data: bytes, count: int) -> bytes:
    """The last `count` lines of `data` (a last one without its break counts; a first one that
    `data` begins in the middle of is kept from there)."""
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        count += 1  # the empty part after the last break
    return b"\n".join(parts[-count:]) if len(parts) > count else data
