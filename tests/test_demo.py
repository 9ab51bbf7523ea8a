"""`python3 run.py demo` leaves no trace: the person's own settings are not touched (the TUI
remembers the workspace it opens, and a later bare `operator-app` must not open the demo's scratch
copy), and the scratch folder is gone when the demo ends (or, with --keep, its place is printed
with how to remove it). Run for real: headless without a terminal, and the TUI in tmux."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def person(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose home, config, state and temp folders are scratch ones, with settings
    of the person's own already there; and that settings file."""
    home, config, temp = tmp_path / "home", tmp_path / "xdg-config", tmp_path / "tmp"
    for folder in (home, config, temp):
        folder.mkdir()
    settings = config / "operator-app" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps({"last_workspace": str(home), "recent_workspaces": [str(home)], "theme": "nord"})
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPERATOR_CONFIG_DIR", "OPERATOR_TRASH")
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(config),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        TMPDIR=str(temp),
    )
    return env, settings


def left_behind(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tmp").iterdir())


def test_the_headless_demo_changes_no_setting_and_removes_its_scratch_folder(
    tmp_path: Path,
) -> None:
    env, settings = person(tmp_path)
    before = settings.read_bytes()
    done = subprocess.run(
        [sys.executable, str(ROOT / "run.py"), "demo"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "id: patch-1\nok: true" in done.stdout
    assert "run.py: removed the demo's scratch folder " in done.stdout
    assert left_behind(tmp_path) == []
    assert settings.read_bytes() == before
    assert not (tmp_path / "data").exists()  # nothing went to the person's trash or data folder


def test_keep_keeps_the_scratch_folder_and_says_how_to_remove_it(tmp_path: Path) -> None:
    env, _ = person(tmp_path)
    done = subprocess.run(
        [sys.executable, str(ROOT / "run.py"), "demo", "--keep"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (kept,) = left_behind(tmp_path)
    folder = tmp_path / "tmp" / kept
    assert (
        f"run.py: the demo's scratch folder is kept: {folder} (remove it with: rm -rf {folder})"
        in done.stdout
    )
    assert (folder / "workspace" / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


class DemoInTmux:
    """`python3 run.py demo` in a tmux session of its own, run as the person whose environment
    `env` is; `pid` is run.py's process id."""

    def __init__(self, env: dict[str, str], tmp_path: Path) -> None:
        self.socket = f"operator-demo-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(
            f"{key}={value}"
            for key, value in env.items()
            if key in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "TMPDIR")
        )
        self.pid_file = tmp_path / "run.pid"
        command = (
            f"echo $$ > {self.pid_file}; exec env -u OPERATOR_CONFIG_DIR -u OPERATOR_TRASH "
            f"{exports} TERM=xterm-256color {sys.executable} {ROOT / 'run.py'} demo"
        )
        self.tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", "demo", "-x", "160", "-y", "45", command
        )

    @property
    def pid(self) -> int:
        return int(self.pid_file.read_text())

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True
        ).stdout

    def wait_screen(self, text: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.tmux("capture-pane", "-p", "-t", "demo"):
            assert time.monotonic() < deadline, (
                f"{text!r} never appeared:\n{self.tmux('capture-pane', '-p', '-t', 'demo')}"
            )
            time.sleep(0.2)

    def wait(self, done: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, what
            time.sleep(0.2)


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.mark.tmux
@needs_tmux
def test_the_demo_in_the_tui_changes_no_setting_and_removes_its_scratch_folder(
    tmp_path: Path,
) -> None:
    env, settings = person(tmp_path)
    before = settings.read_bytes()
    demo = DemoInTmux(env, tmp_path)
    try:
        for dialog in ("fs.applyEdits changes notes/plan.txt", "fs.patch changes src/app.py"):
            demo.wait_screen(dialog)
            demo.tmux("send-keys", "-t", "demo", "y")
        demo.wait_screen("Press c to copy")
        scratch = [p for p in (tmp_path / "tmp").iterdir() if p.name.startswith("operator-demo-")]
        assert len(scratch) == 1 and json.loads(
            (scratch[0] / "config" / "settings.json").read_text()
        )["last_workspace"] == str(
            scratch[0] / "workspace"
        )  # the TUI remembered the demo workspace: in the demo's own settings
        demo.tmux("send-keys", "-t", "demo", "C-q")
        demo.wait(
            lambda: (
                subprocess.run(
                    ["tmux", "-L", demo.socket, "has-session", "-t", "demo"], capture_output=True
                ).returncode
                != 0
            ),
            "the demo did not end",
        )
    finally:
        demo.tmux("kill-server")
    assert left_behind(tmp_path) == []
    assert settings.read_bytes() == before


@pytest.mark.tmux
@needs_tmux
@pytest.mark.parametrize("how", ["closed terminal", "kill"])
def test_a_demo_ended_by_a_closed_terminal_or_a_kill_still_removes_its_scratch_folder(
    tmp_path: Path, how: str
) -> None:
    env, settings = person(tmp_path)
    before = settings.read_bytes()
    demo = DemoInTmux(env, tmp_path)
    try:
        demo.wait_screen("fs.applyEdits changes notes/plan.txt")
        assert (
            len(left_behind(tmp_path)) == 1
        )  # the scratch copy, while a write waits in its dialog
        if how == "kill":
            os.kill(demo.pid, signal.SIGTERM)
        else:
            demo.tmux("kill-session", "-t", "demo")  # the terminal goes: SIGHUP
        demo.wait(lambda: not left_behind(tmp_path), f"left behind: {left_behind(tmp_path)}")
    finally:
        demo.tmux("kill-server")
    assert settings.read_bytes() == before
