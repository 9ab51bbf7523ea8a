"""The real app in a real terminal (tmux): paste a message holding reads and writes as a bracketed
paste, approve each write with `y`, check the files, copy with `c`, and read what arrived in
tmux's buffer through OSC 52 (`set-clipboard on`). It must equal what `operator-app exec` prints
for the same message. Skipped where tmux is not installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo-workspace"
MESSAGE = ROOT / "fixtures" / "messages" / "demo.txt"
APP = Path(sys.executable).with_name("operator-app")

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def tmux(*args: str, check: bool = True) -> str:
    return subprocess.run(
        ["tmux", "-L", SOCKET, *args], check=check, capture_output=True, text=True
    ).stdout


SOCKET = f"operator-test-{uuid.uuid4().hex[:8]}"


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", "op")


def wait_screen(text: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    shown = ""
    while time.monotonic() < deadline:
        shown = screen()
        if text in shown:
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared on screen:\n{shown}")


def test_paste_approve_copy_in_a_real_terminal(tmp_path: Path) -> None:
    workspace, exec_workspace = tmp_path / "ws", tmp_path / "exec-ws"
    shutil.copytree(DEMO, workspace)
    shutil.copytree(DEMO, exec_workspace)
    expected = subprocess.run(
        [
            str(APP),
            "exec",
            "--workspace",
            str(exec_workspace),
            "--state-dir",
            str(tmp_path / "exec-state"),
            "--approve",
            "all",
            str(MESSAGE),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    env = f"OPERATOR_CONFIG_DIR={tmp_path / 'config'} OPERATOR_TRASH=session TERM=xterm-256color"
    command = f"env {env} {APP} --workspace {workspace} --state-dir {tmp_path / 'state'}"
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "op", "-x", "160", "-y", "45", command)
    try:
        tmux("set-option", "-g", "set-clipboard", "on")
        wait_screen("Welcome to Operator")
        tmux("set-buffer", "-b", "msg", MESSAGE.read_text())
        tmux("paste-buffer", "-p", "-b", "msg", "-t", "op")
        # The message holds two writes. Wait for each one's own dialog: the first may still be on
        # screen just after its y, and a key typed before a dialog is shown answers nothing.
        for dialog in ("fs.applyEdits changes notes/plan.txt", "fs.patch changes src/app.py"):
            wait_screen(dialog)
            tmux("send-keys", "-t", "op", "y")
        wait_screen("Press c to copy")
        assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
        assert 'return f"Hello there, {name}!"' in (workspace / "src" / "app.py").read_text()
        tmux("delete-buffer", "-b", "msg")
        tmux("send-keys", "-t", "op", "c")
        deadline = time.monotonic() + 10
        copied = ""
        while time.monotonic() < deadline and copied != expected:
            copied = tmux("show-buffer", check=False)
            time.sleep(0.2)
        assert copied == expected
    finally:
        tmux("kill-server", check=False)
