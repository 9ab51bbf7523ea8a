"""`operator-app exec` run as a person runs it, with what it cost: the wall-clock seconds and the
peak memory of that one process (from wait4, not the cumulative RUSAGE_CHILDREN). An address
space limit can be set so that a blow-up fails the run instead of swapping the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .cases import APP


@dataclass(frozen=True)
class Measured:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float


def measured_exec(
    ws: Path,
    state: Path,
    message: str,
    *args: str,
    memory_limit_mb: int | None = None,
    timeout: float = 120,
) -> Measured:
    """`operator-app exec --workspace WS --state-dir STATE ARGS` with `message` on stdin; a run
    past `timeout` is killed and fails the test."""

    def limit() -> None:
        if memory_limit_mb is not None:
            size = memory_limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    started = time.monotonic()
    child = subprocess.Popen(
        [APP, "exec", "--workspace", str(ws), "--state-dir", str(state), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
        env=dict(os.environ, OPERATOR_TRASH="session"),
    )
    outputs: dict[str, bytes] = {}

    def drain(name: str, stream: IO[bytes]) -> None:
        outputs[name] = stream.read()

    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    readers = [
        threading.Thread(target=drain, args=("out", child.stdout)),
        threading.Thread(target=drain, args=("err", child.stderr)),
    ]
    for reader in readers:
        reader.start()
    watchdog = threading.Timer(timeout, child.kill)
    watchdog.start()
    try:
        child.stdin.write(message.encode("utf-8"))
        child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        watchdog.cancel()
    seconds = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    for reader in readers:
        reader.join()
    assert seconds < timeout, f"exec ran past {timeout} s and was killed"
    return Measured(
        child.returncode,
        outputs["out"].decode("utf-8", errors="replace"),
        outputs["err"].decode("utf-8", errors="replace"),
        seconds,
        usage.ru_maxrss / 1024,
    )
