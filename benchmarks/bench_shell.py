#!/usr/bin/env python3
"""Command benchmarks (issue 24), through the real engine (`Engine.run_text` of a shell.run
block, answered yes):

1. a sandboxed `true`, the whole way (the question, the sandbox, the overlay, reading its empty
   change-set, the journal's run record), against a bare `bash -c true` started the same way in
   the same run: the overhead a person pays per command         (target: under 150 ms)
2. the change-set of a command that touches 1,000 files: from the command's end to its plan in
   front of the person (the upper layer read, every file compared and diffed)
                                                                 (target: under 1 s)

Applying that change-set (a pre-image and an fsynced atomic replace per file) is reported too,
unjudged. Run: python benchmarks/bench_shell.py [--json] [--smoke]; exits 1 on a missed target.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.smoke import SMOKE, exit_code, times  # noqa: E402
from operator_app.engine import (  # noqa: E402
    AwaitingDecision,
    CommandOutput,
    Engine,
    Session,
    Workspace,
    find_sandbox,
)
from operator_app.protocol import RunOutcome  # noqa: E402

FILES = 100 if SMOKE else 1000


def block(cid: str, command: str) -> str:
    return (
        f"OPERATOR_CMD\nversion: 1\nid: {cid}\naction: shell.run\ncommand: {command}\n"
        "END_OPERATOR_CMD\n"
    )


def sandboxed_true(ws: Path, state: Path, number: int) -> float:
    engine = Engine(Workspace(ws), Session(state), decide=lambda plan, outlook: True)
    start = time.perf_counter()
    (result,) = engine.run_text(block(f"t{number}", "true")).results
    elapsed = time.perf_counter() - start
    assert result.ok and isinstance(result.outcome, RunOutcome), result.summary
    assert result.outcome.sandboxed, result.summary
    return elapsed


def bare_true() -> float:
    start = time.perf_counter()
    subprocess.run(["bash", "-c", "true"], stdin=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def change_set(ws: Path, state: Path) -> tuple[float, float, int]:
    """(seconds from the command's end to its change-set's question, seconds to apply it, files)."""
    ended: list[float] = []
    asked: list[float] = []
    files: list[int] = []

    def listen(event: Any) -> None:
        if isinstance(event, CommandOutput) and event.done:
            ended.append(time.perf_counter())
        elif isinstance(event, AwaitingDecision) and event.plan.kind == "changeset":
            asked.append(time.perf_counter())
            assert event.plan.changes is not None
            files.append(sum(event.plan.changes.files.values()))

    engine = Engine(
        Workspace(ws), Session(state), decide=lambda plan, outlook: True, listener=listen
    )
    script = 'for f in files/*.txt; do echo changed >> "$f"; done'
    (result,) = engine.run_text(block("touch-1000", script)).results
    done = time.perf_counter()
    assert result.ok and isinstance(result.outcome, RunOutcome), result.summary
    assert result.outcome.changes.state == "applied", result.summary
    return asked[0] - ended[0], done - asked[0], files[0]


def main() -> int:
    sandbox = find_sandbox()
    if not sandbox.usable:
        print(f"bench_shell: no sandbox on this machine: {sandbox.why}", file=sys.stderr)
        return 0 if SMOKE else 1
    scratch = Path(tempfile.mkdtemp(prefix="operator-bench-shell-"))
    try:
        ws = scratch / "ws"
        (ws / "files").mkdir(parents=True)
        (ws / "README.md").write_text("# bench\n")
        ours, bare = [], []
        for number in range(times(15)):
            bare.append(bare_true())
            ours.append(sandboxed_true(ws, scratch / "state-true", number))
        overhead = (min(ours) - min(bare)) * 1e3
        for n in range(FILES):
            (ws / "files" / f"f{n:04d}.txt").write_text(f"file {n}\n" * 20)
        present, apply, files = change_set(ws, scratch / "state-set")
        report = [
            {
                "benchmark": "sandboxed `true` (shell.run, the whole way) against bash -c true",
                "overhead_ms": round(overhead, 1),
                "target_ms": 150,
                "met": overhead < 150,
                "detail": f"{min(ours) * 1e3:.1f} ms vs {min(bare) * 1e3:.1f} ms (best of "
                f"{len(ours)})",
            },
            {
                "benchmark": f"change-set of a command touching {files} files, presented",
                "seconds": round(present, 3),
                "target_s": 1.0,
                "met": present < 1.0,
                "detail": f"applied (pre-images, fsynced replaces) in {apply:.2f} s",
            },
        ]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if "--json" in sys.argv:
        print(json.dumps(report, indent=2))
    else:
        for row in report:
            figure = (
                f"{row['overhead_ms']} ms (target < {row['target_ms']} ms)"
                if "overhead_ms" in row
                else f"{row['seconds']} s (target < {row['target_s']} s)"
            )
            mark = "ok  " if row["met"] else "MISS"
            print(f"{mark} {row['benchmark']}: {figure}  [{row['detail']}]")
    return exit_code(all(row["met"] for row in report))


if __name__ == "__main__":
    raise SystemExit(main())
