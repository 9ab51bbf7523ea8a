#!/usr/bin/env python3
"""fs.searchTree over a large tree (issues 19 and 23), against grep in the same run, on two trees:

- "bench": 20,000 source files (about 200 MB: Python, JavaScript, C, headers and Markdown in
  2,000 folders, a .gitignore of three lines), "def urlopen" in 22 of them;
- "source": 20,000 Python modules of about 10 KB in 680 folders, written the way code reads,
  under the .gitignore most Python projects carry (benchmarks/source_tree.py), "def urlopen" in
  20 of them.

Both have a .git folder both sides leave out. What is measured, with the page cache warm:

  the search itself = `operator-app exec` of the fs.searchTree - `operator-app exec` of one small
                      fs.read (the start-up, session and output both share)
  the baseline      = grep -rnFI --exclude-dir=.git "def urlopen" .

and the same search as String's /grep (issue 25: Operator's own String commands run the engine's
actions at the same speed), less the `operator-app exec` of a String /open of the same small file.

Target, on each tree: each search costs at most 1.5x grep, and finds the same (path, line) matches.
The five commands run interleaved, best of --rounds each (a burst of load hits all alike);
medians and CPU times are printed beside. Run: python benchmarks/bench_search.py [--rounds N]
[--tree DIR] [--only bench|source] [--json] [--smoke]. --tree keeps the generated trees in DIR
(DIR/bench, DIR/source) for the next run (each is made when missing). Exits 1 on a missed target
or differing matches; --smoke (benchmarks/smoke.py) searches trees of 1,000 files once and fails
only on differing matches.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import source_tree  # noqa: E402
from benchmarks.smoke import SMOKE, exit_code  # noqa: E402
from benchmarks.smoke import times as repeats  # noqa: E402  (`times` here is a dict of timings)

QUERY = "def urlopen"
FILES = 1_000 if SMOKE else 20_000  # --smoke: 2 of them hold the query
TARGET = 1.5
WORDS = (
    *("def class return import from self value data config parse request response handle error",),
    *("index buffer stream token module result items object lambda yield async await open",),
    *("close read write path name list dict state cache timeout retry header body status",),
)
VOCABULARY = " ".join(WORDS).split(" ")
EXTENSIONS = (".py", ".js", ".c", ".h", ".md")
PLANTED = f"{QUERY}(url, data=None, timeout=10):"


def make_tree(top: Path) -> int:
    """Write the "bench" tree (the same bytes every time); return its size in bytes."""
    rng = random.Random(19)
    pool = [
        "    " * rng.randint(0, 3) + " ".join(rng.choices(VOCABULARY, k=rng.randint(2, 12)))
        for _ in range(5000)
    ]
    total = 0
    for number in range(FILES):
        folder = (
            top / f"pkg{number // 500:02d}" / f"sub{number // 50 % 10}" / f"mod{number // 10 % 5}"
        )
        folder.mkdir(parents=True, exist_ok=True)
        lines = rng.choices(pool, k=rng.randint(80, 320))
        if number % 950 == 3:  # 22 files hold the query, once each
            lines.insert(rng.randrange(len(lines)), PLANTED)
        data = ("\n".join(lines) + "\n").encode()
        (folder / f"file{number:05d}{EXTENSIONS[number % 5]}").write_bytes(data)
        total += len(data)
    (top / ".git" / "objects").mkdir(parents=True, exist_ok=True)
    (top / ".git" / "objects" / "pack").write_text(f"{QUERY} inside .git\n" * 1000)
    (top / ".gitignore").write_text("*.pyc\n__pycache__/\nbuild/\n")
    (top / "README.md").write_text("A generated tree for bench_search.py.\n")
    return total + 52


def make_source_tree(top: Path) -> int:
    """Write the "source" tree; return the bytes of its modules."""
    if SMOKE:  # 1,000 modules in 34 folders, 2 of them hold the query
        return source_tree.make_tree(top, files=1_000, folders=34, matches=2)
    return source_tree.make_tree(top)


TREES = {"bench": make_tree, "source": make_source_tree}


def tree_size(top: Path) -> int:
    return sum(p.stat().st_size for p in top.rglob("*") if p.is_file() and ".git" not in p.parts)


def operator_command() -> list[str]:
    script = Path(sys.executable).with_name("operator-app")
    return [str(script)] if script.exists() else [sys.executable, "-m", "operator_app"]


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def block(command_id: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {command_id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD", ""])


def chan(payload: str) -> str:
    """A String block, as a model writes it."""
    return f"<\U0001d49e=string:file:main>{payload}</\U0001d49e>\n"


MESSAGES = {  # each timed exec's message, by name
    "search": lambda n: block(f"s{n}", "fs.searchTree", path=".", query=QUERY),
    "read": lambda n: block(f"r{n}", "fs.read", path="README.md"),
    "string_grep": lambda n: f"Search {n}.\n" + chan(f'/grep "{QUERY}"'),
    "string_open": lambda n: f"Read {n}.\n" + chan("/open README.md"),
}


def grep_matches(output: str) -> set[tuple[str, int]]:
    found = set()
    for line in output.splitlines():
        path, number, _ = line.split(":", 2)
        found.add((path.removeprefix("./"), int(number)))
    return found


def operator_matches(details: str) -> set[tuple[str, int]]:
    """The (path, line) of each match in fs.searchTree's details or /grep's response."""
    found = set()
    for line in details.split("\n"):
        if line and not line.startswith(("#", "---")):
            path, number, _ = line.split(":", 2)
            found.add((path, int(number)))
    return found


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    used = child_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # grep exits 1 when nothing matches
        raise SystemExit(f"{argv[0]} failed ({done.returncode}): {done.stderr}")
    return elapsed, child_cpu() - used, done.stdout


class Runs(NamedTuple):
    """What the interleaved rounds measured: seconds and CPU seconds of each command by name,
    the details of each search's result, and grep's output."""

    times: dict[str, list[float]]
    cpu: dict[str, list[float]]
    details: dict[str, str]
    grep_out: str


def exec_argv(top: Path, scratch: Path, name: str, number: int) -> list[str]:
    """`operator-app exec` of the message `name` (round `number`), each in a session of its own."""
    message = scratch / f"{top.name}-{name}-{number}.txt"
    message.write_text(MESSAGES[name](number), encoding="utf-8")
    return [
        *operator_command(),
        "exec",
        "--workspace",
        str(top),
        "--state-dir",
        str(scratch / f"state-{top.name}-{name}-{number}"),
        "--json",
        str(message),
    ]


def timed_runs(top: Path, scratch: Path, rounds: int) -> Runs:
    """grep and the four messages, interleaved over `rounds` rounds after one to warm up."""
    env = dict(os.environ, XDG_STATE_HOME=str(scratch / "xdg"))
    grep = ["grep", "-rnFI", "--exclude-dir=.git", QUERY, "."]
    names = ("grep", *MESSAGES)
    grep_out = run(grep, top, env)[2]  # the first runs warm the page cache
    runs = Runs({name: [] for name in names}, {name: [] for name in names}, {}, grep_out)
    for number in range(-1, rounds):
        for name in names:
            argv = grep if name == "grep" else exec_argv(top, scratch, name, number)
            elapsed, used, out = run(argv, top, env)
            if name != "grep":
                (result,) = json.loads(out)["data"]["results"]
                assert result["ok"], result
                runs.details[name] = result["details"] or ""
            if number >= 0:  # the round before is the warm-up
                runs.times[name].append(elapsed)
                runs.cpu[name].append(used)
    return runs


def measure(top: Path, scratch: Path, rounds: int) -> dict[str, object]:
    """The report row of the tree at `top`: the search against grep, interleaved rounds."""
    size = tree_size(top)
    times, cpu, details, grep_out = timed_runs(top, scratch, rounds)
    ours, theirs = operator_matches(details["search"]), grep_matches(grep_out)
    same = ours == theirs == operator_matches(details["string_grep"]) and not any(
        line.startswith("# truncated") for line in details["search"].split("\n")
    )
    best = {name: min(values) for name, values in times.items()}
    cost = best["search"] - best["read"]
    ratio = cost / best["grep"]
    string_cost = best["string_grep"] - best["string_open"]
    string_ratio = string_cost / best["grep"]
    paired = [s - r for s, r in zip(times["search"], times["read"], strict=True)]
    median_ratio = statistics.median(paired) / statistics.median(times["grep"])
    cpu_ratio = (statistics.median(cpu["search"]) - statistics.median(cpu["read"])) / (
        statistics.median(cpu["grep"])
    )
    files = sum(1 for p in top.rglob("*") if p.is_file() and ".git" not in p.parts)
    folders = sum(1 for p in top.rglob("*") if p.is_dir() and ".git" not in p.parts)
    return {
        "benchmark": (
            f"{top.name} tree: fs.searchTree of {QUERY!r} over {files} files ({size / 1e6:.0f} MB "
            f"in {folders} folders) vs grep -rnFI --exclude-dir=.git"
        ),
        "grep_best_s": round(best["grep"], 3),
        "search_exec_best_s": round(best["search"], 3),
        "read_exec_best_s": round(best["read"], 3),
        "search_cost_s": round(cost, 3),
        "ratio": round(ratio, 2),
        "string_grep_exec_best_s": round(best["string_grep"], 3),
        "string_open_exec_best_s": round(best["string_open"], 3),
        "string_grep_cost_s": round(string_cost, 3),
        "string_ratio": round(string_ratio, 2),
        "median_ratio": round(median_ratio, 2),
        "cpu_ratio": round(cpu_ratio, 2),
        "rounds": rounds,
        "target": TARGET,
        "matches": len(ours),
        "same_matches_as_grep": same,
        "met": ratio <= TARGET and string_ratio <= TARGET and same,
    }


def main() -> int:
    args = sys.argv[1:]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else repeats(9)
    shapes = [args[args.index("--only") + 1]] if "--only" in args else list(TREES)
    scratch = Path(tempfile.mkdtemp(prefix="bench-search-"))
    kept = "--tree" in args and not SMOKE  # a smoke tree is smaller: never kept for a real run
    trees = Path(args[args.index("--tree") + 1]) if kept else scratch / "trees"
    try:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(ROOT / "operator_app")],
            check=True,
            capture_output=True,
        )
        report = []
        for shape in shapes:
            top = trees / shape
            if not (top / "README.md").exists():
                started = time.perf_counter()
                TREES[shape](top)
                print(f"generated {top} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            report.append(measure(top, scratch, rounds))
        if "--json" in args:
            print(json.dumps(report, indent=2))
        else:
            for row in report:
                print(
                    f"{'ok  ' if row['met'] else 'MISS'} {row['benchmark']}: {row['ratio']:.2f}x "
                    f"(target <= {TARGET}x); search {row['search_cost_s']:.3f} s (exec "
                    f"{row['search_exec_best_s']:.3f} s - {row['read_exec_best_s']:.3f} s of a "
                    f"small fs.read) vs grep {row['grep_best_s']:.3f} s, best of {rounds}; medians "
                    f"{row['median_ratio']:.2f}x, CPU time {row['cpu_ratio']:.2f}x; String's "
                    f"/grep {row['string_ratio']:.2f}x ({row['string_grep_cost_s']:.3f} s); "
                    f"{row['matches']} matches, "
                    f"{'the same as' if row['same_matches_as_grep'] else 'NOT the same as'} grep's"
                )
        same = all(row["same_matches_as_grep"] for row in report)
        return exit_code(all(row["met"] for row in report)) if same else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
