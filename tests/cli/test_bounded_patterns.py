"""Issue 28, items 1 to 3, through `operator-app exec`: a hostile glob, regex or .gitignore is
answered within the command's time limit and a memory bound (the run has an address-space
limit, so a blow-up fails instead of swapping), as a result of its own code, never a hang or
ERR_INTERNAL; and the session is free again at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from operator_app.protocol.commands.navigation import TIME_LIMIT_S
from tests.support.blocks import block
from tests.support.measured import measured_exec

SLACK_S = 10.0  # start-up and a busy 2-core machine; a hang took 30 s to minutes
MEMORY_MB = 1024  # the run's address space: 2.4 GB took one regex before


def summaries(stdout: str) -> list[str]:
    return [
        line[len("summary: ") :] for line in stdout.splitlines() if line.startswith("summary: ")
    ]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_hostile_globs_answer_at_once(ws: Path, tmp_path: Path) -> None:
    (ws / ("x" * 33)).write_text("needle\n")
    (ws / ("a" * 120)).write_text("needle\n")
    star_question = "*?*?*?*?*?*?*?*?*?*?*?*?*?*?Z"
    star_a = "*a*a*a*a*a*a*a*a*a*a*a*ab"
    message = (
        block("f1", "fs.find", path=".", pattern=star_question)
        + block("f2", "fs.find", path=".", pattern=star_a)
        + block("s1", "fs.searchTree", path=".", query="needle", include=star_question)
        + block("s2", "fs.searchTree", path=".", query="needle", exclude=star_a)
        + block("f3", "fs.find", path=".", pattern="*a*a*a*a*a*a*a*a*a*a*a*a")
    )
    run = measured_exec(ws, tmp_path / "state", message, memory_limit_mb=MEMORY_MB)
    assert run.returncode == 0, run.stderr
    found = summaries(run.stdout)
    assert found[0].startswith('0 entries match "*?*?')
    assert found[1].startswith('0 entries match "*a*a')
    assert found[2].startswith('0 matches for "needle"')
    assert found[3].startswith('2 matches for "needle"')  # nothing excluded: no name ends in b
    assert found[4].startswith('1 entry matches "*a*a')
    assert run.seconds < TIME_LIMIT_S + SLACK_S, run.seconds


def test_a_glob_over_the_limits_has_its_own_code(ws: Path, tmp_path: Path) -> None:
    message = block("g1", "fs.find", path=".", pattern="*a" * 200) + block(
        "g2", "fs.searchTree", path=".", query="x", include=",".join(["*.py"] * 60)
    )
    run = measured_exec(ws, tmp_path / "state", message)
    first, second = summaries(run.stdout)
    assert "(ERR_PATTERN_TOO_COSTLY): pattern glob" in first and "over the limit of 256" in first
    assert "(ERR_PATTERN_TOO_COSTLY): include holds 60 globs" in second


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("(?:a{3000}){3000}", "would unroll to about 9,000,000 items"),
        ("(?:a{65535}){65535}", "would unroll to about"),
        ("(?R)?a", "calls a group from inside itself"),
        ("(a)(?1)", "calls a group from inside itself"),
        ("(?:a*){e}b", "fuzzy-matches with no bound"),
        ("(?:ab){e<=50}", "up to 50 errors"),
        ("a" * 1001, "over the limit of 1000"),
        ("(" * 150 + "a" + ")" * 150, "nests groups over 100 deep"),
    ],
)
def test_a_costly_regex_is_refused_before_it_is_compiled(
    ws: Path, tmp_path: Path, query: str, why: str
) -> None:
    (ws / "a.txt").write_text("a" * 50_000 + "\n")
    message = block("r", "fs.searchTree", path=".", query=query, regex="true")
    run = measured_exec(ws, tmp_path / "state", message, memory_limit_mb=MEMORY_MB)
    (summary,) = summaries(run.stdout)
    assert summary.startswith("Invalid OPERATOR_CMD (ERR_PATTERN_TOO_COSTLY): query "), summary
    assert why in summary and "nothing was searched" in summary
    assert run.seconds < TIME_LIMIT_S + SLACK_S and run.peak_mb < 300, (run.seconds, run.peak_mb)


def test_a_backtracking_regex_stops_at_its_limit_on_one_file(ws: Path, tmp_path: Path) -> None:
    (ws / "big.txt").write_text("a" * 400_000 + "d\n")
    (ws / "small.txt").write_text("needle\n")
    message = block("r1", "fs.searchTree", path=".", query="(?:a+)+b", regex="true") + block(
        "r2", "fs.searchTree", path=".", query="need(?:le)+", regex="true"
    )
    run = measured_exec(ws, tmp_path / "state", message, memory_limit_mb=MEMORY_MB)
    costly, fine = summaries(run.stdout)
    assert costly.startswith("ERR_PATTERN_TOO_COSTLY: query took over its 1 s limit on one file")
    assert "big.txt" in costly and "ERR_INTERNAL" not in run.stdout
    assert fine.startswith("1 match for")  # the next command ran: the session was not stuck
    # Answered within the search's time limit (the query's own 1 s per file ran out first), with
    # slack for start-up and a loaded machine; the session lock went with the process.
    assert run.seconds < TIME_LIMIT_S + SLACK_S, run.seconds
    again = measured_exec(ws, tmp_path / "state", block("r3", "fs.list", path="."))
    assert again.returncode == 0 and "ok: true" in again.stdout


def details(stdout: str) -> list[str]:
    import base64

    return [
        base64.b64decode(line.split(": ", 1)[1]).decode()
        for line in stdout.splitlines()
        if line.startswith("details_b64: ")
    ]


@pytest.mark.parametrize(
    "line",
    [
        "build{i}/**/*.tmp{i}",  # tens of thousands of ordinary lines
        "*a*b*c*d*e*f{i}*",  # lines with many stars
        "*a" * 200 + "{i}",  # long lines of stars
    ],
)
def test_a_huge_gitignore_is_cut_while_it_is_read(ws: Path, tmp_path: Path, line: str) -> None:
    """A 975 KB .gitignore (the model can write one) made one fs.find take 102 s and 2.0 GB and
    look at nothing."""
    text = "".join(line.format(i=i) + "\n" for i in range(60_000))[:975_000]
    (ws / ".gitignore").write_text(text)
    for n in range(20):
        (ws / f"f{n}.txt").write_text("needle\n")
    message = block("g1", "fs.find", path=".", pattern="*.txt") + block(
        "g2", "fs.searchTree", path=".", query="needle"
    )
    run = measured_exec(ws, tmp_path / "state", message, memory_limit_mb=MEMORY_MB)
    find, search = summaries(run.stdout)
    assert find.startswith("20 entries match") and "(a .gitignore was cut, see the header)" in find
    assert search.startswith("20 matches for") and "a .gitignore was cut" in search
    for text_shown in details(run.stdout):
        (note,) = [x for x in text_shown.split("\n") if x.startswith("# note: ")]
        assert note.startswith("# note: .gitignore was cut: only its first 256 KB of 975,000")
    # Each walk reads it again: both answered within the walk's own time limit.
    assert run.seconds < 2 * TIME_LIMIT_S + SLACK_S and run.peak_mb < 300, (
        run.seconds,
        run.peak_mb,
    )


def test_an_ordinary_gitignore_is_read_whole_and_says_nothing(ws: Path, tmp_path: Path) -> None:
    (ws / ".gitignore").write_text("".join(f"/build{i}/\n*.tmp{i}\n" for i in range(50)))
    (ws / "a.tmp7").write_text("needle\n")
    (ws / "b.txt").write_text("needle\n")
    run = measured_exec(ws, tmp_path / "state", block("g", "fs.find", path=".", pattern="*"))
    (summary,) = summaries(run.stdout)
    assert summary.startswith("2 entries match") and "cut" not in summary  # .gitignore, b.txt
    assert (
        "# note" not in details(run.stdout)[0] and "# skipped: 1 ignored" in details(run.stdout)[0]
    )
