"""The line-number rule (docs/design.md), through the real `operator-app exec`, in both dialects:
in one message every line-addressed edit counts lines in the file as it was when the message
began (within one fs.applyEdits, as it was before that command). An edit whose lines an earlier
write of the message moved or changed is refused, nothing written, with those lines as they are
now and the range to send again; one below every earlier change applies; every write that
moves lines says how; and a command's change-set (shell.run, a bash topic's script) is a write
whose moves are not known, so a line edit of a file it changed is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.blocks import b64, block
from tests.support.string_exec import Workspace, chan

MODULE = (
    "import os\n"  # 1
    "\n"  # 2
    "def load(path):\n"  # 3
    '    """Read the file."""\n'  # 4
    "    return open(path).read()\n"  # 5
    "\n"  # 6
    "def save(path, text):\n"  # 7
    '    """Write the file.\n'  # 8
    "\n"  # 9
    "    Whole, at once.\n"  # 10
    '    """\n'  # 11
    "    open(path, 'w').write(text)\n"  # 12
)


def edits(*ranges: tuple[int, int, str]) -> str:
    return b64(
        json.dumps(
            {
                "version": 1,
                "edits": [
                    {"op": "replaceRange", "startLine": a, "endLine": b, "text": text}
                    for a, b, text in ranges
                ],
            }
        )
    )


def test_two_range_edits_top_down_refuse_the_second_with_the_range_to_send(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    # Both numbered from the same read: the first adds a line above the second's range.
    message = block(
        "e1",
        "fs.applyEdits",
        path="m.py",
        edits_b64=edits((4, 4, '    """Read the file.\n\n    As text."""')),
    ) + block("e2", "fs.applyEdits", path="m.py", edits_b64=edits((10, 11, "    In one go.\n")))
    first, second = w.exec(message).results
    assert first["ok"] and first["summary"].endswith("; lines after 4 moved +2"), first
    assert second["error_code"] == "ERR_LINES_MOVED" and not second["ok"]
    summary = second["summary"]
    assert "edit #1 (edits[0], replaceRange) of m.py: your lines 10-11" in summary
    assert "the earlier write e1 of this message moved them or changed lines inside them" in summary
    assert "they are now lines 12-13" in summary and "startLine 12, endLine 13" in summary
    assert second["details"] == (
        '# m.py: lines 12-13 of 14, as they are now\n12:     Whole, at once.\n13:     """'
    )
    text = w.read("m.py")
    assert text.count('"""') == 4  # the closing quotes of save's docstring are still there
    assert "In one go." not in text


def test_the_same_edits_bottom_up_apply(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    message = block(
        "e2", "fs.applyEdits", path="m.py", edits_b64=edits((10, 10, "    In one go."))
    ) + block(
        "e1",
        "fs.applyEdits",
        path="m.py",
        edits_b64=edits((4, 4, '    """Read the file.\n\n    As text."""')),
    )
    assert [r["ok"] for r in w.exec(message).results] == [True, True]
    lines = w.read("m.py").split("\n")
    assert lines[3:6] == ['    """Read the file.', "", '    As text."""']
    assert lines[11] == "    In one go." and lines[12] == '    """'


def test_within_one_apply_edits_lines_count_the_file_before_the_command(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    top_down = edits((4, 4, '    """Read it."""\n    # twice'), (10, 10, "    In one go."))
    refused = w.exec(block("e1", "fs.applyEdits", path="m.py", edits_b64=top_down)).one
    assert refused["error_code"] == "ERR_LINES_MOVED"
    assert refused["summary"].startswith(
        "ERR_LINES_MOVED: edit #2 (edits[1], replaceRange): lines 10-10 count the file as it was "
        "before this command, and edit #1 moved them or changed lines inside them"
    )
    assert w.read("m.py") == MODULE
    bottom_up = edits((10, 10, "    In one go."), (4, 4, '    """Read it."""\n    # twice'))
    applied = w.exec(block("e2", "fs.applyEdits", path="m.py", edits_b64=bottom_up)).one
    assert applied["ok"], applied
    assert "    In one go.\n" in w.read("m.py") and "    # twice\n" in w.read("m.py")


def test_a_write_that_only_changed_lines_below_leaves_the_numbers_standing(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    message = (
        block("e1", "fs.applyEdits", path="m.py", edits_b64=edits((12, 12, "    pass\n    pass")))
        + block(
            "p1",
            "fs.patch",
            path="m.py",
            patch_b64=b64("@@ -1,1 +1,2 @@\n import os\n+import io\n"),
        )
        + block("e2", "fs.applyEdits", path="m.py", edits_b64=edits((3, 3, "def load(p):")))
    )
    first, patched, late = w.exec(message).results
    assert first["ok"] and "moved" not in first["summary"]  # nothing follows line 12
    assert patched["ok"] and patched["summary"].endswith("; lines after 1 moved +1")
    # Line 3 as the message began is now line 4: the patch above moved it.
    assert late["error_code"] == "ERR_LINES_MOVED" and "now lines 4-4" in late["summary"]
    assert "after p1" not in late["summary"] and "write p1 of this message" in late["summary"]


def test_a_patch_hunk_below_a_change_is_refused_too(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    patch = '@@ -11,2 +11,2 @@\n     """\n-    open(path, \'w\').write(text)\n+    pass\n'
    message = block(
        "e1", "fs.applyEdits", path="m.py", edits_b64=edits((1, 1, "import os\nimport io"))
    ) + block("p1", "fs.patch", path="m.py", patch_b64=b64(patch))
    first, refused = w.exec(message).results
    assert first["ok"] and refused["error_code"] == "ERR_LINES_MOVED"
    assert "hunk 1 (@@ -11,2 +11,2 @@) of m.py: your lines 11-12" in refused["summary"]
    assert "send the patch again with that hunk at line 12" in refused["summary"]


def test_a_whole_file_write_starts_the_count_again(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"n.txt": "old\n"})
    message = block("w1", "fs.write", path="n.txt", content_b64=b64("a\nb\nc\n")) + block(
        "e1", "fs.applyEdits", path="n.txt", edits_b64=edits((2, 2, "B"))
    )
    assert [r["ok"] for r in w.exec(message).results] == [True, True]
    assert w.read("n.txt") == "a\nB\nc\n"


def test_string_replace_top_down_is_refused_with_the_range_now(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    message = chan('/replace m.py:L4\n    """Read the file.\n\n    As text."""') + chan(
        "/replace m.py:L10-L11\n    In one go.\n"
    )
    run = w.exec(message)
    first, second = run.results
    assert first["ok"] and first["summary"] == (
        "\u2713 m.py:L4 \u2014 Added 3 lines, removed 1 line; lines after 4 moved +2"
    )
    assert second["error_code"] == "LINES_MOVED"
    assert second["summary"] == (
        f"\u2717 LINES_MOVED: your :L10-L11 is now :L12-L13 after [{first['id']}] of this "
        "message; nothing was written"
    )
    assert second["details"].split("\n") == [
        "~/m.py:L12-L13 as it is now:",
        "12 \u2502     Whole, at once.",
        '13 \u2502     """',
        "line numbers count the file as it was when your message began; if these are the lines "
        "you meant, send /replace ~/m.py:L12-L13 again with the content (several line edits of "
        "one file in one message go bottom-up)",
    ]
    assert w.read("m.py").count('"""') == 4


def test_string_edits_bottom_up_and_below_an_append_apply(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    message = (
        chan("/replace m.py:L10\n    In one go.")
        + chan('/replace m.py:L4\n    """Read the file.\n\n    As text."""')
        + chan("/append m.py\n# end")
        + chan("/edit m.py:L1\nimport os, io")
    )
    run = w.exec(message)
    assert [r["ok"] for r in run.results] == [True, True, True, True], run.results
    assert "moved" not in run.results[2]["summary"]
    text = w.read("m.py")
    assert text.startswith("import os, io\n") and text.endswith("# end\n")
    assert "    In one go.\n" in text


def test_a_string_edit_after_an_operator_cmd_one_names_it(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    message = block(
        "e1", "fs.applyEdits", path="m.py", edits_b64=edits((1, 1, "import os\nimport io"))
    ) + chan("/replace m.py:L3\ndef load(p):")
    first, second = w.exec(message).results
    assert first["ok"] and second["error_code"] == "LINES_MOVED"
    assert "your :L3 is now :L4 after [e1] of this message" in second["summary"]


def test_undo_in_the_message_moves_lines_too(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    assert w.exec("Adding.\n" + chan("/replace m.py:L1\nimport os\nimport io")).one["ok"]
    run = w.exec("Back.\n" + chan("/undo") + chan("/replace m.py:L4\n    pass"))
    undone, refused = run.results
    assert undone["ok"] and undone["summary"].endswith("(12 lines; lines after 2 moved -1)")
    assert refused["error_code"] == "LINES_MOVED" and "is now :L3" in refused["summary"]


def test_a_change_above_that_keeps_the_line_count_leaves_numbers_standing(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"m.py": MODULE})
    operator = block(
        "e1", "fs.applyEdits", path="m.py", edits_b64=edits((1, 1, "import sys"))
    ) + block("e2", "fs.applyEdits", path="m.py", edits_b64=edits((12, 12, "    pass")))
    assert [r["ok"] for r in w.exec(operator).results] == [True, True]
    string = chan("/replace m.py:L3\ndef load(p):") + chan("/replace m.py:L7\ndef save(p, t):")
    run = w.exec(string)
    assert [r["ok"] for r in run.results] == [True, True], run.results
    assert run.results[0]["summary"].endswith("Added 1 line, removed 1 line")
    lines = w.read("m.py").split("\n")
    assert (lines[0], lines[2], lines[6], lines[11]) == (
        "import sys",
        "def load(p):",
        "def save(p, t):",
        "    pass",
    )


# -- a command's change-set is a write whose line moves are not known ---------------------------


def test_a_line_edit_after_a_command_changed_the_file_is_refused_in_both_dialects(
    tmp_path: Path,
) -> None:
    from tests.cli.test_shell import sandbox_or_skip

    sandbox_or_skip()
    w = Workspace(tmp_path, {"m.py": MODULE, "other.py": MODULE})
    # A formatter-like command inserts a line at the top of m.py; other.py it leaves alone.
    script = "sed -i '1i # formatted' m.py"
    operator = (
        block("e0", "fs.applyEdits", path="m.py", edits_b64=edits((12, 12, "    pass")))
        + block("c1", "shell.run", command_b64=b64(script))
        + block("e1", "fs.applyEdits", path="m.py", edits_b64=edits((4, 4, "    # read")))
        + block("e2", "fs.applyEdits", path="other.py", edits_b64=edits((4, 4, "    # read")))
    )
    before, ran, refused, elsewhere = w.exec(operator).results
    assert before["ok"] and ran["ok"] and "1 file: 1 changed" in ran["summary"], ran
    assert refused["error_code"] == "ERR_LINES_MOVED", refused
    assert (
        "edit #1 (edits[0], replaceRange) of m.py: your lines 4-4 count the file as it was when "
        "your message began, and the command c1 of this message (shell.run) changed the file "
        "since, so where those lines are now is not known; nothing was written"
    ) in refused["summary"]
    assert refused["details"] == "# m.py: lines 4-4 of 13, as they are now\n4: def load(path):"
    assert elsewhere["ok"], elsewhere  # a file the command did not change keeps its numbers
    text = w.read("m.py")
    assert text.startswith("# formatted\nimport os\n") and "# read" not in text
    assert text.endswith("    pass\n")

    # String: a bash topic's script, then a :L edit of the file it changed.
    w.put("s.md", "one\ntwo\nthree\n")
    string = chan("sed -i '1i zero' s.md", "bash:dev") + chan("/replace s.md:L2\nTWO")
    script_result, edit = w.exec(string).results
    assert script_result["ok"] and edit["error_code"] == "LINES_MOVED", edit
    assert edit["summary"] == (
        f"\u2717 LINES_MOVED: your :L2 may have moved: the script [{script_result['id']}] of this "
        "message changed ~/s.md, so where those lines are now is not known; nothing was written"
    )
    assert edit["details"].split("\n")[:2] == ["~/s.md:L2 as it is now:", "2 \u2502 one"]
    assert w.read("s.md") == "zero\none\ntwo\nthree\n"


def test_after_a_command_a_whole_file_write_starts_the_count_again(tmp_path: Path) -> None:
    from tests.cli.test_shell import sandbox_or_skip

    sandbox_or_skip()
    w = Workspace(tmp_path, {"n.txt": "old\n"})
    message = (
        block("c1", "shell.run", command="echo more >> n.txt")
        + block("w1", "fs.write", path="n.txt", content_b64=b64("a\nb\nc\n"))
        + block("e1", "fs.applyEdits", path="n.txt", edits_b64=edits((2, 2, "B")))
    )
    assert [r["ok"] for r in w.exec(message).results] == [True, True, True]
    assert w.read("n.txt") == "a\nB\nc\n"


def test_after_a_command_without_a_sandbox_every_files_line_edits_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPERATOR_SANDBOX", "none")
    w = Workspace(tmp_path, {"m.py": MODULE})
    message = block("c1", "shell.run", command="true") + block(
        "e1", "fs.applyEdits", path="m.py", edits_b64=edits((4, 4, "    # read"))
    )
    run, edit = w.exec(message, extra=("--allow-unsandboxed",)).results
    assert run["ok"] and "changes made directly" in run["summary"], run
    assert edit["error_code"] == "ERR_LINES_MOVED" and "the command c1" in edit["summary"]
    assert w.read("m.py") == MODULE
