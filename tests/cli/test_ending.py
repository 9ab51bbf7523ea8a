"""How `operator-app` ends (entry.py `_leave`): at once when nothing is left for Python's own
ending to do, which spares a start its teardown, yet with every byte of its output written and its
exit code kept; as usual when something is left (work registered with atexit, a thread still
running), which then gets done."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.blocks import block
from tests.support.cases import APP

ENTRY = """
import sys
sys.argv = ["operator-app", *sys.argv[1:]]
{before}
from operator_app.entry import entry
entry()
"""


def test_a_long_output_arrives_whole_and_the_exit_code_is_kept(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("x" * 3000 + "\n")
    message = tmp_path / "m.txt"
    message.write_text("".join(block(f"r{n}", "fs.read", path="a.txt") for n in range(100)))
    done = subprocess.run(
        [APP, "exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), str(message)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) > 300_000  # several times what a pipe holds
    assert done.stdout.count("END_OPERATOR_RESULT") == 100
    assert done.stdout.rstrip().endswith("END_OPERATOR_RESULT")
    missing = subprocess.run(
        [APP, "exec", "--workspace", str(tmp_path / "nowhere"), str(message)],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 3 and "nowhere" in missing.stderr


def _ending(tmp_path: Path, before: str) -> subprocess.CompletedProcess[str]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("hi\n")
    message = tmp_path / "m.txt"
    message.write_text(block("r1", "fs.read", path="a.txt"))
    argv = ["exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), str(message)]
    return subprocess.run(
        [sys.executable, "-c", ENTRY.format(before=before), *argv],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_work_registered_with_atexit_is_still_done(tmp_path: Path) -> None:
    done = _ending(tmp_path, "import atexit; atexit.register(print, 'registered work done')")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("registered work done")
    assert "ok: true" in done.stdout


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    thread = (
        "import threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(2), print('thread done'))).start()"
    )
    done = _ending(tmp_path, thread)
    assert done.returncode == 0, done.stderr
    assert "thread done" in done.stdout and "ok: true" in done.stdout
