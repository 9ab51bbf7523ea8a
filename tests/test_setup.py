"""`python3 run.py`'s set-up: `demo` installs the app alone (no test tools, no Playwright: a
newcomer's first run is a light one), `test` adds the test tools. Which of the two .venv holds is
written in its stamp, so `test` after `demo` completes the .venv instead of rebuilding it, and a
`demo` never takes the test tools away. Once set up, run.py says how to get operator-app on the
PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import run
from run import APP, TEST, to_install

ROOT = Path(__file__).resolve().parents[1]
HASH = "a" * 64


@pytest.mark.parametrize(
    ("stamp", "wanted", "installs"),
    [
        (None, APP, APP),  # no .venv: demo sets up the app alone
        (None, TEST, TEST),
        (f"{HASH}\n{APP}\n", APP, None),  # set up already
        (f"{HASH}\n{APP}\n", TEST, TEST),  # test after demo: the test tools are added
        (f"{HASH}\n{TEST}\n", APP, None),  # demo after test: nothing to do, nothing taken away
        (f"{HASH}\n{TEST}\n", TEST, None),
        (HASH, APP, None),  # a stamp from before: that .venv had the test tools
        (HASH, TEST, None),
        (f"{'b' * 64}\n{APP}\n", APP, APP),  # pyproject.toml changed since
        (f"{'b' * 64}\n{TEST}\n", APP, TEST),  # ... and the test tools are kept
        (f"{'b' * 64}\n{APP}\n", TEST, TEST),
    ],
)
def test_the_stamp_says_what_each_command_still_needs(
    stamp: str | None, wanted: str, installs: str | None
) -> None:
    assert to_install(stamp, HASH, wanted) == installs


# What pip says when it cannot reach a package index: the test is skipped then, not failed.
OFFLINE = (
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No matching distribution found",
    "ProxyError",
)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_first_demo_without_a_terminal_sets_up_the_app_without_the_test_tools(
    tmp_path: Path,
) -> None:
    """A fresh copy of the project, `python3 run.py demo` with no terminal (as CI or a pipe runs
    it): one .venv is made, with operator-app and its libraries but no pytest and no Playwright;
    the headless demo runs; run.py said up front where it downloads from and, once done, how to
    put operator-app on the PATH. A second demo sets up nothing."""
    clone = tmp_path / "operator"
    shutil.copytree(
        ROOT,
        clone,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.pyc", ".*_cache", ".hypothesis", "*.html"
        ),
    )
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPERATOR_")}
    env["TMPDIR"] = str(temp)

    def demo() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(clone / "run.py"), "demo"],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=840,
        )

    done = demo()
    said = done.stdout + done.stderr
    if done.returncode != 0:
        offline = next((line for line in said.splitlines() if any(o in line for o in OFFLINE)), "")
        if offline:
            pytest.skip(f"pip cannot reach a package index here: {offline.strip()}")
    assert done.returncode == 0, said[-4000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("run.py: ")]
    assert lines[0] == (
        f"run.py: first run: setting up .venv with {run.WHAT[APP]}; it downloads from the Python "
        "package index (network access to it, or a pip set up for a mirror)"
    )
    venv_bin = clone / ".venv" / "bin"
    assert (
        f"run.py: .venv is ready. To type operator-app in a shell, from any folder: "
        f". {venv_bin / 'activate'} (or run {venv_bin / 'operator-app'} as it is)"
    ) in lines
    assert "id: patch-1\nok: true" in done.stdout  # the headless demo ran
    assert (clone / ".venv" / ".operator-installed").read_text().endswith(f"\n{APP}\n")

    def imports(module: str) -> bool:
        return subprocess.run([str(venv_bin / "python"), "-c", f"import {module}"]).returncode == 0

    assert imports("operator_app.tui.app") and imports("aiohttp")
    assert not imports("playwright") and not imports("pytest")

    again = demo()
    assert again.returncode == 0, again.stderr[-2000:]
    assert ".venv" not in again.stdout.split("run.py: demo workspace")[0]  # nothing set up
    assert list(temp.iterdir()) == []  # the demo's scratch folder is gone
