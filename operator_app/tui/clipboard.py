"""The system clipboard, through whichever command-line tool the system has (wl-copy/wl-paste,
xclip, xsel, pbcopy/pbpaste). The terminal clipboard (OSC 52) is Textual's own
`App.copy_to_clipboard`; this module is the second route, the file every copy is also saved to,
and the source `--watch-clipboard` polls. Every call has a short timeout so a hung tool never
freezes anything. No Textual here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from .. import settings
from ..engine import private_folder, write_private
from ..protocol import may_hold_blocks

TIMEOUT_S = 2.0


def _copy_commands() -> list[list[str]]:
    commands = []
    if sys.platform == "darwin":
        commands.append(["pbcopy"])
    if os.environ.get("WAYLAND_DISPLAY"):
        commands.append(["wl-copy"])
    if os.environ.get("DISPLAY"):
        commands += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    return [c for c in commands if shutil.which(c[0])]


def _paste_commands() -> list[list[str]]:
    commands = []
    if sys.platform == "darwin":
        commands.append(["pbpaste"])
    if os.environ.get("WAYLAND_DISPLAY"):
        commands.append(["wl-paste", "--no-newline"])
    if os.environ.get("DISPLAY"):
        commands += [
            ["xclip", "-selection", "clipboard", "-o"],
            ["xsel", "--clipboard", "--output"],
        ]
    return [c for c in commands if shutil.which(c[0])]


def copy_to_system(text: str) -> str | None:
    """Copy with the first tool that works; its name, or None when no system clipboard is
    reachable."""
    for command in _copy_commands():
        try:
            # xclip and wl-copy stay alive to serve the selection: don't wait on their output pipes.
            subprocess.run(
                command,
                input=text.encode("utf-8"),
                timeout=TIMEOUT_S,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            return command[0]
        except (OSError, subprocess.SubprocessError):
            continue
    return None


class CopyOutcome(Struct, frozen=True):
    tool: str | None  # the system clipboard tool that took the text, if any
    saved_to: Path | None  # where the text was saved, if that worked
    chars: int


def where_saved(path: Path) -> str:
    """The file a copy was saved to, as the person is told of it: with a warning when it lies in a
    folder removed when this run ends (the demo's scratch copy)."""
    scratch = settings.scratch_dir()
    if scratch is not None and path.is_relative_to(scratch):
        return f"{path} (the demo's scratch folder: removed when the demo ends)"
    return str(path)


def deliver(text: str, save_to: Path) -> CopyOutcome:
    """Save the text to a file and copy it to the system clipboard where one is reachable (the
    terminal's OSC 52 copy is the caller's, on the UI thread). Blocking: call it from a worker."""
    saved: Path | None = save_to
    try:
        # The copies hold what the model is told: the person's alone, as the state folder is.
        private_folder(save_to.parent, top=save_to.parent.parent)
        write_private(save_to, text.encode("utf-8", "surrogateescape"))
    except OSError:
        saved = None
    return CopyOutcome(copy_to_system(text), saved, len(text))


class ClipboardSource(Protocol):
    def read(self) -> str | None: ...


class SystemClipboard:
    """Reads the system clipboard (None when there is no tool or it fails)."""

    def available(self) -> bool:
        return bool(_paste_commands())

    def why_unavailable(self) -> str:
        """Why `available()` is False, in terms of what the person can change."""
        if sys.platform == "darwin":
            return "pbpaste was not found"
        if not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("DISPLAY"):
            return (
                "there is no graphical session here ($DISPLAY and $WAYLAND_DISPLAY are not set, as "
                "over SSH or in a console), so no system clipboard to read"
            )
        wanted = (
            "wl-paste (package wl-clipboard)"
            if os.environ.get("WAYLAND_DISPLAY")
            else "xclip or xsel"
        )
        return f"no clipboard tool found: install {wanted}"

    def read(self) -> str | None:
        for command in _paste_commands():
            try:
                done = subprocess.run(command, timeout=TIMEOUT_S, check=True, capture_output=True)
                return done.stdout.decode("utf-8", errors="replace")
            except (OSError, subprocess.SubprocessError):
                continue
        return None


def watch_loop(
    source: ClipboardSource,
    on_text: Callable[[str], object],
    is_own: Callable[[str], bool],
    stopping: Callable[[], bool],
    interval: float,
) -> None:
    """Poll `source` until `stopping()`; call `on_text` with each new text that holds OPERATOR_CMD
    or a String block's tag and is not one of Operator's own copies (the system prompt holds
    examples of both). What the clipboard held when watching began is not new."""
    last = source.read()
    while not stopping():
        time.sleep(interval)
        text = source.read()
        if text is None or text == last:
            continue
        last = text
        if may_hold_blocks(text) and not is_own(text):
            on_text(text)
