"""fs.searchTree, fs.find and fs.tree through the engine on real folders: the whole tree is read
(no file limit), what is returned is capped and says so, the time limit stops a walk with an
honest header, include/exclude/regex/ignore_case/query_b64 do what the spec says, a search finds
exactly what grep finds, and fs.find and fs.tree list what they promise, in the promised order."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.executor import Engine
from operator_app.engine.reads import find as find_module
from operator_app.engine.reads import search_tree as search_module
from operator_app.engine.state.session import Session
from operator_app.protocol.commands.navigation import FsFind, FsSearchTree, FsTree
from operator_app.protocol.results import CommandResult
from tests.support.blocks import b64, block


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


_IDS = iter(range(1_000_000))


def run(ws: Path, action: str, **fields: str) -> CommandResult:
    """One command on `ws`, in the session beside it (each with an id of its own)."""
    state = ws.parent / "state"
    (result,) = (
        Engine(Workspace(ws), Session(state))
        .run_text(block(f"c{next(_IDS)}", action, **fields))
        .results
    )
    return result


def lines(result: CommandResult) -> list[str]:
    return [line for line in (result.details or "").split("\n") if not line.startswith("#")]


def header(result: CommandResult) -> list[str]:
    return [line for line in (result.details or "").split("\n") if line.startswith("#")]


# -- fs.searchTree ---------------------------------------------------------------------------


def test_every_file_is_searched_not_just_the_first_300(ws: Path) -> None:
    for n in range(1200):
        write(ws / f"d{n // 100:02d}" / f"f{n:04d}.txt", "nothing here\n")
    write(ws / "zz" / "last.txt", "one\ndef urlopen(url):\n")
    result = run(ws, "fs.searchTree", path=".", query="def urlopen")
    assert result.ok and not result.truncated, result.summary
    assert lines(result) == ["zz/last.txt:2: def urlopen(url):"]
    assert result.summary == '1 match for "def urlopen" in 1 file under . (1201 files scanned)'


def test_the_cap_is_on_what_is_returned_and_the_rest_is_still_counted(ws: Path) -> None:
    for n in range(30):
        write(ws / f"f{n:02d}.txt", "hit\n" * 10)
    result = run(ws, "fs.searchTree", path=".", query="hit")
    assert len(lines(result)) == FsSearchTree.MAX_MATCHES and result.truncated
    assert header(result)[2] == (
        "# matches: 200 shown, in 20 files; 30 files match in all; 30 files scanned (truncated)"
    )
    assert header(result)[3].startswith("# truncated: only the first 200 matching lines")
    assert result.summary == (
        '200 of the matches for "hit" shown, from 20 of the 30 files that match under . '
        "(30 files scanned) (truncated)"
    )


def test_the_time_limit_stops_the_search_and_says_how_far_it_got(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(ws / "a.txt", "needle\n")
    monkeypatch.setattr(search_module.navigation, "TIME_LIMIT_S", -1)
    result = run(ws, "fs.searchTree", path=".", query="needle")
    assert (
        result.ok
        and result.truncated
        and result.summary.endswith("(0 files scanned; stopped early, see the header) (truncated)")
    )
    assert "# truncated: stopped at the -1 s time limit after 0 files scanned, the last none" in (
        result.details or ""
    )


def test_a_long_line_is_cut_to_a_window_around_its_match(ws: Path) -> None:
    line = "x" * 3000 + "needle" + "y" * 3000
    write(ws / "min.js", line + "\n")
    (shown,) = lines(run(ws, "fs.searchTree", path=".", query="needle"))
    text = shown.removeprefix("min.js:1: ")
    assert text.startswith("[...] x") and text.endswith("y [...]") and "needle" in text
    assert len(text) <= FsSearchTree.LINE_CHARS + 12


def test_include_and_exclude_are_globs_relative_to_the_path(ws: Path) -> None:
    for rel in ("src/a.py", "src/b.ts", "src/deep/c.py", "tests/t.py", "docs/d.md", "top.py"):
        write(ws / rel, "needle\n")
    found = lines(run(ws, "fs.searchTree", path=".", query="needle", include="*.py"))
    assert [x.split(":")[0] for x in found] == ["src/a.py", "src/deep/c.py", "tests/t.py", "top.py"]
    excluded = run(ws, "fs.searchTree", path=".", query="needle", include="*.py", exclude="tests/")
    assert [x.split(":")[0] for x in lines(excluded)] == ["src/a.py", "src/deep/c.py", "top.py"]
    assert "# not searched: 1 excluded, 2 outside include" in header(excluded)
    anchored = run(ws, "fs.searchTree", path="src", query="needle", include="/*.py, **/*.ts")
    assert [x.split(":")[0] for x in lines(anchored)] == ["src/a.py", "src/b.ts"]


def test_regex_and_ignore_case(ws: Path) -> None:
    write(ws / "a.py", "def urlopen(x):\ndef URLOPEN(y):\nurlopen = 1\n")
    write(ws / "b.txt", "\u00c9T\u00c9 \u00e9t\u00e9\n")
    regex = run(ws, "fs.searchTree", path=".", query=r"def \w+open\(", regex="true")
    assert lines(regex) == ["a.py:1: def urlopen(x):"]
    assert header(regex)[0] == '# query: "def \\\\w+open\\\\(" (regex)'
    both = run(ws, "fs.searchTree", path=".", query="def urlopen", ignore_case="true")
    assert lines(both) == ["a.py:1: def urlopen(x):", "a.py:2: def URLOPEN(y):"]
    accented = run(
        ws, "fs.searchTree", path=".", query_b64=b64("\u00e9t\u00e9"), ignore_case="true"
    )
    assert lines(accented) == ["b.txt:1: \u00c9T\u00c9 \u00e9t\u00e9"]


def test_query_b64_keeps_the_spaces_a_plain_value_loses(ws: Path) -> None:
    write(ws / "a.py", "address = 1\nadd x\n")
    assert len(lines(run(ws, "fs.searchTree", path=".", query="add "))) == 2  # trimmed: "add"
    spaced = run(ws, "fs.searchTree", path=".", query_b64=b64("add "))
    assert lines(spaced) == ["a.py:2: add x"] and header(spaced)[0] == '# query: "add "'
    assert lines(run(ws, "fs.search", path="a.py", query_b64=b64("add "))) == ["2: add x"]


def test_bom_crlf_and_a_query_across_lines(ws: Path) -> None:
    write(ws / "bom.txt", b"\xef\xbb\xbfneedle first\r\nsecond needle\r\n")
    assert lines(run(ws, "fs.searchTree", path=".", query="needle")) == [
        "bom.txt:1: needle first",
        "bom.txt:2: second needle",
    ]
    write(ws / "two.txt", "alpha\nbeta\nalpha\ngamma\n")
    across = run(ws, "fs.searchTree", path="two.txt", query_b64=b64("alpha\nbeta"))
    assert lines(across) == ["two.txt:1: alpha"]


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_it_finds_exactly_what_grep_finds(ws: Path) -> None:
    rng = random.Random(5)
    words = ["def", "urlopen", "open", "url", "x", "(", ")", "de f", "defurl", "def  urlopen"]
    for n in range(300):
        text = "\n".join(
            " ".join(rng.choices(words, k=rng.randint(0, 8))) for _ in range(rng.randint(0, 40))
        )
        write(ws / f"d{n % 7}" / f"e{n % 3}" / f"f{n}.txt", text + rng.choice(["", "\n", "\r\n"]))
    write(ws / ".git" / "HEAD", "def urlopen\n")
    result = run(ws, "fs.searchTree", path=".", query="def urlopen")
    ours = {tuple(x.split(":")[:2]) for x in lines(result)}
    done = subprocess.run(
        ["grep", "-rnFI", "--exclude-dir=.git", "def urlopen", "."],
        cwd=ws,
        capture_output=True,
        text=True,
        check=False,
    )
    theirs = {tuple(x.removeprefix("./").split(":")[:2]) for x in done.stdout.splitlines()}
    assert ours == theirs and 0 < len(ours) < FsSearchTree.MAX_MATCHES


def test_a_symlinked_file_named_as_the_path_is_searched_under_its_own_name(ws: Path) -> None:
    write(ws / "src" / "a.py", "needle\n")
    os.symlink("src/a.py", ws / "link.py")
    assert lines(run(ws, "fs.searchTree", path="link.py", query="needle")) == ["link.py:1: needle"]


# -- fs.find ---------------------------------------------------------------------------------


@pytest.fixture
def tree(ws: Path) -> Path:
    for rel in (
        "README.md",
        "setup.py",
        "src/app/main.py",
        "src/app/util.py",
        "src/app/data.json",
        "src/lib.py",
        "tests/test_main.py",
        "tests/conftest.py",
        "build/out.py",
        "odd.py/inner.txt",
    ):
        write(ws / rel, "x\n")
    (ws / "empty").mkdir()
    write(ws / ".gitignore", "build/\n")
    os.symlink("src/lib.py", ws / "lib-link.py")
    return ws


def found(result: CommandResult) -> list[str]:
    return lines(result)


def test_find_a_bare_glob_matches_at_any_depth(tree: Path) -> None:
    result = run(tree, "fs.find", path=".", pattern="*.py")
    assert found(result) == [
        "lib-link.py@",
        "odd.py/",
        "setup.py",
        "src/app/main.py",
        "src/app/util.py",
        "src/lib.py",
        "tests/conftest.py",
        "tests/test_main.py",
    ]
    assert "# skipped: 1 ignored by .gitignore" in header(result)
    assert result.summary.startswith('8 entries match "*.py" under .')


def test_find_anchored_globs_double_stars_and_lists(tree: Path) -> None:
    assert found(run(tree, "fs.find", path="src", pattern="*.py")) == [
        "src/app/main.py",
        "src/app/util.py",
        "src/lib.py",
    ]
    assert found(run(tree, "fs.find", path="src", pattern="/*.py")) == ["src/lib.py"]
    assert found(run(tree, "fs.find", path=".", pattern="src/**/*.json")) == ["src/app/data.json"]
    assert found(run(tree, "fs.find", path=".", pattern="test_*.py, README*")) == [
        "README.md",
        "tests/test_main.py",
    ]
    assert found(run(tree, "fs.find", path=".", pattern="tests")) == ["tests/"]
    assert found(run(tree, "fs.find", path=".", pattern="empty/")) == ["empty/"]


def test_find_is_capped_and_counts_the_rest(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(12):
        write(ws / f"f{n:02d}.py", "")
    monkeypatch.setattr(FsFind, "MAX_RESULTS", 5)
    result = run(ws, "fs.find", path=".", pattern="*.py")
    assert found(result) == [f"f{n:02d}.py" for n in range(5)] and result.truncated
    assert "# found: 5 shown of 12; 12 entries looked at (truncated)" in header(result)


def test_find_stops_at_the_time_limit(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(find_module.navigation, "TIME_LIMIT_S", -1)
    result = run(tree, "fs.find", path=".", pattern="*.py")
    assert result.truncated and any(
        line.startswith("# truncated: stopped at the -1 s time limit") for line in header(result)
    )


# -- fs.tree ---------------------------------------------------------------------------------


def test_tree_lists_folders_first_with_sizes_and_counts(tree: Path) -> None:
    write(tree / "src" / "app" / "deep" / "er" / "x.txt", "12345")
    result = run(tree, "fs.tree", path=".")
    assert found(result) == [
        "empty/ (empty)",
        "odd.py/",
        "odd.py/inner.txt (2 bytes)",
        "src/",
        "src/app/",
        "src/app/deep/ (1 entry)",
        "src/app/data.json (2 bytes)",
        "src/app/main.py (2 bytes)",
        "src/app/util.py (2 bytes)",
        "src/lib.py (2 bytes)",
        "tests/",
        "tests/conftest.py (2 bytes)",
        "tests/test_main.py (2 bytes)",
        ".gitignore (7 bytes)",
        "README.md (2 bytes)",
        "lib-link.py@",
        "setup.py (2 bytes)",
    ]
    assert "# skipped: 1 ignored by .gitignore (build/)" in header(result)
    assert result.summary == ("Tree of . to depth 3: 17 entries (6 folders, 10 files, 1 symlink)")
    assert found(run(tree, "fs.tree", path="src", depth="1")) == [
        "src/app/ (4 entries)",
        "src/lib.py (2 bytes)",
    ]


def test_tree_shows_the_deepest_level_that_fits(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FsTree, "MAX_ENTRIES", 8)
    result = run(tree, "fs.tree", path=".")
    assert found(result) == [
        "empty/ (empty)",
        "odd.py/ (1 entry)",
        "src/ (2 entries)",
        "tests/ (2 entries)",
        ".gitignore (7 bytes)",
        "README.md (2 bytes)",
        "lib-link.py@",
        "setup.py (2 bytes)",
    ]
    assert result.truncated and any(
        "lie within depth 3, over the limit of 8; shown to depth 1" in line
        for line in header(result)
    )
    monkeypatch.setattr(FsTree, "MAX_ENTRIES", 3)
    cut = run(tree, "fs.tree", path=".")
    assert found(cut) == ["empty/ (empty)", "odd.py/ (1 entry)", "src/ (2 entries)"]
    assert any("lie directly in ., over the limit of 3" in line for line in header(cut))


def test_tree_of_a_file_is_refused(tree: Path) -> None:
    result = run(tree, "fs.tree", path="README.md")
    assert result.error_code == "ERR_NOT_A_DIRECTORY" and "fs.readSlice" in result.summary


def test_a_large_file_is_read_whole_unless_its_first_bytes_say_binary(ws: Path) -> None:
    write(ws / "big.txt", "x" * 100 + "\n" + "filler line\n" * 20_000 + "needle at the end\n")
    write(ws / "blob.bin", b"\x00\x01" * 100_000 + b"needle\n")
    result = run(ws, "fs.searchTree", path=".", query="needle")
    assert lines(result) == ["big.txt:20002: needle at the end"]
    assert "# matches: 1 in 1 file; 2 files scanned" in header(result)
    assert "# skipped: 1 binary" in header(result)
