"""fs.patch's pure core: strict unified-diff application (operator_app.engine.textops.patch)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import unidiff

from operator_app.engine.textops.hunks import find_matches
from operator_app.engine.textops.patch import PatchOutcome, apply_patch
from operator_app.protocol.errors import ErrorCode, OperatorError

LABEL = "src/app.py"
TEN = "".join(f"line {n}\n" for n in range(1, 11))


def fail(original: str | None, patch: str, code: ErrorCode) -> OperatorError:
    with pytest.raises(OperatorError) as info:
        apply_patch(original, patch, label=LABEL)
    assert info.value.code == code, info.value
    assert "\n" not in info.value.message
    return info.value


def test_single_hunk_replaces_a_line() -> None:
    patch = (
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
    )
    outcome = apply_patch(TEN, patch, label=LABEL)
    assert outcome == PatchOutcome(
        TEN.replace("line 3\n", "LINE 3\n"), hunks=1, added=1, removed=1, created=False
    )


def test_multi_hunk_applies_each_at_its_old_line() -> None:
    patch = (
        "@@ -1,2 +1,3 @@\n line 1\n+new after 1\n line 2\n"
        "@@ -5,3 +6,2 @@\n line 5\n-line 6\n line 7\n"
        "@@ -9,2 +9,2 @@\n-line 9\n+LINE 9\n line 10\n"
    )
    outcome = apply_patch(TEN, patch, label=LABEL)
    expected = (
        TEN.replace("line 2\n", "new after 1\nline 2\n")
        .replace("line 6\n", "")
        .replace("line 9\n", "LINE 9\n")
    )
    assert outcome.text == expected
    assert (outcome.hunks, outcome.added, outcome.removed) == (3, 2, 2)


def test_insertion_hunk_with_zero_old_lines_inserts_after_the_stated_line() -> None:
    outcome = apply_patch(TEN, "@@ -3,0 +4,2 @@\n+a\n+b\n", label=LABEL)
    assert outcome.text == TEN.replace("line 3\n", "line 3\na\nb\n")
    assert (outcome.added, outcome.removed) == (2, 0)
    # at the very end of the file, too
    assert apply_patch(TEN, "@@ -10,0 +11 @@\n+tail\n", label=LABEL).text == TEN + "tail\n"


def test_insertion_hunk_with_context() -> None:
    outcome = apply_patch(TEN, "@@ -4,2 +4,3 @@\n line 4\n+inserted\n line 5\n", label=LABEL)
    assert outcome.text == TEN.replace("line 4\n", "line 4\ninserted\n")


def test_deletion_hunks_including_the_tail() -> None:
    outcome = apply_patch(
        TEN, "@@ -2,2 +1,0 @@\n-line 2\n-line 3\n@@ -9,2 +7,0 @@\n-line 9\n-line 10\n", label=LABEL
    )
    assert outcome.text == "line 1\n" + "".join(f"line {n}\n" for n in range(4, 9))
    assert (outcome.added, outcome.removed) == (0, 4)
    # deleting every line leaves an empty file
    everything = "@@ -1,10 +0,0 @@\n" + "".join(f"-line {n}\n" for n in range(1, 11))
    assert apply_patch(TEN, everything, label=LABEL).text == ""


def test_creation_from_dev_null() -> None:
    patch = "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1,2 @@\n+first\n+second\n"
    assert apply_patch(None, patch, label=LABEL) == PatchOutcome("first\nsecond\n", 1, 2, 0, True)
    git = (
        "diff --git a/x b/x\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n"
        "+++ b/x\n@@ -0,0 +1 @@\n+only\n\\ No newline at end of file\n"
    )
    assert apply_patch(None, git, label=LABEL).text == "only"
    # headers omitted: the -0,0 hunk alone creates the file
    assert apply_patch(None, "@@ -0,0 +1 @@\n+x\n", label=LABEL).created


def test_creation_of_an_existing_file_is_a_mismatch() -> None:
    error = fail(
        "old\n",
        "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1 @@\n+new\n",
        ErrorCode.ERR_PATCH_MISMATCH,
    )
    assert "already exists" in error.message and "fs.write" in error.message
    error = fail("old\n", "@@ -0,0 +1 @@\n+new\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert "already exists" in error.message
    fail("", "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1 @@\n+new\n", ErrorCode.ERR_PATCH_MISMATCH)


def test_existing_empty_file_takes_a_plain_zero_hunk() -> None:
    outcome = apply_patch(
        "", "--- a/src/app.py\n+++ b/src/app.py\n@@ -0,0 +1,2 @@\n+a\n+b\n", label=LABEL
    )
    assert outcome == PatchOutcome("a\nb\n", 1, 2, 0, False)


def test_missing_file_needs_a_creation_patch() -> None:
    error = fail(None, "@@ -1 +1 @@\n-a\n+b\n", ErrorCode.ERR_NOT_FOUND)
    assert error.message == (
        f"{LABEL} does not exist; a patch that creates a file has --- /dev/null and @@ -0,0 +1,N @@"
    )


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [
        # old side has no final newline, new side adds one
        ("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n"),
        # new side removes the final newline
        ("a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb"),
        # a context last line without newline stays without
        ("a\nb", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n", "A\nb"),
        # last line changed, still no newline
        (
            "a\nb",
            "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n",
            "a\nB",
        ),
        # a hunk that does not reach the end keeps the missing final newline
        ("a\nb\nc", "@@ -1 +1 @@\n-a\n+A\n", "A\nb\nc"),
        # deleting the last line (which had no newline) leaves the previous line's newline
        ("a\nb\nc", "@@ -3 +2,0 @@\n-c\n\\ No newline at end of file\n", "a\nb\n"),
        # creation without a final newline
        (None, "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n", "x"),
    ],
)
def test_no_newline_marker_on_either_side(original: str | None, patch: str, expected: str) -> None:
    assert apply_patch(original, patch, label=LABEL).text == expected


@pytest.mark.parametrize(
    ("original", "patch", "words"),
    [
        ("a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n", "but it has one"),
        ("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", "has no newline at its end"),
        ("a\nb\nc\n", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+A\n", "not its last line"),
        (
            "a\nb\nc\n",
            "@@ -1 +1 @@\n-a\n+A\n\\ No newline at end of file\n",
            "reaches the end of the file",
        ),
        ("a\nb", "@@ -2,0 +3 @@\n+c\n", "include that line in the hunk"),
    ],
)
def test_newline_claims_the_file_contradicts(original: str, patch: str, words: str) -> None:
    assert words in fail(original, patch, ErrorCode.ERR_PATCH_MISMATCH).message


def test_header_counts_must_match_the_body() -> None:
    good = "@@ -1,2 +1,2 @@\n-line 1\n+LINE 1\n line 2\n"
    short = good + "@@ -5,3 +5,3 @@\n line 5\n-line 6\n+LINE 6\n"
    error = fail(TEN, short, ErrorCode.ERR_INVALID_PATCH)
    assert error.message.startswith(
        "hunk 2 header @@ -5,3 +5,3 @@ says 3 old and 3 new lines but the body has 2 old and 2 new"
    )
    # unidiff alone would stop after the counted lines and silently drop the rest
    long = "@@ -1,2 +1,2 @@\n-line 1\n+LINE 1\n line 2\n line 3\n"
    assert (
        "says 2 old and 2 new lines but the body has 3 old and 3 new"
        in fail(TEN, long, ErrorCode.ERR_INVALID_PATCH).message
    )
    only_new = "@@ -1,1 +1,3 @@\n-line 1\n+A\n+B\n"
    assert (
        "says 3 new lines but the body has 2;"
        in fail(TEN, only_new, ErrorCode.ERR_INVALID_PATCH).message
    )


def test_a_patch_without_hunks_says_what_to_send_instead() -> None:
    assert (
        "no hunk (no line like @@"
        in fail(TEN, "--- a/src/app.py\n+++ b/src/app.py\n", ErrorCode.ERR_INVALID_PATCH).message
    )
    # what git writes for a new empty file: no diff can carry it, fs.write can
    error = fail(None, "--- /dev/null\n+++ b/src/app.py\n", ErrorCode.ERR_INVALID_PATCH)
    assert "creates an empty file" in error.message and "use fs.write" in error.message


def test_a_line_that_is_no_hunk_line() -> None:
    error = fail(TEN, "@@ -1 +1 @@\n-line 1\n+A\n```\n", ErrorCode.ERR_INVALID_PATCH)
    assert error.message.startswith('patch line 4 ("```") follows hunk 1')
    error = fail(TEN, "@@ -1,2 +1,2 @@\n-line 1\n+A\nline 2\n", ErrorCode.ERR_INVALID_PATCH)
    assert "it stops at patch line 4" in error.message


def test_blank_lines_count_as_empty_context_or_trail_the_patch() -> None:
    original = "a\n\nb\n"
    assert (
        apply_patch(original, "@@ -1,3 +1,3 @@\n-a\n+A\n\n b\n\n\n", label=LABEL).text == "A\n\nb\n"
    )


def test_one_file_only() -> None:
    patch = (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n"
    )
    error = fail("x\n", patch, ErrorCode.ERR_INVALID_PATCH)
    assert error.message == "patch touches 2 files (a.py, b.py); send one fs.patch per file"
    twice = (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n--- a/a.py\n+++ b/a.py\n@@ -3 +3 @@\n-x\n+y\n"
    )
    assert "2 ---/+++ sections for a.py" in fail("x\n", twice, ErrorCode.ERR_INVALID_PATCH).message


@pytest.mark.parametrize(
    ("patch", "words"),
    [
        ("", "no hunk"),
        ("just prose\n", "no hunk"),
        ("diff --git a/x b/x\nindex 1..2 100644\nBinary files a/x and b/x differ\n", "binary"),
        (
            "diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n"
            "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
            "renames",
        ),
        (
            "diff --git a/x b/x\ndeleted file mode 100644\n"
            "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
            "use fs.delete",
        ),
        ("--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "use fs.delete"),
        ("+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "does not parse"),
        ("@@ -2 +2 @@\n-b\n+B\n@@ -1 +1 @@\n-a\n+A\n", "file order"),
        ("@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -2 +2 @@\n-b\n+B\n", "without overlap"),
        ("@@ -0,1 +0,1 @@\n-a\n+b\n", "numbered from 1"),
        ("--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "one hunk @@ -0,0 +1,N @@"),
    ],
)
def test_invalid_patches(patch: str, words: str) -> None:
    assert words in fail("a\nb\n", patch, ErrorCode.ERR_INVALID_PATCH).message


def test_mismatch_names_line_and_gives_the_corrected_header() -> None:
    original = "".join(f"row {n}\n" for n in range(1, 100))
    patch = "@@ -12,3 +12,4 @@\n row 57\n-row 58\n+ROW 58\n+extra\n row 59\n"
    error = fail(original, patch, ErrorCode.ERR_PATCH_MISMATCH)
    assert error.message == (
        f"hunk 1 (@@ -12,3 +12,4 @@) does not match {LABEL} at line 12: "
        'expected "row 57", found "row 12"; '
        "the hunk's lines match at line 57: use @@ -57,3 +57,4 @@; "
        "read the lines again with fs.readSlice and resend the patch"
    )
    assert error.context is not None
    assert "row 57" in error.context and "row 12" in error.context and "row 14" in error.context
    # the corrected header is what makes it apply
    fixed = apply_patch(
        original, patch.replace("@@ -12,3 +12,4 @@", "@@ -57,3 +57,4 @@"), label=LABEL
    )
    assert "ROW 58\nextra\nrow 59\n" in fixed.text


def test_mismatch_in_a_later_line_and_several_other_places() -> None:
    original = "x\n" + "a\nb\n" * 5
    error = fail(original, "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert 'at line 1: expected "a", found "x"' in error.message
    assert (
        "match at lines 2, 4, 6 and more places: "
        "use @@ -2,2 +2,2 @@ or @@ -4,2 +4,2 @@ or @@ -6,2 +6,2 @@"
    ) in error.message
    error = fail("a\nc\n", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert 'at line 2: expected "b", found "c"' in error.message and "match at" not in error.message


def test_whitespace_is_not_forgiven_but_pointed_out() -> None:
    error = fail(
        "def f():\n\treturn 1\n",
        "@@ -2 +2 @@\n-    return 1\n+    return 2\n",
        ErrorCode.ERR_PATCH_MISMATCH,
    )
    assert "differ only in whitespace" in error.message and '"\\treturn 1"' in error.message


def test_hunk_past_the_end_of_the_file() -> None:
    error = fail(TEN, "@@ -40,2 +40,2 @@\n-x\n+y\n z\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert "starts at line 40" in error.message and "has only 10 lines" in error.message
    error = fail(TEN, "@@ -10,2 +10,2 @@\n line 10\n-line 11\n+y\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert "runs past the end" in error.message and "at line 11" in error.message
    assert "has only 10 lines" in error.message
    assert (
        "has only 10 lines"
        in fail(TEN, "@@ -12,0 +12 @@\n+x\n", ErrorCode.ERR_PATCH_MISMATCH).message
    )


def test_all_or_nothing_reports_the_failing_hunk() -> None:
    patch = "@@ -1 +1 @@\n-line 1\n+ONE\n@@ -5 +5 @@\n-not line 5\n+FIVE\n"
    assert fail(TEN, patch, ErrorCode.ERR_PATCH_MISMATCH).message.startswith(
        "hunk 2 (@@ -5,1 +5,1 @@)"
    )


def test_applying_the_same_patch_twice_fails() -> None:
    patch = "@@ -3,3 +3,4 @@\n line 3\n-line 4\n+LINE 4\n+more\n line 5\n"
    once = apply_patch(TEN, patch, label=LABEL).text
    assert "hunk 1" in fail(once, patch, ErrorCode.ERR_PATCH_MISMATCH).message
    insert = "@@ -2,2 +2,3 @@\n line 2\n+new\n line 3\n"
    fail(apply_patch(TEN, insert, label=LABEL).text, insert, ErrorCode.ERR_PATCH_MISMATCH)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_cr_patch_text_is_accepted(newline: str) -> None:
    patch = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n-line 1\n+one\n line 2\n".replace(
        "\n", newline
    )
    assert apply_patch(TEN, patch, label=LABEL).text == TEN.replace("line 1\n", "one\n")


def test_header_names_are_not_checked_and_patch_may_lack_final_newline() -> None:
    patch = "--- a/elsewhere.txt\t2024-01-01\n+++ b/other.txt\n@@ -1 +1 @@\n-line 1\n+one"
    assert apply_patch(TEN, patch, label=LABEL).text.startswith("one\nline 2\n")


def test_lines_split_on_newline_only() -> None:
    original = "a\x0cb\nc\u2028d\ne\x85f\x1cg\n"
    patch = "@@ -1,3 +1,3 @@\n a\x0cb\n-c\u2028d\n+C\u2028D\n e\x85f\x1cg\n"
    assert apply_patch(original, patch, label=LABEL).text == "a\x0cb\nC\u2028D\ne\x85f\x1cg\n"
    error = fail(original, "@@ -2 +2 @@\n-c\u2029d\n+x\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert "\\u2029" in error.message and "\\u2028" in error.message


def test_large_file_applies_fast() -> None:
    lines = [f"    value_{n} = compute({n}, 'some padding text here')" for n in range(50_000)]
    original = "\n".join(lines) + "\n"
    assert len(original) > 2_000_000
    patch = (
        f"@@ -25001,3 +25001,3 @@\n {lines[25000]}\n-{lines[25001]}\n+changed\n {lines[25002]}\n"
    )
    started = time.perf_counter()
    outcome = apply_patch(original, patch, label=LABEL)
    elapsed = time.perf_counter() - started
    assert outcome.text == original.replace(lines[25001] + "\n", "changed\n")
    assert elapsed < 0.1, elapsed
    started = time.perf_counter()
    error = fail(
        original,
        patch.replace("-25001,3 +25001,3", "-40001,3 +40001,3"),
        ErrorCode.ERR_PATCH_MISMATCH,
    )
    assert "use @@ -25001,3 +25001,3 @@" in error.message
    assert time.perf_counter() - started < 0.2


def test_finding_other_places_stays_linear_on_repetitive_files() -> None:
    lines = ["}"] * 100_000 + ["unique"]
    started = time.perf_counter()
    assert find_matches(lines, ["}"] * 500 + ["unique"]) == [99_500]
    assert find_matches(lines, ["}"] * 50 + ["nowhere"]) == []
    assert time.perf_counter() - started < 0.5


# Real diffs: deterministic edits of installed packages' sources, diffed by diff(1) and git.

SITE = Path(unidiff.__file__).resolve().parent.parent
GIT = shutil.which("git")


def _real_sources(count: int = 36) -> list[Path]:
    candidates = []
    for path in sorted(SITE.glob("*/*.py")):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if 3_000 <= len(data) <= 80_000 and b"\r" not in data and data.endswith(b"\n"):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            candidates.append(path)
    step = max(1, len(candidates) // count)
    return candidates[::step][:count]


REAL = _real_sources()


def _edit(lines: list[str], seed: int) -> list[str]:
    n = len(lines)
    out = list(lines)
    out[-1] = out[-1] + "  # last line edited"
    out[n * 3 // 5 : n * 3 // 5] = [f"# inserted {seed} {k}" for k in range(3)]
    del out[n * 2 // 5 : n * 2 // 5 + 2]
    out[n // 10] = out[n // 10].replace(" ", "  ", 1) + f"  # changed {seed}"
    out[1:1] = ["# near the top"]
    return out


def _pair(path: Path, seed: int) -> tuple[str, str]:
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    old_newline, new_newline = [(True, True), (True, False), (False, True), (False, False)][
        seed % 4
    ]
    new = _edit(lines, seed)
    return "\n".join(lines) + ("\n" if old_newline else ""), "\n".join(new) + (
        "\n" if new_newline else ""
    )


def _run(args: list[str], cwd: Path) -> str:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }
    done = subprocess.run(args, cwd=cwd, capture_output=True, env=env, check=False)
    assert done.returncode == 1, done.stderr  # 1: the files differ
    return done.stdout.decode("utf-8")


def test_enough_real_files() -> None:
    assert len(REAL) >= 30


@pytest.mark.parametrize("seed", range(len(REAL)), ids=[f"{p.parent.name}/{p.name}" for p in REAL])
def test_real_diffs_apply_byte_for_byte(seed: int, tmp_path: Path) -> None:
    old, new = _pair(REAL[seed], seed)
    (tmp_path / "old.py").write_bytes(old.encode("utf-8"))
    (tmp_path / "new.py").write_bytes(new.encode("utf-8"))
    context = (0, 1, 3, 5)[seed % 4]
    patches = {"diff": _run(["diff", f"-U{context}", "old.py", "new.py"], tmp_path)}
    if GIT:
        patches["git"] = _run(
            [
                GIT,
                "diff",
                "--no-index",
                "--no-color",
                "--no-ext-diff",
                f"-U{3 - seed % 3}",
                "old.py",
                "new.py",
            ],
            tmp_path,
        )
    for tool, patch in patches.items():
        outcome = apply_patch(old, patch, label="pkg/module.py")
        assert outcome.text.encode("utf-8") == new.encode("utf-8"), tool
        assert not outcome.created and outcome.added >= 5 and outcome.removed >= 4
        # and it cannot apply twice
        with pytest.raises(OperatorError):
            apply_patch(outcome.text, patch, label="pkg/module.py")


# Carriage returns. The real-diff run (benchmarks/real_diffs.py) found fs.patch turning every
# "\r" of a patch into a line break: a file created from a diff of a CRLF file came out LF, a
# file with mixed line breaks could not be patched at all, and a "\r" inside a line split it.
# A "\r" before a patch line's "\n" is now the line's own, except in a CRLF file, where it is
# the file's line break (and the text Operator works on has "\n" there).


def _exec_patch(
    tmp_path: Path, name: str, old: bytes | None, patch: str
) -> tuple[dict[str, object], bytes | None]:
    """Run one fs.patch through the real `exec` on a fresh workspace holding `old`."""
    import base64
    import io
    import json
    from contextlib import redirect_stderr, redirect_stdout

    from operator_app.cli.main import main as cli_main

    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    if old is not None:
        (ws / name).write_bytes(old)
    payload = base64.b64encode(patch.encode("utf-8")).decode()
    message = tmp_path / "message.txt"
    message.write_text(
        f"OPERATOR_CMD\nversion: 1\nid: p{time.monotonic_ns()}\naction: fs.patch\npath: {name}\n"
        f"patch_b64: {payload}\nEND_OPERATOR_CMD\n"
    )
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert (
            cli_main(
                [
                    "exec",
                    "--workspace",
                    str(ws),
                    "--state-dir",
                    str(tmp_path / "st"),
                    "--approve",
                    "all",
                    "--json",
                    str(message),
                ]
            )
            == 0
        )
    (result,) = json.loads(out.getvalue())["data"]["results"]
    return result, (ws / name).read_bytes() if (ws / name).exists() else None


def _diff(tmp_path: Path, old: bytes | None, new: bytes, tool: str = "diff") -> str:
    """`diff -u` (or `git diff --no-index`) of two byte strings; old None diffs against
    /dev/null."""
    (tmp_path / "d").mkdir(exist_ok=True)
    (tmp_path / "d" / "new.txt").write_bytes(new)
    old_name = os.devnull
    if old is not None:
        (tmp_path / "d" / "old.txt").write_bytes(old)
        old_name = "old.txt"
    if tool == "git":
        assert GIT
        return _run(
            [GIT, "diff", "--no-index", "--no-color", "--no-ext-diff", old_name, "new.txt"],
            tmp_path / "d",
        )
    return _run(["diff", "-u", old_name, "new.txt"], tmp_path / "d")


CRLF_NEW = b"# demo\r\nfrom colorama import Fore\r\n\r\nprint(Fore.RED + 'red')\r\n"


@pytest.mark.parametrize("tool", ["diff", "git"])
def test_a_file_created_from_a_diff_of_a_crlf_file_keeps_its_crlf(
    tool: str, tmp_path: Path
) -> None:
    if tool == "git" and not GIT:
        pytest.skip("git is not installed")
    result, data = _exec_patch(tmp_path, "demo.py", None, _diff(tmp_path, None, CRLF_NEW, tool))
    assert result["ok"], result
    assert data == CRLF_NEW
    # the pure core keeps the carriage returns of a created file's lines as they are
    assert apply_patch(None, _diff(tmp_path, None, CRLF_NEW), label=LABEL).text == CRLF_NEW.decode()


@pytest.mark.parametrize("tool", ["diff", "git"])
def test_a_file_with_mixed_line_breaks_patches_exactly(tool: str, tmp_path: Path) -> None:
    if tool == "git" and not GIT:
        pytest.skip("git is not installed")
    old = b"[project]\r\nname = 'x'\nversion = '1'\r\n\r\n[tool]\nkey = 1\r\n"
    new = b"[project]\r\nname = 'x'\nversion = '2'\r\n\r\n[tool]\nkey = 1\r\nother = 2\n"
    result, data = _exec_patch(tmp_path, "pyproject.toml", old, _diff(tmp_path, old, new, tool))
    assert result["ok"], result
    assert data == new
    again, data = _exec_patch(tmp_path, "pyproject.toml", None, _diff(tmp_path, old, new, tool))
    assert again["error_code"] == "ERR_PATCH_MISMATCH" and data == new


def test_a_crlf_file_whose_last_line_ends_in_a_lone_carriage_return(tmp_path: Path) -> None:
    old = b"a = 1\r\nb = 2\r\nprint(a)\r\n"
    # No final line feed: the "\r" is the file's last character.
    new = b"a = 1\r\nb = 3\r\nprint(a, b)\r"
    result, data = _exec_patch(tmp_path, "m.py", old, _diff(tmp_path, old, new))
    assert result["ok"], result
    assert data == new


@pytest.mark.parametrize("crlf", [False, True])
def test_a_crlf_file_takes_a_patch_with_or_without_carriage_returns(
    crlf: bool, tmp_path: Path
) -> None:
    old = b"one\r\ntwo\r\nthree\r\n"
    patch = "--- a/t.txt\n+++ b/t.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    if crlf:  # as diff(1) prints it for CRLF files: the content lines carry their "\r"
        patch = (
            patch.replace(" one\n", " one\r\n")
            .replace("two\n", "two\r\n")
            .replace("TWO\n", "TWO\r\n")
            .replace("three\n", "three\r\n")
        )
    result, data = _exec_patch(tmp_path, "t.txt", old, patch)
    assert result["ok"], result
    assert data == b"one\r\nTWO\r\nthree\r\n"


def test_a_crlf_file_keeps_its_style_when_the_new_version_has_lf_lines(tmp_path: Path) -> None:
    """docs/design.md, decision 10: a file's newline style is kept, so a line the patch gives a bare
    LF gets the CRLF of the file, as in the two requests MANIFEST.in cases of the real-diff run."""
    old = b"include README.md\r\nrecursive-include tests *.py\r\n"
    new = b"include README.md LICENSE\nrecursive-include tests *.py\r\n"
    result, data = _exec_patch(tmp_path, "MANIFEST.in", old, _diff(tmp_path, old, new))
    assert result["ok"], result
    assert data == b"include README.md LICENSE\r\nrecursive-include tests *.py\r\n"


def test_a_carriage_return_inside_a_line_is_text() -> None:
    original = "s = 'a\rb'\nt = 1\n"
    outcome = apply_patch(original, "@@ -1,2 +1,2 @@\n s = 'a\rb'\n-t = 1\n+t = 2\n", label=LABEL)
    assert outcome.text == "s = 'a\rb'\nt = 2\n"
    assert (
        apply_patch(original, "@@ -1 +1 @@\n-s = 'a\rb'\n+s = 'a\rc'\n", label=LABEL).text
        == "s = 'a\rc'\nt = 1\n"
    )


def test_a_patch_of_crlf_lines_against_an_lf_file_says_so() -> None:
    patch = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-line 1\r\n+one\r\n line 2\r\n"
    error = fail(TEN, patch, ErrorCode.ERR_PATCH_MISMATCH)
    assert (
        '"line 1\\r"' in error.message
        and "carriage return" in error.message
        and "CRLF" in error.message
    )


def test_headers_with_carriage_returns_still_parse() -> None:
    """Only the content lines carry CRs (a diff of a CRLF file); the header lines' CRs, where an
    editor added them, are no part of any file name: /dev/null is still /dev/null."""
    patch = "--- /dev/null\r\n+++ b/x\r\n@@ -0,0 +1,2 @@\r\n+a\n+b\n"
    assert apply_patch(None, patch, label=LABEL) == PatchOutcome("a\nb\n", 1, 2, 0, True)


# The fast path: hunks applied to the text in place, without a list of its lines, must give what
# the line-by-line path gives, on every real patch of the committed corpus (and leave the rest,
# mismatches and hunks at the end of the file, to the line-by-line path, which explains them).

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "real-diffs"


def test_in_place_application_equals_the_line_by_line_one_on_real_patches() -> None:
    from operator_app.engine.textops.hunks import apply_hunks, apply_in_place, check_order
    from operator_app.engine.textops.patch import _parse
    from operator_app.engine.textops.textfile import TextDoc, join_lines, lines_and_final_newline

    manifest = __import__("json").loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    fast = slow = refused = 0
    for entry in manifest:
        old_path = CORPUS / "cases" / f"{entry['case']}.old"
        if not old_path.exists():
            continue
        new = (CORPUS / "cases" / f"{entry['case']}.new").read_bytes()
        patch = (CORPUS / "cases" / f"{entry['case']}.patch").read_text(encoding="utf-8")
        doc = TextDoc.decode(old_path.read_bytes(), label="x")
        new_doc = TextDoc.decode(new, label="x")
        for text in (doc.text, new_doc.text):  # the second: a patch applied again, which must fail
            hunks = _parse(patch, "x", doc.newline == "\r\n")[0]
            check_order(hunks)
            in_place = apply_in_place(text, hunks)
            try:
                lines, final = apply_hunks(*lines_and_final_newline(text), hunks, label="x")
            except OperatorError:
                assert in_place is None, entry
                refused += 1
                continue
            assert in_place is None or in_place == join_lines(lines, final), entry
            fast += in_place is not None
            slow += in_place is None
    assert fast >= 40 and slow >= 40 and refused >= 100, (fast, slow, refused)


def test_in_place_application_at_the_edges() -> None:
    from operator_app.engine.textops.hunks import Hunk, apply_in_place

    text = "a\nb\nc\nd\n"
    assert (
        apply_in_place(
            text, [Hunk(number=1, old_start=1, new_start=1, old=("a",), new=("A", "A2"))]
        )
        == "A\nA2\nb\nc\nd\n"
    )
    assert (
        apply_in_place(text, [Hunk(number=1, old_start=0, new_start=1, old=(), new=("top",))])
        == "top\na\nb\nc\nd\n"
    )  # insertion before line 1
    assert (
        apply_in_place(
            text,
            [
                Hunk(number=1, old_start=2, new_start=2, old=(), new=("x",)),
                Hunk(number=2, old_start=3, new_start=4, old=("c",), new=()),
            ],
        )
        == "a\nb\nx\nd\n"
    )
    assert (
        apply_in_place(text, [Hunk(number=1, old_start=4, new_start=4, old=("d",), new=("D",))])
        is None
    )  # the last line: final-newline rules
    assert (
        apply_in_place(text, [Hunk(number=1, old_start=4, new_start=5, old=(), new=("e",))]) is None
    )  # an append at the end
    assert (
        apply_in_place(text, [Hunk(number=1, old_start=2, new_start=2, old=("B",), new=("x",))])
        is None
    )  # a mismatch is explained elsewhere
    assert (
        apply_in_place("a\nb", [Hunk(number=1, old_start=1, new_start=1, old=("a",), new=("A",))])
        == "A\nb"
    )  # no final newline, untouched
    long = "".join(f"{n}\n" for n in range(200_000))
    assert apply_in_place(
        long, [Hunk(number=1, old_start=150_001, new_start=150_001, old=("150000",), new=("X",))]
    ) == long.replace("\n150000\n", "\nX\n")


# Applied already. The real-diff run found 26 of 2,152 release diffs that apply a second time
# under strict positions alone: an append at the end (no context after it) or a -U0 insertion
# still matches once applied. A model that resends a patch whose result it never saw (rule 15)
# would get those lines twice; such a patch is refused when its new lines are all there already.


def test_an_append_at_the_end_cannot_be_applied_twice(tmp_path: Path) -> None:
    old = b"def a():\n    pass\n\n\ndef b():\n    pass\n"
    new = old + b"\n\ndef c():\n    pass\n"
    patch = _diff(tmp_path, old, new)
    assert "\n def b():\n     pass\n+\n" in patch and patch.rstrip("\n").endswith(
        "+    pass"
    )  # context only before
    first, data = _exec_patch(tmp_path, "m.py", old, patch)
    assert first["ok"] and data == new
    again, data = _exec_patch(tmp_path, "m.py", None, patch)
    assert again["error_code"] == "ERR_PATCH_MISMATCH" and data == new
    assert "looks applied already" in again["summary"] and "hunk 1 at line 4" in again["summary"]


def test_a_zero_context_insertion_cannot_be_applied_twice() -> None:
    patch = "@@ -3,0 +4,2 @@\n+a\n+b\n"
    once = apply_patch(TEN, patch, label=LABEL).text
    assert once == TEN.replace("line 3\n", "line 3\na\nb\n")
    assert "looks applied already" in fail(once, patch, ErrorCode.ERR_PATCH_MISMATCH).message


def test_a_resent_change_says_it_looks_applied_already() -> None:
    patch = "@@ -3,3 +3,3 @@\n line 3\n-line 4\n+LINE 4\n line 5\n"
    error = fail(apply_patch(TEN, patch, label=LABEL).text, patch, ErrorCode.ERR_PATCH_MISMATCH)
    assert error.message.startswith("the patch looks applied already")
    assert 'expected "line 4", found "LINE 4"' in error.message


def test_a_deletion_without_context_is_not_mistaken_for_an_applied_patch() -> None:
    # a hunk that only deletes leaves nothing to look for: it applies where its lines are
    twice = "line 1\nx\nx\nline 2\n"
    patch = "@@ -2 +1,0 @@\n-x\n"
    assert apply_patch(twice, patch, label=LABEL).text == "line 1\nx\nline 2\n"


def test_adding_a_copy_of_the_line_that_follows_needs_context_that_says_so() -> None:
    """The price of the rule: a hunk adding a line identical to the lines around it reads as
    applied already. The message says what to send instead, and that works."""
    braces = "}\n}\n}\nend\n"
    error = fail(braces, "@@ -1,2 +1,3 @@\n }\n+}\n }\n", ErrorCode.ERR_PATCH_MISMATCH)
    assert "context takes in the copy already there" in error.message
    wider = "@@ -1,4 +1,5 @@\n }\n+}\n }\n }\n end\n"
    assert apply_patch(braces, wider, label=LABEL).text == "}\n}\n}\n}\nend\n"


# A byte order mark. diff(1) and git show it as the start of line 1; Operator's text of the file
# has it removed (and the write puts it back), so every release diff that touched line 1 of a
# file with a BOM failed: 62 of the 210 BOM diffs of the real-diff run.


@pytest.mark.parametrize("tool", ["diff", "git"])
@pytest.mark.parametrize(
    "new",
    [
        b"\xef\xbb\xbfimport os\r\nx = 10\r\ny = 2\r\n",  # line 1 as context
        b"\xef\xbb\xbfimport sys\r\nx = 1\r\ny = 2\r\n",  # line 1 changed
        b"\xef\xbb\xbf# top\r\nimport os\r\nx = 1\r\ny = 2\r\n",  # a line before line 1
    ],
    ids=["context", "changed", "inserted"],
)
def test_a_diff_of_a_file_with_a_bom_applies(tool: str, new: bytes, tmp_path: Path) -> None:
    if tool == "git" and not GIT:
        pytest.skip("git is not installed")
    old = b"\xef\xbb\xbfimport os\r\nx = 1\r\ny = 2\r\n"
    patch = _diff(tmp_path, old, new, tool)
    assert "\ufeff" in patch  # the tools do show it
    result, data = _exec_patch(tmp_path, "m.py", old, patch)
    assert result["ok"], result
    assert data == new


def test_a_bom_in_a_patch_for_a_file_without_one_is_shown_in_the_message() -> None:
    error = fail(
        "import os\n", "@@ -1 +1 @@\n-\ufeffimport os\n+import sys\n", ErrorCode.ERR_PATCH_MISMATCH
    )
    assert 'expected "\\ufeffimport os", found "import os"' in error.message


def test_line_index_finds_line_starts_in_any_order() -> None:
    import random

    from operator_app.engine.textops.hunks import LineIndex

    rng = random.Random(7)
    text = (
        "".join("x" * rng.randrange(0, 300) + "\n" for _ in range(5_000)) + "tail without newline"
    )
    starts = [0] + [n + 1 for n, ch in enumerate(text) if ch == "\n"]
    index = LineIndex(text)
    for line in rng.sample(range(len(starts)), 300) + [0, len(starts) - 1, len(starts) - 2]:
        assert index.offset(line) == starts[line], line
    assert index.offset(len(starts)) == -1  # past the last newline


@pytest.mark.timeout(60)
def test_finding_other_places_is_linear_for_a_long_hunk_on_a_repetitive_file() -> None:
    """A 20,000-line hunk of "a" lines against 4 million lines where "a" runs are one line too
    short: anchoring on every "a" and comparing the hunk there was 4M x 20,000 line compares."""
    run = 20_000
    lines = (["a"] * (run - 1) + ["b"]) * 200
    assert find_matches(lines, ["a"] * run) == []
    assert find_matches(lines, ["a"] * (run - 1) + ["b", "a"]) == [0, run, 2 * run, 3 * run]
    original = "\n".join(lines[: run * 50]) + "\n"
    error = fail(
        original,
        f"@@ -3,{run} +3,{run} @@\n" + " a\n" * (run - 2) + " b\n a\n",
        ErrorCode.ERR_PATCH_MISMATCH,
    )
    assert (
        f"the hunk's lines match at lines 2, {run + 2}, {2 * run + 2} and more places"
        in error.message
    )
