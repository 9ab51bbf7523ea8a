"""The suite's own progress line (tests/conftest.py): how long the run has taken beside the
percentage, with xdist's workers as without them (issue 36: a run of 20 minutes said nothing of
its time until the end). Run for real: pytest on one small test file, in a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("workers", ["0", "1"])
def test_the_progress_says_the_time_taken(workers: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", workers, "-p", "no:cacheprovider"]
        + ["tests/test_settings.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^\.+ +\[100% +\d+:\d\d\]$", done.stdout, re.M), done.stdout
