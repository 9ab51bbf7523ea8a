"""`operator-app bridge` and the TUI's bridge options, through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from operator_app import settings
from operator_app.entry import main


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "operator_app", *argv], capture_output=True, text=True
    )


def test_extension_dir_prints_the_folder_to_load_unpacked() -> None:
    done = run("bridge", "--extension-dir")
    assert done.returncode == 0
    folder = Path(done.stdout.strip())
    assert folder.name == "extension" and folder.parent.name == "bridge" and folder.is_absolute()
    assert done.stdout.count("\n") == 1  # only the folder: scripts can use it


def test_bridge_says_where_the_extension_is_and_whether_a_browser_is_paired(
    private_settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bridge"]) == 0
    out = capsys.readouterr().out
    assert "Load unpacked" in out and "127.0.0.1:47821" in out and "Paired: no" in out
    settings.save("bridge", {"port": 50123, "token": "t" * 43, "origin": None})
    assert main(["bridge"]) == 0
    out = capsys.readouterr().out
    assert "127.0.0.1:50123" in out and "Paired: yes" in out


def test_forget_retires_the_token_and_keeps_the_port(
    private_settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.save("bridge", {"port": 50123, "token": "t" * 43, "origin": "chrome-extension://x"})
    assert main(["bridge", "--forget"]) == 0
    assert "forgotten" in capsys.readouterr().out
    assert json.loads((private_settings / "settings.json").read_text())["bridge"] == {"port": 50123}
    assert main(["bridge", "--forget"]) == 0
    assert "No browser was paired" in capsys.readouterr().out


def test_a_bridge_port_that_is_not_a_port_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--bridge-port", "99999"]) == 2
    assert "not a port number" in capsys.readouterr().err
    assert main(["bridge", "--extension-dir", "--forget"]) == 2
