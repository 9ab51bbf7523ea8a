"""Set-up for every test: Operator's settings, state and trash live in the test's own temporary
folders, never in the real user's (a test of the TUI, the CLI or the bridge may write settings).

Also the fixtures of the tests that run the app (tests/tui/, tests/bridge/): a scratch copy of the
demo workspace (`workspace`), a state folder (`state`), and `app_machine`, which those two folders'
conftests make autouse: the session trash and no system clipboard tool (the machine running the
tests may have one: never write to it, never read it; a test that wants a clipboard fakes it).

A run's temporary files all live in one folder of its own, made under the system's temp folder
($TMPDIR) with a random name, so two runs on one machine never share a name: pytest's tmp_path
folders, and $TMPDIR itself for the tests and every program they start (Operator, the benchmark
scripts, Chromium, Firefox). A run that passes removes that folder; one that fails keeps it (the
failed tests' folders are in it, for a look) and says where it is.

The progress at the end of each line of dots says how long the run has taken: `[ 45%  3:12]`."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo-workspace"
RUN_FOLDER = pytest.StashKey[Path]()
RUN_PASSED = pytest.StashKey[bool]()
SYSTEM_TMPDIR = pytest.StashKey["str | None"]()
SYSTEM_TMUX_TMPDIR = pytest.StashKey["str | None"]()
SHORT_TMUX_DIR = pytest.StashKey[Path]()
# A socket's path holds at most 107 bytes; tmux adds /tmux-UID/ and the tests' socket names.
TMUX_PATH_ROOM = 107 - len("/tmux-4294967295/operator-demo-test-12345678")


@pytest.hookimpl(tryfirst=True)  # before pytest's own tmp_path set-up reads --basetemp
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # an xdist worker: it inherits $TMPDIR, and its basetemp, from the controller
    run = Path(tempfile.mkdtemp(prefix="operator-tests-"))
    config.stash[RUN_FOLDER] = run
    if config.option.basetemp is None:  # (a --basetemp given on the command line is kept)
        config.option.basetemp = str(run / "pytest")
    temp = run / "tmp"
    temp.mkdir()
    config.stash[SYSTEM_TMPDIR] = os.environ.get("TMPDIR")
    # (the one test that needs a folder other users can reach finds the system's there)
    os.environ["OPERATOR_TESTS_SYSTEM_TMPDIR"] = tempfile.gettempdir()
    os.environ["TMPDIR"] = str(temp)
    tempfile.tempdir = None  # computed again from $TMPDIR at its next use
    # tmux keeps its servers' sockets in $TMUX_TMPDIR/tmux-UID (else /tmp/tmux-UID, which would
    # stay behind): the run's folder, or a short one when that path is too long for a socket.
    tmux_dir = temp
    if len(os.fsencode(str(temp))) > TMUX_PATH_ROOM:
        tmux_dir = Path(tempfile.mkdtemp(prefix="optmux-", dir="/tmp"))
        config.stash[SHORT_TMUX_DIR] = tmux_dir
    config.stash[SYSTEM_TMUX_TMPDIR] = os.environ.get("TMUX_TMPDIR")
    os.environ["TMUX_TMPDIR"] = str(tmux_dir)


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN_FOLDER, None)
    if run is None:
        return
    os.environ.pop("OPERATOR_TESTS_SYSTEM_TMPDIR", None)
    for name, key in (("TMUX_TMPDIR", SYSTEM_TMUX_TMPDIR), ("TMPDIR", SYSTEM_TMPDIR)):
        value = config.stash[key]
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    short_tmux = config.stash.get(SHORT_TMUX_DIR, None)
    if short_tmux is not None:
        shutil.rmtree(short_tmux, ignore_errors=True)
    tempfile.tempdir = None
    if config.stash.get(RUN_PASSED, False):
        shutil.rmtree(run, ignore_errors=True)


ELAPSED_WIDTH = len(" 00:00")


def pytest_sessionstart(session: pytest.Session) -> None:
    """The time taken so far beside the progress percentage (the controller's reporter alone,
    with or without xdist). It leans on two names private to pytest's terminal reporter; without
    them the progress is pytest's own."""
    if hasattr(session.config, "workerinput"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    progress = getattr(reporter, "_get_progress_information_message", None)
    if progress is None or not isinstance(getattr(reporter, "_screen_width", None), int):
        return
    started = time.monotonic()

    def with_elapsed() -> str:
        message = str(progress())
        if not message.endswith("%]"):  # --console-output-style count or times: theirs
            return message
        minutes, seconds = divmod(int(time.monotonic() - started), 60)
        return f"{message[:-1]} {minutes:2d}:{seconds:02d}]"

    reporter._get_progress_information_message = with_elapsed  # type: ignore[union-attr]
    # so that a line of dots ends before the longer progress would run past the screen's edge
    reporter._screen_width -= ELAPSED_WIDTH  # type: ignore[union-attr]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[RUN_PASSED] = exitstatus in (
        pytest.ExitCode.OK,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    run = terminalreporter.config.stash.get(RUN_FOLDER, None)
    if run is not None and exitstatus != 0 and run.exists():
        terminalreporter.write_line(
            f"this run's temporary files are kept in {run} (a passing run removes them)"
        )


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(folder))
    # A workspace opened without --state-dir keeps its session under the user state folder: a
    # temporary one here, never the real home's.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.delenv(
        "OPERATOR_STATE_DIR", raising=False
    )  # (a person's own would take the place of that)
    monkeypatch.delenv("OPERATOR_SCRATCH", raising=False)  # (set by run.py demo)
    return folder


@pytest.fixture
def app_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    # (settings and state folders are private to the test already: private_settings)
    monkeypatch.setenv("OPERATOR_TRASH", "session")
    monkeypatch.setattr("operator_app.tui.clipboard._copy_commands", lambda: [])
    monkeypatch.setattr("operator_app.tui.clipboard._paste_commands", lambda: [])
    # Every notification is kept for tests.support.pilot.notes: Textual drops one when its
    # timeout passes, which on a loaded machine can come before the test looks.
    from textual.app import App

    notify = App.notify

    def kept(self: App[object], message: str, *args: object, **kwargs: object) -> None:
        self.__dict__.setdefault("notified_in_test", []).append(message)
        notify(self, message, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "notify", kept)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"
