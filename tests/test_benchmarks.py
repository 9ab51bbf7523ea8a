"""Every script in benchmarks/ still runs: each is started as a person would start it, with
`--smoke --json` (benchmarks/smoke.py: each step once, small sizes, no target judged), and must
exit 0 with a whole report. A change to an API a benchmark drives (bench_bridge wraps the bridge's
update call, bench_writes calls the write path directly) breaks the benchmark here, in the change
that made it, instead of on the day someone measures. No timing is asserted: the figures of a
smoke run mean nothing. real_diffs.py is left out: it downloads packages (its committed corpus
is tested in tests/writes/test_real_diff_corpus.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import why_browser_tests_cannot_run

ROOT = Path(__file__).resolve().parents[1]


def smoke(script: str, tmp_path: Path, timeout: float = 300) -> Any:
    env = dict(
        os.environ,
        OPERATOR_CONFIG_DIR=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--smoke", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{script} exited {done.returncode}:\n{done.stderr[-3000:]}"
    report, _ = json.JSONDecoder().raw_decode(done.stdout.lstrip())
    return report


@pytest.mark.parametrize(
    ("script", "rows"),
    [("bench_protocol.py", 7), ("bench_writes.py", 4), ("bench_tui.py", 2)],
)
def test_a_benchmark_of_judged_rows_reports_every_row(
    script: str, rows: int, tmp_path: Path
) -> None:
    report = smoke(script, tmp_path)
    assert len(report) == rows
    for row in report:
        assert row["benchmark"] and isinstance(row["met"], bool)
        assert all(value is not None for value in row.values()), row


def test_bench_chanflow_reports_both_feeds(tmp_path: Path) -> None:
    report = smoke("bench_chanflow.py", tmp_path)
    for feed in ("whole", "chunks"):
        assert report[f"{feed}_ratio"] > 0 and report[f"{feed}_router_overhead_ratio"] > 0


def test_bench_shell_reports_the_sandbox_overhead_and_the_change_set(tmp_path: Path) -> None:
    from operator_app.engine import find_sandbox

    sandbox = find_sandbox()
    if not sandbox.usable:
        if os.environ.get("CI") == "true" and sys.platform.startswith("linux"):
            pytest.fail(f"no sandbox on CI's Linux: {sandbox.why}", pytrace=False)
        pytest.skip(f"no sandbox on this machine: {sandbox.why}")
    overhead, change_set = smoke("bench_shell.py", tmp_path)
    assert overhead["overhead_ms"] > 0 and isinstance(overhead["met"], bool)
    assert "touching 100 files" in change_set["benchmark"] and change_set["seconds"] > 0


def test_bench_search_finds_what_grep_finds_in_both_trees(tmp_path: Path) -> None:
    bench, source = smoke("bench_search.py", tmp_path)
    for row in (bench, source):
        assert row["same_matches_as_grep"] is True and row["matches"] == 2
        assert "over 1002 files" in row["benchmark"]  # 1,000 made, a README and a .gitignore
    assert bench["benchmark"].startswith("bench tree") and "in 34 folders" in source["benchmark"]


def test_bench_bridge_fills_every_editor(tmp_path: Path) -> None:
    missing = why_browser_tests_cannot_run()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    report = smoke("bench_bridge.py", tmp_path, timeout=600)
    assert report["hundred_results_in_box"] == 100
    for editor in ("prosemirror", "quill", "lexical", "textarea"):
        assert report[f"hundred_browser_{editor}_s"] > 0, editor
    long = report["long_answer"]
    assert long["final_length"] > 150_000 and long["scanner_characters"] >= long["final_length"]
    assert report["idle_bridge_on_cpu"] >= 0 and report["idle_bridge_off_cpu"] >= 0
