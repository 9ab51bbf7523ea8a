#!/usr/bin/env python3
"""Protocol and start-up benchmarks (issue 2). Every figure is a ratio against a baseline measured
in the same run, so the result does not depend on the machine:

1. the message scanner alone (protocol/message.py: both dialects, as the engine runs it) over a
   200,000-character message holding 100 OPERATOR_CMD blocks, against a bare
   `re.finditer` pass over the same text for the four markers         (target: within 3x)
2. scan + parse + validate of that message, against the same bare pass (target: within 10x)
3. the message fed in 100-character chunks, against fed whole          (target: within 1.5x)
4. the same chunks with `pending` asked after each one, as the TUI does
   when it follows a file, against fed whole                          (target: within 3x)
5. `operator-app exec` for one fs.read, against `python -c pass`       (target: at most +0.12 s)
   (issue 23: the whole process, run alternately with the baseline, judged on the best runs;
   the medians and the median of the paired differences are printed beside)
6. `operator-app exec` of a 200,000-character message holding 100 cheap
   commands (operator.getCommentStyle), against the same-sized message
   holding one: what the 99 extra commands cost, whole process          (target: at most +8 ms)
7. scan + parse + validate of a 200,000-character message whose blocks hold
   nothing but extra keys (195 random 9-letter keys each, every one looked
   at as a possible misspelt field), against the same-sized message of plain
   fs.read blocks                                                      (target: within 10x)

Run: python benchmarks/bench_protocol.py [--json] [--smoke]. Exits 1 when a target is missed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.smoke import exit_code, times  # noqa: E402
from operator_app.protocol.commands import validate_command  # noqa: E402
from operator_app.protocol.message import MessageScanner, scan_whole  # noqa: E402
from operator_app.protocol.parser import parse_fields  # noqa: E402

BARE_MARKERS = re.compile(
    r"^[ \t]*(OPERATOR_CMD|END_OPERATOR_CMD|OPERATOR_RESULT|END_OPERATOR_RESULT)[ \t]*$",
    re.MULTILINE,
)


def build_message(blocks: int = 100, size: int = 200_000) -> str:
    """Prose and code the way chat models write it, with `blocks` commands spread through it."""
    prose = (
        "Let me look at the relevant part of the code first. The function below handles the "
        "request and\n"
        "returns early when the input is empty; we will keep that behaviour and only change the "
        "message.\n"
        "```python\ndef handle(request):\n    if not request:\n        return None\n"
        "    return process(request)\n```\n"
    )
    block = (
        "OPERATOR_CMD\nversion: 1\nid: read-{n}\naction: fs.readSlice\npath: src/module_{n}.py\n"
        "start: 10\nlines: 40\nEND_OPERATOR_CMD\n"
    )
    parts: list[str] = []
    filler_each = (size - blocks * len(block.format(n=100))) // blocks
    for n in range(blocks):
        parts.append(
            (prose * (filler_each // len(prose) + 1))[:filler_each].rsplit("\n", 1)[0] + "\n"
        )
        parts.append(block.format(n=n))
    text = "".join(parts)
    return text + "x" * max(0, size - len(text))


def best_of(fn: Callable[[], object], repeat: int = times(15)) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bare_pass(text: str) -> int:
    return sum(1 for _ in BARE_MARKERS.finditer(text))


def scan_only(text: str) -> int:
    return len(scan_whole(text).blocks)


def scan_parse_validate(text: str) -> int:
    ok = 0
    for block in scan_whole(text).blocks:
        validate_command(parse_fields(block))
        ok += 1
    return ok


def fed_whole(text: str) -> int:
    scanner = MessageScanner()
    return len(scanner.feed(text) + scanner.end())


def chunked(text: str, size: int = 100) -> list[str]:
    # Cut before timing: a stream arrives already in pieces; slicing is not the scanner's cost.
    return [text[start : start + size] for start in range(0, len(text), size)]


def fed_chunks(chunks: list[str]) -> int:
    scanner = MessageScanner()
    found = 0
    for chunk in chunks:
        found += len(scanner.feed(chunk))
    return found + len(scanner.end())


def fed_chunks_asking_pending(chunks: list[str]) -> int:
    scanner = MessageScanner()
    found = 0
    for chunk in chunks:
        found += len(scanner.feed(chunk))
        scanner.pending  # noqa: B018 - the TUI shows the open block after every chunk
    return found + len(scanner.end())


def interleaved(
    a: Callable[[], object], b: Callable[[], object], repeat: int = times(40)
) -> tuple[float, float]:
    """Best times of a and b, measured alternately so a burst of load hits both alike."""
    times_a, times_b = [], []
    for _ in range(repeat):
        times_a.append(best_of(a, 1))
        times_b.append(best_of(b, 1))
    return min(times_a), min(times_b)


def operator_command() -> list[str]:
    """`operator-app` as a person runs it: the console script installed beside this Python; the
    module form only when the project was not installed with its script."""
    script = Path(sys.executable).with_name("operator-app")
    return [str(script)] if script.exists() else [sys.executable, "-m", "operator_app"]


STARTUP_TARGET_S = 0.12


def exec_startup(repeat: int = times(21)) -> dict[str, float]:
    """Seconds of `python -c pass` and of `operator-app exec` running one fs.read, run
    alternately: best and median of each, and the median of the differences of each pair."""
    # Measure the installed app as a person runs it: with its bytecode compiled (an environment
    # with PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run).
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "operator_app")],
        check=True,
        capture_output=True,
    )
    with tempfile.TemporaryDirectory() as scratch:
        ws = Path(scratch) / "ws"
        ws.mkdir()
        (ws / "a.txt").write_text("hello\n")
        message = Path(scratch) / "m.txt"
        message.write_text(
            "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"
        )
        env = dict(os.environ, XDG_STATE_HOME=str(Path(scratch) / "xdg"))
        baseline, operator = [], []
        for i in range(repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            baseline.append(time.perf_counter() - start)
            start = time.perf_counter()
            out = subprocess.run(
                [
                    *operator_command(),
                    "exec",
                    "--workspace",
                    str(ws),
                    "--state-dir",
                    str(Path(scratch) / f"state{i}"),
                    str(message),
                ],
                check=True,
                capture_output=True,
                env=env,
                cwd=ROOT,
            )
            operator.append(time.perf_counter() - start)
            assert b"ok: true" in out.stdout, out
        return {
            "python_best": min(baseline),
            "python_median": statistics.median(baseline),
            "exec_best": min(operator),
            "exec_median": statistics.median(operator),
            "paired_median": statistics.median(
                b - a for a, b in zip(baseline, operator, strict=True)
            ),
        }


def comment_style_message(commands: int, size: int = 200_000) -> str:
    """A `size`-character message holding `commands` getCommentStyle blocks among prose: the
    cheapest command there is, so what it measures is what each command costs around its work."""
    block = (
        "OPERATOR_CMD\nversion: 1\nid: style-{n}\naction: operator.getCommentStyle\n"
        "language: py\nEND_OPERATOR_CMD\n"
    )
    prose = (
        "The styles below are what the comments of each file type look like; we check them first.\n"
    )
    each = (size - commands * len(block.format(n=100))) // commands
    parts = []
    for n in range(commands):
        parts.append((prose * (each // len(prose) + 1))[:each].rsplit("\n", 1)[0] + "\n")
        parts.append(block.format(n=n))
    text = "".join(parts)
    return text + "x" * max(0, size - len(text))


def junk_keys_message(size: int = 200_000) -> str:
    """Blocks of 195 random 9-letter keys an action does not take: the most work the extra-key
    rule can be made to do per character (each key is checked against every field and synonym)."""
    import random

    pick = random.Random(7)
    parts, n = [], 0
    while sum(map(len, parts)) < size:
        keys = "".join(
            f"k{''.join(pick.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(8))}: v\n"
            for _ in range(195)
        )
        parts.append(
            f"OPERATOR_CMD\nversion: 1\nid: junk-{n}\naction: fs.read\n"
            f"path: a.txt\n{keys}END_OPERATOR_CMD\n"
        )
        n += 1
    return "".join(parts)[:size].rsplit("OPERATOR_CMD\nversion", 1)[0]


def plain_blocks_message(size: int) -> str:
    block = (
        "OPERATOR_CMD\nversion: 1\nid: read-{n}\naction: fs.read\npath: src/module_{n}.py\n"
        "END_OPERATOR_CMD\n"
    )
    parts, total, n = [], 0, 0
    while total + len(block.format(n=n)) <= size:
        parts.append(block.format(n=n))
        total += len(parts[-1])
        n += 1
    return "".join(parts)


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far: what a run cost the
    machine, which a loaded machine's waits do not change the way they change wall-clock time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def per_command_overhead(repeat: int = times(40)) -> dict[str, float]:
    """Seconds of `operator-app exec` on a 200,000-character message of one cheap command and on
    one of 100, run alternately, each on a fresh state folder: best and median of each, and the
    median of the differences of each alternate pair (what is judged: a difference of a few
    milliseconds between runs of 0.2 s, on a loaded machine, is steadier paired than as the gap
    between two minimums)."""
    with tempfile.TemporaryDirectory() as scratch:
        ws = Path(scratch) / "ws"
        ws.mkdir()
        one, hundred = Path(scratch) / "one.txt", Path(scratch) / "hundred.txt"
        one.write_text(comment_style_message(1))
        hundred.write_text(comment_style_message(100))
        env = dict(os.environ, XDG_STATE_HOME=str(Path(scratch) / "xdg"))
        times: dict[Path, list[float]] = {one: [], hundred: []}
        cpu: dict[Path, list[float]] = {one: [], hundred: []}
        for i in range(repeat):
            for message in (one, hundred):
                used = child_cpu()
                start = time.perf_counter()
                out = subprocess.run(
                    [
                        *operator_command(),
                        "exec",
                        "--workspace",
                        str(ws),
                        "--state-dir",
                        str(Path(scratch) / f"state-{message.stem}-{i}"),
                        str(message),
                    ],
                    check=True,
                    capture_output=True,
                    env=env,
                    cwd=ROOT,
                )
                times[message].append(time.perf_counter() - start)
                cpu[message].append(child_cpu() - used)
                expected = 1 if message is one else 100
                assert out.stdout.count(b"ok: true") == expected, out
        return {
            "one_best": min(times[one]),
            "one_median": statistics.median(times[one]),
            "hundred_best": min(times[hundred]),
            "hundred_median": statistics.median(times[hundred]),
            "paired_median": statistics.median(
                b - a for a, b in zip(times[one], times[hundred], strict=True)
            ),
            "cpu_median": statistics.median(cpu[hundred]) - statistics.median(cpu[one]),
        }


def ratio_rows() -> list[tuple[str, float, float, str]]:
    """(benchmark, ratio, target, detail) of the scanner's rows, measured interleaved with their
    baselines, once every path is checked to find the same 100 blocks."""
    text = build_message()
    assert len(text) == 200_000, len(text)
    assert bare_pass(text) == 200 and scan_only(text) == 100 and scan_parse_validate(text) == 100
    chunks = chunked(text)
    assert fed_whole(text) == fed_chunks(chunks) == fed_chunks_asking_pending(chunks) == 100
    bare, scan = interleaved(lambda: bare_pass(text), lambda: scan_only(text))
    bare2, full = interleaved(lambda: bare_pass(text), lambda: scan_parse_validate(text))
    bare = min(bare, bare2)
    whole, streamed = interleaved(lambda: fed_whole(text), lambda: fed_chunks(chunks))
    whole2, asking = interleaved(lambda: fed_whole(text), lambda: fed_chunks_asking_pending(chunks))
    junk = junk_keys_message()
    plain = plain_blocks_message(len(junk))
    assert (
        scan_parse_validate(junk) == junk.count("END_OPERATOR_CMD")
        and scan_parse_validate(plain) > 0
    )
    plain_time, junk_time = interleaved(
        lambda: scan_parse_validate(plain), lambda: scan_parse_validate(junk), repeat=times(10)
    )
    return [
        (
            "scanner vs bare re.finditer",
            scan / bare,
            3.0,
            f"{scan * 1e3:.2f} ms vs {bare * 1e3:.2f} ms",
        ),
        (
            "scan+parse+validate vs bare re.finditer",
            full / bare,
            10.0,
            f"{full * 1e3:.2f} ms vs {bare * 1e3:.2f} ms",
        ),
        (
            "100-char chunks vs whole feed",
            streamed / whole,
            1.5,
            f"{streamed * 1e3:.2f} ms vs {whole * 1e3:.2f} ms",
        ),
        (
            "100-char chunks asking pending after each vs whole feed",
            asking / whole2,
            3.0,
            f"{asking * 1e3:.2f} ms vs {whole2 * 1e3:.2f} ms",
        ),
        (
            f"{len(junk):,}-char message of junk extra keys vs the same size of plain blocks",
            junk_time / plain_time,
            10.0,
            f"{junk_time * 1e3:.0f} ms vs {plain_time * 1e3:.0f} ms",
        ),
    ]


def ratio_row(name: str, ratio: float, target: float, detail: str) -> dict[str, Any]:
    return {
        "benchmark": name,
        "ratio": round(ratio, 2),
        "target": target,
        "met": ratio <= target,
        "detail": detail,
    }


def startup_row(startup: dict[str, float]) -> dict[str, Any]:
    """Judged on the best runs, like every row above; the medians are printed beside them
    because start-up on a loaded machine swings by tens of milliseconds."""
    extra = startup["exec_best"] - startup["python_best"]
    return {
        "benchmark": "operator-app exec one fs.read vs python -c pass",
        "extra_s": round(extra, 3),
        "target": STARTUP_TARGET_S,
        "met": extra <= STARTUP_TARGET_S,
        "extra_median_s": round(startup["exec_median"] - startup["python_median"], 3),
        "extra_paired_median_s": round(startup["paired_median"], 3),
        "detail": (
            f"best {startup['exec_best'] * 1e3:.0f} ms vs "
            f"{startup['python_best'] * 1e3:.0f} ms; median "
            f"{startup['exec_median'] * 1e3:.0f} ms vs {startup['python_median'] * 1e3:.0f} ms"
        ),
    }


def overhead_row(overhead: dict[str, float]) -> dict[str, Any]:
    extra_ms = overhead["paired_median"] * 1e3
    return {
        "benchmark": "operator-app exec of 100 getCommentStyle vs 1, same 200,000-char message",
        "extra_ms": round(extra_ms, 1),
        "target_ms": 8.0,
        "met": extra_ms <= 8.0,
        "extra_best_ms": round((overhead["hundred_best"] - overhead["one_best"]) * 1e3, 1),
        "extra_cpu_ms": round(overhead["cpu_median"] * 1e3, 1),
        "detail": (
            f"best {overhead['hundred_best'] * 1e3:.1f} ms vs "
            f"{overhead['one_best'] * 1e3:.1f} ms; median "
            f"{overhead['hundred_median'] * 1e3:.1f} ms vs "
            f"{overhead['one_median'] * 1e3:.1f} ms"
        ),
    }


def printed(row: dict[str, Any]) -> str:
    """A report row as its line."""
    if "ratio" in row:
        figure = f"{row['ratio']:.2f}x (target <= {row['target']}x)"
    elif "extra_s" in row:
        figure = (
            f"+{row['extra_s']:.3f} s best, +{row['extra_median_s']:.3f} s median, "
            f"+{row['extra_paired_median_s']:.3f} s median of paired runs "
            f"(target <= +{row['target']} s)"
        )
    else:
        figure = (
            f"+{row['extra_ms']:.1f} ms median of paired runs, +{row['extra_best_ms']:.1f} "
            f"ms between the bests, +{row['extra_cpu_ms']:.1f} ms CPU time (target <= "
            f"+{row['target_ms']:g} ms)"
        )
    return f"{'ok  ' if row['met'] else 'MISS'} {row['benchmark']}: {figure}  [{row['detail']}]"


def main() -> int:
    report = [ratio_row(*row) for row in ratio_rows()]
    report += [startup_row(exec_startup()), overhead_row(per_command_overhead())]
    if "--json" in sys.argv:
        print(json.dumps(report, indent=2))
    else:
        for row in report:
            print(printed(row))
    return exit_code(all(row["met"] for row in report))


if __name__ == "__main__":
    raise SystemExit(main())
