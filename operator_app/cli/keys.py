"""One answer read from the controlling terminal, as the TUI takes it: a single key, no Enter. The
terminal is put in cbreak mode (no line editing, no echo; Ctrl-C still interrupts) only while a
question waits, and its settings are put back on every way out: an answer, Ctrl-C, SIGTERM, the
terminal closing. Keys typed before the question is shown are dropped, so a "yes" typed ahead
(or the Enter after a key) never answers the next question. Where the terminal cannot be put in
cbreak mode, a line is read instead (the first letter, or the word, then Enter).

/dev/tty is opened twice, for reading and for writing: a text stream cannot be opened "r+" on it
(not seekable), which once made every answer a silent no."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import IO, Any

WORDS = {"yes": "y", "no": "n", "all": "a", "diff": "d"}  # line mode also takes the words


class Keys:
    def __init__(self, fd: int, out: IO[str]) -> None:
        self.fd = fd
        self.out = out
        self.one_key = _can_take_keys(fd)
        self._lines: IO[str] | None = (
            None if self.one_key else open(fd, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        )

    def ask(self, question: str, keys: str) -> str:
        """Show `question` and return the key pressed among `keys` (lower case); anything else
        asks again. A terminal gone (or Ctrl-D) is "n": nothing is done without a yes."""
        while True:
            got = self._key(question) if self.one_key else self._line(question)
            if got is None:  # said as the answer it stands for
                self._say("n (the terminal closed)\n" if self.one_key else "\nn (no answer)\n")
                return "n"
            answer = WORDS.get(got, got)
            if len(answer) == 1 and answer in keys:
                if self.one_key:
                    self._say(answer + "\n")  # the key is not echoed in cbreak mode
                return answer
            if self.one_key:
                self._say("\n")
            shown = "Enter" if got in ("", "\r", "\n") else repr(got)
            how = "press one of" if self.one_key else "answer one of"
            self._say(f"Please {how}: {', '.join(keys)} (got {shown}).\n")

    def _key(self, question: str) -> str | None:
        import termios
        import tty

        saved = termios.tcgetattr(self.fd)
        with _signals_restore():
            try:
                tty.setcbreak(self.fd, termios.TCSANOW)
                termios.tcflush(self.fd, termios.TCIFLUSH)  # what was typed before the question
                self._say(question)
                data = os.read(self.fd, 64)
            finally:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, saved)
        if not data or data == b"\x04":  # the terminal hung up; Ctrl-D
            return None
        text = data.decode("utf-8", "replace")
        # A key then Enter, arriving together, is that key; more (a paste, an arrow key's escape
        # sequence) is not an answer.
        key = text[:-1] if len(text) == 2 and text[1] in "\r\n" else text
        return key.lower() if len(key) == 1 and key.isprintable() else key

    def _line(self, question: str) -> str | None:
        assert self._lines is not None
        self._say(question)
        line = self._lines.readline()
        if not line:
            return None
        return line.strip().lower()

    def _say(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


def _can_take_keys(fd: int) -> bool:
    if not os.isatty(fd):
        return False
    try:
        import termios

        termios.tcgetattr(fd)
    except Exception:  # no termios here; termios.error (not an OSError)
        return False
    return True


@contextlib.contextmanager
def _signals_restore() -> Iterator[None]:
    """While a key is awaited, SIGTERM and SIGHUP end the process through Python (an exception),
    so the terminal's settings are put back on the way out; their own handlers come back after.
    (Ctrl-C is KeyboardInterrupt already.) Only the main thread may set handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def leave(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    previous = {sig: signal.signal(sig, leave) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def open_keys(path: str = "/dev/tty") -> Keys | None:
    """The terminal to ask on, or None when there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        out = open(path, "w", encoding="utf-8", errors="replace")  # noqa: SIM115 - kept open for the run
    except OSError:
        os.close(fd)
        return None
    return Keys(fd, out)
