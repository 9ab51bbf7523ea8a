#!/usr/bin/env python3
"""The two Quick start commands, needing nothing but Python 3.11+:

    python3 run.py demo    set up .venv, then open Operator on a scratch copy of the demo workspace
                           (removed when it ends; --keep keeps it)
    python3 run.py test    set up .venv with the test tools too, then run the whole test suite

Set-up creates .venv beside this file and installs what the command needs from the Python package
index: `demo` the app and its libraries, `test` also the test extra (pytest, Playwright's Python
package, ruff, mypy...). It is repeated only when pyproject.toml changes, or when `test` finds a
.venv that `demo` made, which it completes. Extra arguments after `test` go to pytest.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".operator-installed"

# What each command installs, and what run.py says of it up front: sizes and times of a first run
# on a 2-core machine shared with other work, nothing in pip's cache (measured for issue 27: the
# demo's 40 s, test's 100 s; the test tools added to a demo's .venv 45 s).
APP, TEST = "app", "test"
WHAT = {
    APP: "Operator and the libraries it needs (about 80 MB, under a minute)",
    TEST: "Operator, its libraries and the test tools (about 350 MB, one to two minutes)",
}
ADDED = {TEST: "the test tools (pytest, Playwright's Python package, ruff, mypy...; about 270 MB)"}


def to_install(stamp: str | None, pyproject_hash: str, wanted: str) -> str | None:
    """What to install for a command that needs `wanted` (APP or TEST), given .venv's stamp (None:
    no .venv, or no stamp): None when .venv serves it already. The stamp is the hash of the
    pyproject.toml it was made for and the level made; a stamp of the hash alone is from before
    demo installed less than test, so it had the test tools. A .venv with the test tools keeps
    them (a demo after a test run, or after a change to pyproject.toml, does not drop them)."""
    if stamp is None:
        return wanted
    digest, _, level = stamp.partition("\n")
    had = level.strip() or TEST
    if digest == pyproject_hash and had in (TEST, wanted):
        return None
    return TEST if TEST in (had, wanted) else APP


def setup(wanted: str) -> None:
    # run.py runs under whatever python3 started it, before the .venv exists: not always 3.11+.
    if sys.version_info < (3, 11):  # noqa: UP036
        sys.exit(f"Operator needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = STAMP.read_text() if PYTHON.exists() and STAMP.exists() else None
    level = to_install(stamp, digest, wanted)
    if level is None:
        return
    index = "from the Python package index (network access to it, or a pip set up for a mirror)"
    if stamp is None:
        say(f"first run: setting up .venv with {WHAT[level]}; it downloads {index}")
    elif to_install(stamp, digest, APP) is None:  # only the test tools are missing
        say(f"adding {ADDED[TEST]} to .venv, {index}")
    else:
        say(f"pyproject.toml changed since .venv was set up: installing what it lists, {index}")
    if not PYTHON.exists():
        say("creating .venv")
        venv.EnvBuilder(with_pip=True).create(VENV)
    what = "operator-app and its test tools" if level == TEST else "operator-app"
    say(f"installing {what} with pip")
    # pip prints a line per package it collects and a bar per download: the progress to watch.
    done = subprocess.run(
        [
            str(PYTHON),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-e",
            f"{ROOT}[test]" if level == TEST else str(ROOT),
        ]
    )
    if done.returncode != 0:
        sys.exit(
            f"run.py: pip could not install {what} (exit {done.returncode}; its message is above). "
            "If it could not reach the package index, connect to the network (or set pip's "
            "index-url to a mirror) and run the same command again: it starts where it stopped."
        )
    STAMP.write_text(f"{digest}\n{level}\n")
    say(
        f".venv is ready. To type operator-app in a shell, from any folder: . {BIN / 'activate'}"
        f" (or run {BIN / 'operator-app'} as it is)"
    )


def say(text: str) -> None:
    print(f"run.py: {text}", flush=True)


def compile_bytecode() -> None:
    # An editable install has no bytecode, and some environments set PYTHONDONTWRITEBYTECODE,
    # which would make every start compile the package again.
    subprocess.run(
        [str(PYTHON), "-m", "compileall", "-q", str(ROOT / "operator_app")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def demo(extra: list[str]) -> int:
    keep = "--keep" in extra
    extra = [arg for arg in extra if arg != "--keep"]
    scratch = Path(tempfile.mkdtemp(prefix="operator-demo-"))
    try:
        workspace = scratch / "workspace"
        shutil.copytree(ROOT / "fixtures" / "demo-workspace", workspace)
        state = scratch / "state"
        message = ROOT / "fixtures" / "messages" / "demo.txt"
        print(f"run.py: demo workspace (a scratch copy): {workspace}", flush=True)
        # The demo keeps its settings and its trash in the scratch folder too: the TUI remembers the
        # workspace it opens, and a later bare `operator-app` must not open this copy; a delete
        # tried in the demo must not land in the person's own trash.
        env = dict(
            os.environ,
            OPERATOR_CONFIG_DIR=str(scratch / "config"),
            OPERATOR_STATE_DIR=str(scratch / "state-home"),
            OPERATOR_TRASH="session",
        )
        if not keep:  # Operator then says that what it saves there goes when the demo ends
            env["OPERATOR_SCRATCH"] = str(scratch)
        app = str(BIN / "operator-app")
        if sys.stdin.isatty() and sys.stdout.isatty():
            return run_to_its_end(
                [
                    app,
                    "--workspace",
                    str(workspace),
                    "--state-dir",
                    str(state),
                    "--message",
                    str(message),
                    *extra,
                ],
                env,
            )
        # No terminal (CI, a pipe): show the headless path on the same message instead.
        print("run.py: no terminal, so running the headless exec on the demo message:", flush=True)
        return run_to_its_end(
            [
                app,
                "exec",
                "--workspace",
                str(workspace),
                "--state-dir",
                str(state),
                "--approve",
                "all",
                str(message),
            ],
            env,
        )
    except KeyboardInterrupt:
        return 130
    except SystemExit as stopped:  # a closed terminal or a kill: the scratch folder still goes
        return stopped.code if isinstance(stopped.code, int) else 1
    finally:
        if keep:
            print(
                f"run.py: the demo's scratch folder is kept: {scratch} (remove it with: rm -rf "
                f"{scratch})",
                flush=True,
            )
        else:
            shutil.rmtree(scratch, ignore_errors=True)
            print(
                f"run.py: removed the demo's scratch folder {scratch} (python3 run.py demo --keep "
                "keeps it)",
                flush=True,
            )


def run_to_its_end(command: list[str], env: dict[str, str]) -> int:
    """Run the demo's Operator. A closed terminal (SIGHUP) or a kill (SIGTERM) would end this
    process without its clean-up: they become SystemExit here, and Operator is stopped and waited
    for before its scratch folder is removed."""

    def stop(signum: int, _frame: object) -> None:
        for ignored in handled:  # one is enough: a second must not cut the clean-up short
            signal.signal(ignored, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    handled = (signal.SIGHUP, signal.SIGTERM) if os.name != "nt" else (signal.SIGTERM,)

    for signum in handled:
        signal.signal(signum, stop)
    child = subprocess.Popen(command, env=env)
    try:
        return child.wait()
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def test(extra: list[str]) -> int:
    return subprocess.call([str(PYTHON), "-m", "pytest", "-n", "auto", *extra], cwd=ROOT)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("demo", "test"):
        print(__doc__)
        return 2
    command, extra = sys.argv[1], sys.argv[2:]
    setup(TEST if command == "test" else APP)
    compile_bytecode()
    return demo(extra) if command == "demo" else test(extra)


if __name__ == "__main__":
    raise SystemExit(main())
