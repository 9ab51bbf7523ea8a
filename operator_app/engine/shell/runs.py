"""Where a command's files live in the state folder: its run folder (the overlay's upper and work
folders, removed once its change-set is applied or declined: the journal keeps what undo needs)
and its output file (kept, the newest OUTPUTS_KEPT of them)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import time
from pathlib import Path

OUTPUTS_KEPT = 100
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class RunFolder:
    def __init__(self, state_dir: Path, command_id: str) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        token = secrets.token_hex(4)
        name = _SAFE.sub("_", command_id)[:40] or "command"
        self.base = state_dir / "shell" / "runs" / f"{stamp}-{token}"
        self.upper = self.base / "upper"
        self.work = self.base / "work"
        self.started_ns = 0  # when the command was started (time.time_ns)
        outputs = state_dir / "shell" / "output"
        outputs.mkdir(parents=True, exist_ok=True)
        self.output = outputs / f"{stamp}-{name}-{token}.log"
        self.upper.mkdir(parents=True)
        self.work.mkdir()
        _prune(outputs)

    def remove(self) -> None:
        """The overlay's folders go (the work folder's own subfolder is made unreadable by the
        kernel: it is opened up first)."""
        for folder, dirs, _ in os.walk(self.base):
            for name in dirs:
                try:
                    os.chmod(os.path.join(folder, name), 0o700, follow_symlinks=False)
                except OSError:
                    pass
        shutil.rmtree(self.base, ignore_errors=True)


def _prune(outputs: Path) -> None:
    try:
        logs = sorted(outputs.glob("*.log"))
    except OSError:
        return
    for old in logs[:-OUTPUTS_KEPT]:
        try:
            old.unlink()
        except OSError:
            pass
