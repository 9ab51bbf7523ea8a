"""`operator-app exec` run as an ordinary user (nobody) by a test that runs as root, as CI does:
the sandbox must hold for a user as it does for root, and some failures show only for a user
(who cannot read a file mode 000). Where the test does not run as root, or no Python the user
can run imports Operator, the test is skipped with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

NOBODY = 65534
ROOT = Path(__file__).resolve().parents[2]


def _import_path() -> str:
    return os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"]])


@cache
def _python_for_nobody() -> str | None:
    """An interpreter the user can run that imports Operator and its libraries: this test's own
    (when it lives where the user may go), else the system's of the same version."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, shutil.which(version), f"/usr/bin/{version}"):
        if not candidate:
            continue
        try:
            done = subprocess.run(
                [candidate, "-c", "import msgspec, operator_app.cli.main"],
                user=NOBODY,
                cwd="/",
                env={"PYTHONPATH": _import_path(), "HOME": "/"},
                capture_output=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return candidate
    return None


def python_for_nobody_or_skip() -> str:
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("switching to an ordinary user needs a test run as root (CI runs as root)")
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python the user nobody can run imports Operator and its libraries here")
    return python


@contextmanager
def nobodys_folder() -> Iterator[Path]:
    """A folder of nobody's, in a place nobody can reach (pytest's own are root's, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="operator-nobody-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        os.chown(folder, NOBODY, NOBODY)
        yield folder
    finally:
        for path in folder.rglob("*"):  # an overlay's work folder is left mode 000
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o700)
        shutil.rmtree(folder, ignore_errors=True)


def give_to_nobody(path: Path) -> None:
    for entry in [path, *path.rglob("*")]:
        os.chown(entry, NOBODY, NOBODY, follow_symlinks=False)


def exec_as_nobody(
    folder: Path, ws: Path, message: str, *args: str, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`operator-app exec --json` of `message` as nobody, with a home folder of its own."""
    python = python_for_nobody_or_skip()
    home = folder / "home"
    home.mkdir(exist_ok=True)
    path = folder / f"message-{len(list(folder.glob('message-*')))}.txt"
    path.write_text(message, encoding="utf-8")
    give_to_nobody(home)
    give_to_nobody(path)
    env = {
        "PYTHONPATH": _import_path(),
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "OPERATOR_TRASH": "session",
        **(extra_env or {}),
    }
    state = folder / "state"
    return subprocess.run(
        [python, "-m", "operator_app", "exec", "--workspace", str(ws), "--state-dir", str(state)]
        + ["--json", *args, str(path)],
        user=NOBODY,
        cwd=str(folder),
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
