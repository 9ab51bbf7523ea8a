#!/usr/bin/env python3
"""The two Quick start commands, needing nothing but Python 3.11+:

    python3 run.py demo    set up .venv, then open Operator on a scratch copy of the demo workspace
                           (removed when it ends; --keep keeps it)
    python3 run.py test    set up .venv, then run the whole test suite

Set-up creates .venv beside this file and installs the project with its test extra; it is
repeated only when pyproject.toml changes. Extra arguments after `test` go to pytest.
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


def setup() -> None:
    # run.py runs under whatever python3 started it, before the .venv exists: not always 3.11+.
    if sys.version_info < (3, 11):  # noqa: UP036
        sys.exit(f"Operator needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if PYTHON.exists() and STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not PYTHON.exists():
        print("run.py: creating .venv", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("run.py: installing operator-app and its test tools into .venv", flush=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run(
        [str(PYTHON), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[test]"], check=True
    )
    STAMP.write_text(wanted)


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
    setup()
    compile_bytecode()
    command, extra = sys.argv[1], sys.argv[2:]
    return demo(extra) if command == "demo" else test(extra)


if __name__ == "__main__":
    raise SystemExit(main())
