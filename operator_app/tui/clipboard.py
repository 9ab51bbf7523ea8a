"""The system clipboard, through whichever command-line tool the system has (wl-copy/wl-paste,
xclip, xsel, pbcopy/pbpaste). The terminal clipboard (OSC 52) is Textual's own
`App.copy_to_clipboard`; this module is the second route, and the source `--watch-clipboard`
polls. Every call has a short timeout so a hung tool never freezes anything."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Protocol

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
        commands += [["xclip", "-selection", "clipboard", "-o"], ["xsel", "--clipboard", "--output"]]
    return [c for c in commands if shutil.which(c[0])]


def copy_to_system(text: str) -> str | None:
    """Copy with the first tool that works; its name, or None when no system clipboard is reachable."""
    for command in _copy_commands():
        try:
            subprocess.run(command, input=text.encode("utf-8"), timeout=TIMEOUT_S, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return command[0]
        except (OSError, subprocess.SubprocessError):
            continue
    return None


class ClipboardSource(Protocol):
    def read(self) -> str | None: ...


class SystemClipboard:
    """Reads the system clipboard (None when there is no tool or it fails)."""

    def read(self) -> str | None:
        for command in _paste_commands():
            try:
                done = subprocess.run(command, timeout=TIMEOUT_S, check=True, capture_output=True)
                return done.stdout.decode("utf-8", errors="replace")
            except (OSError, subprocess.SubprocessError):
                continue
        return None
