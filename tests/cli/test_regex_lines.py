"""Issue 33, item 2, through `operator-app exec`: in a regex: true query (fs.searchTree, fs.search,
String's /grep --regex) ^ and $ match at the start and end of every line, as grep's do, not only
at the file's: "^def " finds every def, in LF and CRLF files alike, and "^$" no line past the
file's last line break. fs.search takes regex and ignore_case as fs.searchTree does."""

from __future__ import annotations

from pathlib import Path

from tests.support.blocks import block
from tests.support.string_exec import Workspace, chan, content

MODULE = "import os\n\ndef first():\n    return 1\n\n\ndef second():  \n    pass\n"
FILES: dict[str, str | bytes] = {
    "pkg/lf.py": MODULE,
    "pkg/crlf.py": MODULE.replace("\n", "\r\n").encode(),
    "pkg/nested/deep.py": "class A:\n    def method(self):\n        pass\ndef top():\n    pass\n",
}


def test_search_tree_anchors_each_line_in_lf_and_crlf_files(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    run = w.exec(
        block("s1", "fs.searchTree", path=".", query=r"^def\s", regex="true")
        + block("s2", "fs.searchTree", path="pkg", query=r"\):$", regex="true")
        + block("s3", "fs.searchTree", path="pkg/lf.py", query="^$", regex="true")
    )
    defs, line_ends, blank = run.results
    assert defs["summary"].startswith("5 matches for ") and " in 3 files" in defs["summary"]
    assert defs["details"].split("\n")[3:] == [
        "pkg/crlf.py:3: def first():",
        "pkg/crlf.py:7: def second():  ",
        "pkg/lf.py:3: def first():",
        "pkg/lf.py:7: def second():  ",
        "pkg/nested/deep.py:4: def top():",
    ]
    # $ before a CRLF line break too; "def second():  " ends in spaces, so ":$" is not there.
    assert [row.split(": ")[0] for row in line_ends["details"].split("\n")[3:]] == [
        "pkg/crlf.py:3",
        "pkg/lf.py:3",
        "pkg/nested/deep.py:2",
        "pkg/nested/deep.py:4",
    ]
    # Lines 2, 5 and 6 are empty; nothing is counted after the final line break.
    assert [row.split(":")[1] for row in blank["details"].split("\n")[3:]] == ["2", "5", "6"]


def test_fs_search_takes_regex_and_ignore_case(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    run = w.exec(
        block("r1", "fs.search", path="pkg/crlf.py", query="^def .*:$", regex="true")
        + block("r2", "fs.search", path="pkg/lf.py", query="^DEF", regex="true", ignore_case="true")
        + block("r3", "fs.search", path="pkg/lf.py", query="RETURN", ignore_case="true")
        + block("r4", "fs.search", path="pkg/lf.py", query="^def")
    )
    anchored, folded, plain_folded, literal = run.results
    assert anchored["summary"] == '1 match for "^def .*:$" in pkg/crlf.py'
    assert anchored["details"].split("\n") == [
        "# path: pkg/crlf.py",
        '# query: "^def .*:$" (regex)',
        "# matches: 1",
        "3: def first():",
    ]
    assert folded["details"].split("\n")[1:] == [
        '# query: "^DEF" (regex, ignore case)',
        "# matches: 2",
        "3: def first():",
        "7: def second():  ",
    ]
    assert plain_folded["details"].split("\n")[-1] == "4:     return 1"
    # Without regex: true the query is text, and no line holds "^def".
    assert literal["ok"] and literal["summary"].startswith('0 matches for "^def"')


def test_fs_search_counts_every_matching_line_past_its_cap(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"many.txt": "x\n" * 120})
    (result,) = w.exec(block("c", "fs.search", path="many.txt", query="^x$", regex="true")).results
    assert result["summary"] == '120 matches for "^x$" in many.txt (showing the first 50)'
    assert "# matches: 50 of 120 (truncated)" in result["details"]


def test_fs_search_stops_a_backtracking_regex_at_its_limit(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"big.txt": "a" * 400_000 + "d\n"})
    (result,) = w.exec(
        block("b", "fs.search", path="big.txt", query="(?:a+)+b", regex="true")
    ).results
    assert result["error_code"] == "ERR_PATTERN_TOO_COSTLY"
    assert result["summary"].startswith(
        "ERR_PATTERN_TOO_COSTLY: query took over its 1 s limit on big.txt (400002 bytes); "
        "the search stopped there"
    ), result["summary"]


def test_string_grep_regex_anchors_each_line(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    found = w.exec(chan("/grep ^def --regex ~/pkg")).one
    assert found["ok"], found
    assert content(found).split("\n") == [
        "pkg/crlf.py:3: def first():",
        "pkg/crlf.py:7: def second():  ",
        "pkg/lf.py:3: def first():",
        "pkg/lf.py:7: def second():  ",
        "pkg/nested/deep.py:4: def top():",
    ]
    ends = w.exec(chan(r"/grep \(self\):$ --regex")).one
    assert content(ends) == "pkg/nested/deep.py:2:     def method(self):"
