"""Independent write cases, through the real `exec` on temporary folders: fs.applyEdits semantics
and its document errors, regions (markers kept, indentation, comment styles, every region error
where it arises, no nesting), fs.delete (system trash, the session-trash fallback, folders, the
root), a file changed between plan and commit, undo (exact bytes, owner, refusals), and the
results of a message surviving an app killed while it runs."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.blocks import b64, block
from tests.support.exec_folder import Folder, cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def session_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")


def edits_doc(*edits: dict[str, Any]) -> str:
    return b64(json.dumps({"version": 1, "edits": list(edits)}))


# --- fs.applyEdits ------------------------------------------------------------------------------

EDIT_CASES = [
    # the automatic "\n" of insertAfter: an anchor that ends a line gets the text on a line of its
    # own
    (
        "insertAfter, anchor ends a line",
        b"Alpha\nBeta\n",
        [{"op": "insertAfter", "anchor": "Beta", "text": "Gamma"}],
        b"Alpha\nBeta\nGamma\n",
    ),
    (
        "insertAfter, anchor ends the file (no final newline)",
        b"Alpha\nBeta",
        [{"op": "insertAfter", "anchor": "Beta", "text": "Gamma"}],
        b"Alpha\nBeta\nGamma",
    ),
    (
        "insertAfter, text already starts with a newline",
        b"Alpha\nBeta\n",
        [{"op": "insertAfter", "anchor": "Alpha", "text": "\nX"}],
        b"Alpha\nX\nBeta\n",
    ),
    (
        "insertAfter, anchor inside a line: no newline added",
        b"Alpha\nBeta\n",
        [{"op": "insertAfter", "anchor": "Al", "text": "X"}],
        b"AlXpha\nBeta\n",
    ),
    (
        "insertAfter, second occurrence",
        b"x = 1\nx = 1\n",
        [{"op": "insertAfter", "anchor": "x = 1", "text": "# 2nd", "occurrence": 2}],
        b"x = 1\nx = 1\n# 2nd\n",
    ),
    (
        "insertBefore",
        b"Alpha\nBeta\n",
        [{"op": "insertBefore", "anchor": "Beta", "text": "Zero\n"}],
        b"Alpha\nZero\nBeta\n",
    ),
    (
        "insertBefore, second occurrence",
        b"a\nb\na\n",
        [{"op": "insertBefore", "anchor": "a", "text": "Z\n", "occurrence": 2}],
        b"a\nb\nZ\na\n",
    ),
    ("replaceFirst", b"a a a\n", [{"op": "replaceFirst", "find": "a", "text": "b"}], b"b a a\n"),
    ("replaceAll", b"a a a\n", [{"op": "replaceAll", "find": "a", "text": "b"}], b"b b b\n"),
    (
        "replaceAll across lines",
        b"one\ntwo\nthree\n",
        [{"op": "replaceAll", "find": "one\ntwo", "text": "1\n2"}],
        b"1\n2\nthree\n",
    ),
    (
        "replaceRange, text gets its line break",
        b"1\n2\n3\n4\n",
        [{"op": "replaceRange", "startLine": 2, "endLine": 3, "text": "X"}],
        b"1\nX\n4\n",
    ),
    (
        "replaceRange with empty text deletes the lines",
        b"1\n2\n3\n4\n",
        [{"op": "replaceRange", "startLine": 2, "endLine": 3, "text": ""}],
        b"1\n4\n",
    ),
    (
        "replaceRange of the last line of a file without final newline",
        b"1\n2",
        [{"op": "replaceRange", "startLine": 2, "endLine": 2, "text": "B"}],
        b"1\nB",
    ),
    (
        "edits apply in order, each to the text the previous one left",
        b"1\n2\n3\n",
        [
            {"op": "replaceRange", "startLine": 1, "endLine": 1, "text": "ONE"},
            {"op": "insertBefore", "anchor": "ONE", "text": "0\n"},
            {"op": "replaceFirst", "find": "0\nONE", "text": "Z1"},
        ],
        b"Z1\n2\n3\n",
    ),
    (
        "line numbers count the file before the command: bottom-up ranges both land",
        b"1\n2\n3\n4\n",
        [
            {"op": "replaceRange", "startLine": 4, "endLine": 4, "text": "four\nFOUR"},
            {"op": "replaceRange", "startLine": 1, "endLine": 2, "text": "one"},
        ],
        b"one\n3\nfour\nFOUR\n",
    ),
    (
        "a change above that keeps the line count leaves the numbers naming the same lines",
        b"1\n2\n3\n4\n",
        [
            {"op": "replaceRange", "startLine": 1, "endLine": 1, "text": "ONE"},
            {"op": "replaceAll", "find": "2", "text": "TWO"},
            {"op": "replaceRange", "startLine": 4, "endLine": 4, "text": "FOUR"},
        ],
        b"ONE\nTWO\n3\nFOUR\n",
    ),
    (
        "a later edit finds what an earlier one wrote",
        b"a\n",
        [
            {"op": "replaceFirst", "find": "a", "text": "b"},
            {"op": "insertAfter", "anchor": "b", "text": "c"},
        ],
        b"b\nc\n",
    ),
    (
        "CRLF file: texts with \\n come out CRLF, a CRLF find matches",
        b"a\r\nb\r\nc\r\n",
        [
            {"op": "insertAfter", "anchor": "a", "text": "x\ny"},
            {"op": "replaceFirst", "find": "b\r\nc", "text": "BC"},
        ],
        b"a\r\nx\r\ny\r\nBC\r\n",
    ),
    (
        "BOM kept, and not part of the text",
        b"\xef\xbb\xbfa\nb\n",
        [{"op": "insertBefore", "anchor": "a", "text": "first\n"}],
        b"\xef\xbb\xbffirst\na\nb\n",
    ),
    ("no final newline kept", b"a\nb", [{"op": "replaceAll", "find": "b", "text": "B\n"}], b"a\nB"),
]


@pytest.mark.parametrize(
    ("name", "before", "edits", "after"), EDIT_CASES, ids=[c[0] for c in EDIT_CASES]
)
def test_apply_edits_semantics(
    name: str, before: bytes, edits: list[dict[str, Any]], after: bytes, tmp_path: Path
) -> None:
    folder = Folder(tmp_path, {"f.txt": before})
    result = folder.one("fs.applyEdits", path="f.txt", edits_b64=edits_doc(*edits))
    assert result["ok"], result
    assert folder.read("f.txt") == after
    assert folder.undo()[0] == 0 and folder.read("f.txt") == before


@pytest.mark.parametrize(
    ("edits", "code", "named"),
    [
        (
            [
                {"op": "replaceFirst", "find": "1", "text": "one"},
                {"op": "replaceAll", "find": "2", "text": "two"},
                {"op": "insertAfter", "anchor": "nope", "text": "x"},
            ],
            "ERR_ANCHOR_NOT_FOUND",
            "edit #3 (edits[2], insertAfter)",
        ),
        (
            [
                {"op": "replaceFirst", "find": "1", "text": "one"},
                {"op": "replaceFirst", "find": "1", "text": "x"},
            ],
            "ERR_EDIT_FAILED",
            "edit #2 (edits[1], replaceFirst)",
        ),
        (
            [
                {"op": "replaceAll", "find": "3", "text": "x"},
                {"op": "insertBefore", "anchor": "2", "text": "y", "occurrence": 2},
            ],
            "ERR_INVALID_ANCHOR_OCCURRENCE",
            "edit #2 (edits[1], insertBefore)",
        ),
        (
            [
                {"op": "replaceRange", "startLine": 1, "endLine": 1, "text": "x"},
                {"op": "replaceRange", "startLine": 3, "endLine": 4, "text": ""},
            ],
            "ERR_EDIT_FAILED",
            "edit #2 (edits[1], replaceRange)",
        ),
        (
            [
                {"op": "insertAfter", "anchor": "1", "text": "one and a half"},
                {"op": "replaceRange", "startLine": 3, "endLine": 3, "text": "x"},
            ],
            "ERR_LINES_MOVED",
            "edit #2 (edits[1], replaceRange): lines 3-3 count the file as it was before this "
            "command, and edit #1 moved them or changed lines inside them",
        ),
    ],
)
def test_apply_edits_is_all_or_nothing_and_names_the_failing_edit(
    edits: list[dict[str, Any]], code: str, named: str, tmp_path: Path
) -> None:
    folder = Folder(tmp_path, {"f.txt": b"1\n2\n3\n"})
    before = os.stat(folder.ws / "f.txt")
    result = folder.one("fs.applyEdits", path="f.txt", edits_b64=edits_doc(*edits))
    assert (
        result["error_code"] == code
        and named in result["summary"]
        and "nothing was written" in result["summary"]
    )
    assert folder.tree() == {"f.txt": b"1\n2\n3\n"}
    assert os.stat(folder.ws / "f.txt").st_mtime_ns == before.st_mtime_ns
    assert folder.undo()[0] == 6  # nothing was journalled


def _nested(depth: int) -> str:
    return '{"version":1,"edits":[' + "[" * depth + "]" * depth + "]}"


BAD_DOCUMENTS = {
    "version 2": (
        '{"version":2,"edits":[{"op":"replaceFirst","find":"a","text":"b"}]}',
        "version must be the number 1, got 2",
    ),
    "version as a string": (
        '{"version":"1","edits":[{"op":"replaceFirst","find":"a","text":"b"}]}',
        'got "1"',
    ),
    "version 1.0": (
        '{"version":1.0,"edits":[{"op":"replaceFirst","find":"a","text":"b"}]}',
        "got 1.0",
    ),
    "version true": (
        '{"version":true,"edits":[{"op":"replaceFirst","find":"a","text":"b"}]}',
        "got true",
    ),
    "no version": ('{"edits":[{"op":"replaceFirst","find":"a","text":"b"}]}', "got null"),
    "unknown op": (
        '{"version":1,"edits":[{"op":"delete","find":"a"}]}',
        'has op "delete"; ops: insertAfter',
    ),
    "no op": ('{"version":1,"edits":[{"find":"a","text":"b"}]}', "has op null"),
    "missing text": (
        '{"version":1,"edits":[{"op":"replaceFirst","find":"a"}]}',
        "(replaceFirst) is missing text",
    ),
    "missing lines": (
        '{"version":1,"edits":[{"op":"replaceRange","text":"x"}]}',
        "is missing startLine, endLine",
    ),
    "text not a string": (
        '{"version":1,"edits":[{"op":"replaceFirst","find":"a","text":3}]}',
        "text must be a string, not a number",
    ),
    "anchor null": (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":null,"text":"x"}]}',
        "anchor must be a string, not null",
    ),
    "empty find": (
        '{"version":1,"edits":[{"op":"replaceAll","find":"","text":"x"}]}',
        "find must not be empty",
    ),
    "occurrence as a string": (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":"a","text":"x","occurrence":"2"}]}',
        'got "2"',
    ),
    "occurrence 0": (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":"a","text":"x","occurrence":0}]}',
        "got 0",
    ),
    "occurrence 1.5": (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":"a","text":"x","occurrence":1.5}]}',
        "got 1.5",
    ),
    "startLine true": (
        '{"version":1,"edits":[{"op":"replaceRange","startLine":true,"endLine":1,"text":"x"}]}',
        "got true",
    ),
    "startLine after endLine": (
        '{"version":1,"edits":[{"op":"replaceRange","startLine":2,"endLine":1,"text":"x"}]}',
        "is after endLine",
    ),
    "field another op takes": (
        '{"version":1,"edits":[{"op":"replaceFirst","find":"a","text":"b","occurrence":2}]}',
        "does not take 'occurrence'",
    ),
    "an array": ("[1,2]", "must be a JSON object, not an array"),
    "a string": ('"edits"', "not a string"),
    "null": ("null", "not null"),
    "edits an object": (
        '{"version":1,"edits":{"op":"replaceFirst"}}',
        "non-empty array of edit objects; got an object",
    ),
    "edits empty": ('{"version":1,"edits":[]}', "got an empty array"),
    "no edits": ('{"version":1}', "it is missing"),
    "edit not an object": (
        '{"version":1,"edits":["replaceFirst a b"]}',
        "edit #1 (edits[0]) must be an object, not a string",
    ),
    "unknown top-level key": (
        '{"version":1,"edits":[{"op":"replaceFirst","find":"a","text":"b"}],"path":"x"}',
        "unknown top-level key 'path'",
    ),
    "repeated key": (
        '{"version":1,"version":1,"edits":[{"op":"replaceFirst","find":"a","text":"b"}]}',
        '"version" appears twice',
    ),
    "NaN": (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":"a","text":"x","occurrence":NaN}]}',
        "NaN is not a JSON value",
    ),
    "a 5000-digit number": (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":"a","text":"x","occurrence":'
        + "9" * 5000
        + "}]}",
        "a number Operator cannot read",
    ),
    "not JSON": ("{version: 1}", "is not valid JSON"),
    "1000-deep arrays": (_nested(1000), ""),
    "1000-deep objects": ('{"version":1,"edits":[' + '{"a":' * 1000 + "1" + "}" * 1000 + "]}", ""),
}


@pytest.mark.parametrize("name", list(BAD_DOCUMENTS))
def test_bad_edit_documents_are_invalid_edits_json(name: str, tmp_path: Path) -> None:
    document, words = BAD_DOCUMENTS[name]
    folder = Folder(tmp_path, {"f.txt": b"a\n"})
    result = folder.one("fs.applyEdits", path="f.txt", edits_b64=b64(document))
    assert result["error_code"] == "ERR_INVALID_EDITS_JSON", result
    assert words in result["summary"]
    assert folder.tree() == {"f.txt": b"a\n"}


# --- regions ------------------------------------------------------------------------------------

PY = (
    b"import os\n\nclass A:\n    def f(self):\n        # OPERATOR_BEGIN body\n        return 1\n"
    b"        # OPERATOR_END body\n"
    b"\n    def g(self):\n        return 2\n"
)
HTML = (
    b"<html>\n  <body>\n    <!-- OPERATOR_BEGIN nav -->\n    <nav/>\n"
    b"    <!-- OPERATOR_END nav -->\n    <main/>\n  </body>\n</html>\n"
)
CSS = b"a {\n  color: red;\n}\n/* OPERATOR_BEGIN theme */\nb { x: 1; }\n/* OPERATOR_END theme */\n"
GO = b"func f() {\n\treturn\n}\n"

REGION_WRITES = [
    (
        "insert after, markers take the anchor's indentation",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "extra", "anchor": "return 2", "content_b64": b64("x = 1\n")},
        PY + b"        # OPERATOR_BEGIN extra\nx = 1\n        # OPERATOR_END extra\n",
    ),
    (
        "insert before a tab-indented line",
        "m.go",
        GO,
        "fs.insertRegion",
        {
            "marker_id": "r",
            "anchor": "return",
            "position": "before",
            "content_b64": b64("\tx := 1\n"),
        },
        b"func f() {\n\t// OPERATOR_BEGIN r\n\tx := 1\n\t// OPERATOR_END r\n\treturn\n}\n",
    ),
    (
        "insert right after another region's END line",
        "m.py",
        PY,
        "fs.insertRegion",
        {
            "marker_id": "next",
            "anchor": "# OPERATOR_END body",
            "content_b64": b64("        pass\n"),
        },
        PY.replace(
            b"# OPERATOR_END body\n",
            b"# OPERATOR_END body\n        # OPERATOR_BEGIN next\n        pass\n"
            b"        # OPERATOR_END next\n",
        ),
    ),
    (
        "replace keeps both marker lines as they were",
        "m.py",
        PY,
        "fs.replaceRegion",
        {"marker_id": "body", "content_b64": b64("        return 42\n        # done\n")},
        PY.replace(b"        return 1\n", b"        return 42\n        # done\n"),
    ),
    (
        "delete empties the region, markers kept",
        "m.py",
        PY,
        "fs.deleteRegion",
        {"marker_id": "body"},
        PY.replace(b"        return 1\n", b""),
    ),
    (
        "html block comments",
        "i.html",
        HTML,
        "fs.replaceRegion",
        {"marker_id": "nav", "content_b64": b64("    <nav>new</nav>\n")},
        HTML.replace(b"    <nav/>\n", b"    <nav>new</nav>\n"),
    ),
    (
        "css block comments, insert",
        "s.css",
        CSS,
        "fs.insertRegion",
        {"marker_id": "t2", "anchor": "color: red;", "content_b64": b64("  margin: 0;\n")},
        CSS.replace(
            b"  color: red;\n",
            b"  color: red;\n  /* OPERATOR_BEGIN t2 */\n  margin: 0;\n  /* OPERATOR_END t2 */\n",
        ),
    ),
    (
        "explicit line prefix for an unknown extension",
        "data.zzz",
        b"a\nb\n",
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "a", "comment_line_prefix": ";;", "content_b64": b64("z\n")},
        b"a\n;; OPERATOR_BEGIN x\nz\n;; OPERATOR_END x\nb\n",
    ),
    (
        "explicit block comment pair",
        "data.zzz",
        b"a\nb\n",
        "fs.insertRegion",
        {
            "marker_id": "x",
            "anchor": "b",
            "position": "before",
            "comment_block_start": "(*",
            "comment_block_end": "*)",
            "content_b64": b64("z\n"),
        },
        b"a\n(* OPERATOR_BEGIN x *)\nz\n(* OPERATOR_END x *)\nb\n",
    ),
    (
        "language overrides the extension",
        "data.zzz",
        b"a\nb\n",
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "a", "language": "html", "content_b64": b64("z\n")},
        b"a\n<!-- OPERATOR_BEGIN x -->\nz\n<!-- OPERATOR_END x -->\nb\n",
    ),
    (
        "CRLF file with a BOM",
        "m.py",
        b"\xef\xbb\xbf" + PY.replace(b"\n", b"\r\n"),
        "fs.replaceRegion",
        {"marker_id": "body", "content_b64": b64("        a\n        b\n")},
        b"\xef\xbb\xbf"
        + PY.replace(b"        return 1\n", b"        a\n        b\n").replace(b"\n", b"\r\n"),
    ),
    (
        "no final newline, insert after the last line",
        "m.py",
        b"x = 1\ny = 2",
        "fs.insertRegion",
        {"marker_id": "r", "anchor": "y = 2", "content_b64": b64("z\n")},
        b"x = 1\ny = 2\n# OPERATOR_BEGIN r\nz\n# OPERATOR_END r",
    ),
]


@pytest.mark.parametrize(
    ("name", "rel", "before", "action", "fields", "after"),
    REGION_WRITES,
    ids=[c[0] for c in REGION_WRITES],
)
def test_region_writes(
    name: str,
    rel: str,
    before: bytes,
    action: str,
    fields: dict[str, str],
    after: bytes,
    tmp_path: Path,
) -> None:
    folder = Folder(tmp_path, {rel: before})
    (folder.ws / rel).chmod(0o751)
    result = folder.one(action, path=rel, **fields)
    assert result["ok"], result
    assert folder.read(rel) == after
    assert (folder.ws / rel).stat().st_mode & 0o777 == 0o751
    assert folder.undo()[0] == 0 and folder.read(rel) == before


TWO_A = b"# OPERATOR_BEGIN a\nx\n# OPERATOR_END a\n# OPERATOR_BEGIN a\ny\n# OPERATOR_END a\n"
REGION_ERRORS = [
    (
        "ERR_REGION_MARKER_NOT_FOUND",
        "m.py",
        PY,
        "fs.replaceRegion",
        {"marker_id": "bdy", "content_b64": b64("x\n")},
        "did you mean body?",
    ),
    (
        "ERR_REGION_MARKER_NOT_FOUND",
        "m.py",
        b"x = 1\n",
        "fs.deleteRegion",
        {"marker_id": "a"},
        "this file has no regions",
    ),
    (
        "ERR_REGION_MARKER_NOT_UNIQUE",
        "m.py",
        TWO_A,
        "fs.replaceRegion",
        {"marker_id": "a", "content_b64": b64("z\n")},
        "line 4",
    ),
    (
        "ERR_REGION_MARKER_ORDER",
        "m.py",
        b"# OPERATOR_END a\nx\n# OPERATOR_BEGIN a\n",
        "fs.deleteRegion",
        {"marker_id": "a"},
        "swap",
    ),
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        b"# OPERATOR_BEGIN a\nx\n",
        "fs.deleteRegion",
        {"marker_id": "a"},
        "no OPERATOR_END",
    ),
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        b"# OPERATOR_END a\nx\n",
        "fs.replaceRegion",
        {"marker_id": "a", "content_b64": b64("z\n")},
        "no OPERATOR_BEGIN",
    ),
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        b"# OPERATOR_BEGIN a\n# OPERATOR_BEGIN b\nx\n# OPERATOR_END b\n# OPERATOR_END a\n",
        "fs.deleteRegion",
        {"marker_id": "a"},
        "must not nest",
    ),
    # a new region inside an existing one would nest it, and the outer region could no longer be
    # used
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "inner", "anchor": "return 1", "content_b64": b64("z\n")},
        'inside region "body" (lines 5-7)',
    ),
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        PY,
        "fs.insertRegion",
        {
            "marker_id": "inner",
            "anchor": "# OPERATOR_END body",
            "position": "before",
            "content_b64": b64("z\n"),
        },
        "inside region",
    ),
    # content holding marker lines: the region's own (sent along by mistake) or another's
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        PY,
        "fs.replaceRegion",
        {
            "marker_id": "body",
            "content_b64": b64(
                "        # OPERATOR_BEGIN body\n        return 2\n        # OPERATOR_END body\n"
            ),
        },
        'a marker line of region "body" itself',
    ),
    (
        "ERR_REGION_MARKER_MISMATCH",
        "m.py",
        PY,
        "fs.insertRegion",
        {
            "marker_id": "new",
            "anchor": "return 2",
            "content_b64": b64("# OPERATOR_BEGIN other\nx\n# OPERATOR_END other\n"),
        },
        'a marker of region "other"',
    ),
    (
        "ERR_REGION_MARKER_ALREADY_EXISTS",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "body", "anchor": "return 2", "content_b64": b64("z\n")},
        "line 5",
    ),
    (
        "ERR_MISSING_ANCHOR",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "x", "content_b64": b64("z\n")},
        "anchor",
    ),
    (
        "ERR_ANCHOR_NOT_FOUND",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "def h(self)", "content_b64": b64("z\n")},
        "closest line",
    ),
    (
        "ERR_INVALID_ANCHOR_OCCURRENCE",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "return", "occurrence": "3", "content_b64": b64("z\n")},
        "occurs 2 times",
    ),
    (
        "ERR_INVALID_ANCHOR_OCCURRENCE",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "return", "occurrence": "0", "content_b64": b64("z\n")},
        ">= 1",
    ),
    (
        "ERR_INVALID_INSERT_POSITION",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "return", "position": "middle", "content_b64": b64("z\n")},
        "before or after",
    ),
    (
        "ERR_MISSING_MARKER_ID",
        "m.py",
        PY,
        "fs.replaceRegion",
        {"content_b64": b64("z\n")},
        "marker_id",
    ),
    (
        "ERR_MISSING_CONTENT_B64",
        "m.py",
        PY,
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "return 2"},
        "content_b64",
    ),
    (
        "ERR_MISSING_CONTENT_B64",
        "m.py",
        PY,
        "fs.replaceRegion",
        {"marker_id": "body"},
        "content_b64",
    ),
    (
        "ERR_COMMENT_STYLE_REQUIRED",
        "data.zzz",
        b"a\n",
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "a", "content_b64": b64("z\n")},
        "language",
    ),
    (
        "ERR_INVALID_COMMENT_STYLE",
        "data.zzz",
        b"a\n",
        "fs.insertRegion",
        {"marker_id": "x", "anchor": "a", "comment_block_start": "/*", "content_b64": b64("z\n")},
        "without its partner",
    ),
    (
        "ERR_INVALID_COMMENT_STYLE",
        "data.zzz",
        b"a\n",
        "fs.deleteRegion",
        {
            "marker_id": "x",
            "comment_line_prefix": ";",
            "comment_block_start": "/*",
            "comment_block_end": "*/",
        },
        "together",
    ),
    (
        "ERR_UNKNOWN_LANGUAGE",
        "data.zzz",
        b"a\n",
        "fs.deleteRegion",
        {"marker_id": "x", "language": "klingon"},
        "klingon",
    ),
]


@pytest.mark.parametrize(
    ("code", "rel", "before", "action", "fields", "words"),
    REGION_ERRORS,
    ids=[f"{c[0]}-{n}" for n, c in enumerate(REGION_ERRORS)],
)
def test_region_errors_where_they_arise(
    code: str,
    rel: str,
    before: bytes,
    action: str,
    fields: dict[str, str],
    words: str,
    tmp_path: Path,
) -> None:
    folder = Folder(tmp_path, {rel: before})
    result = folder.one(action, path=rel, **fields)
    assert result["error_code"] == code, result
    assert words in result["summary"], result["summary"]
    assert folder.tree() == {rel: before}


# --- fs.delete ----------------------------------------------------------------------------------


def test_delete_falls_back_to_the_session_trash_when_the_system_trash_is_unusable(
    tmp_path: Path,
) -> None:
    """No stand-in for send2trash: its trash folder is put under a regular file, so it really fails.
    send2trash reads XDG_DATA_HOME when imported, hence a process of its own."""
    folder = Folder(tmp_path, {"old.txt": b"bye\n", "dir/a.txt": b"a\n", "dir/b/c.txt": b"c\n"})
    (folder.ws / "old.txt").chmod(0o640)
    (tmp_path / "blocker").write_text("a file, not a folder")
    env = {k: v for k, v in os.environ.items() if k != "OPERATOR_TRASH"}
    env.update(XDG_DATA_HOME=str(tmp_path / "blocker" / "xdg"), HOME=str(tmp_path / "blocker"))
    (tmp_path / "m.txt").write_text(
        block("d1", "fs.delete", path="old.txt") + block("d2", "fs.delete", path="dir")
    )
    app = [sys.executable, "-m", "operator_app"]
    state = ["--workspace", str(folder.ws), "--state-dir", str(folder.state)]
    done = subprocess.run(
        [*app, "exec", *state, "--approve", "all", str(tmp_path / "m.txt")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.stdout.count("ok: true") == 2, done.stdout + done.stderr
    assert done.stdout.count("Operator's own trash in its state folder") == 2
    assert "Moved folder dir/ (2 files) to the trash" in done.stdout
    assert folder.tree() == {}
    assert (folder.state / "trash" / "1" / "old.txt").read_bytes() == b"bye\n"
    undo = subprocess.run(
        [*app, "undo", *state, "--steps", "2"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert undo.returncode == 0, undo.stderr
    assert folder.tree() == {"old.txt": b"bye\n", "dir/a.txt": b"a\n", "dir/b/c.txt": b"c\n"}
    assert (folder.ws / "old.txt").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("path", [".", "./", "sub/..", "sub/../."])
def test_delete_of_the_workspace_root_is_refused(path: str, tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.txt": b"a\n", "sub/b.txt": b"b\n"})
    result = folder.one("fs.delete", path=path)
    assert result["error_code"] == "ERR_DELETE_ROOT"
    assert folder.tree() == {"a.txt": b"a\n", "sub/b.txt": b"b\n"}


def test_delete_preview_counts_the_files_of_a_folder(tmp_path: Path) -> None:
    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.executor import Engine
    from operator_app.engine.state.session import Session

    files = {f"build/{n}.o": b"x" for n in range(5)} | {"build/sub/deep/x.o": b"y"}
    folder = Folder(tmp_path, files)
    seen: list[Any] = []

    def decide(plan: Any, outlook: object = None) -> bool:
        seen.append(plan)
        return False

    run = Engine(Workspace(folder.ws), Session(folder.state), decide=decide).run_text(
        block("d", "fs.delete", path="build")
    )
    assert run.results[0].error_code == "ERR_REJECTED"
    assert (
        "Folder build/ goes to the trash with 6 files" in seen[0].diff
        and "build/sub/deep/x.o" in seen[0].diff
    )
    assert seen[0].file_count == 6
    assert folder.tree() == files  # a rejected delete leaves everything


@pytest.mark.parametrize("when", ["before the undo", "during the undo"])
def test_undo_of_a_delete_is_refused_when_the_path_is_taken_again(
    when: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also when the new file is saved after undo looked and right before the entry moves back:
    the move itself refuses to replace it, and the entry stays in the trash."""
    from operator_app.engine.safety import trash_restore

    folder = Folder(tmp_path, {"y.txt": b"y\n"})
    assert folder.one("fs.delete", path="y.txt")["ok"]
    if when == "before the undo":
        (folder.ws / "y.txt").write_bytes(b"a new file\n")
    else:
        real_move = trash_restore.move_entry

        def saved_first(*args: Any) -> None:
            (folder.ws / "y.txt").write_bytes(b"a new file\n")
            real_move(*args)

        monkeypatch.setattr(trash_restore, "move_entry", saved_first)
    code, _, err = folder.undo()
    assert code == 6 and (
        "something exists at that path again" in err
        if when == "before the undo"
        else "something was put at y.txt's place meanwhile; y.txt stays in the trash" in err
    ), err
    assert folder.tree() == {"y.txt": b"a new file\n"}
    assert (folder.state / "trash" / "1" / "y.txt").read_bytes() == b"y\n"


# --- a file changed between plan and commit -----------------------------------------------------

CONFLICT_COMMANDS = {
    "fs.write": {"content": "new"},
    "fs.applyEdits": {"edits_b64": edits_doc({"op": "replaceFirst", "find": "old", "text": "new"})},
    "fs.patch": {"patch_b64": b64("@@ -1 +1 @@\n-old\n+new\n")},
    "fs.replaceRegion": {"marker_id": "r", "content_b64": b64("x\n")},
    "fs.insertRegion": {"marker_id": "s", "anchor": "old", "content_b64": b64("x\n")},
    "fs.deleteRegion": {"marker_id": "r"},
    "fs.delete": {},
}
START = b"old\n# OPERATOR_BEGIN r\nin\n# OPERATOR_END r\n"


def _meddle(path: Path, how: str) -> None:
    if how == "modified":
        path.write_bytes(START + b"someone else\n")
    elif how == "removed":
        path.unlink()
    else:  # replaced by a symlink to a file with the same bytes
        path.with_name("other.py").write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to("other.py")


@pytest.mark.parametrize("how", ["modified", "removed", "symlinked"])
@pytest.mark.parametrize("action", list(CONFLICT_COMMANDS))
def test_a_file_changed_between_plan_and_commit_is_not_written(
    action: str, how: str, tmp_path: Path
) -> None:
    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.executor import Engine
    from operator_app.engine.state.session import Session

    folder = Folder(tmp_path, {"a.py": START})

    def decide(plan: Any, outlook: object = None) -> bool:
        _meddle(folder.ws / "a.py", how)  # after the preview, before the yes takes effect
        return True

    engine = Engine(Workspace(folder.ws), Session(folder.state), decide=decide)
    (result,) = engine.run_text(
        block("c", action, path="a.py", **CONFLICT_COMMANDS[action])
    ).results
    assert not result.ok
    assert result.error_code in (
        {"ERR_SYMLINK_TARGET", "ERR_CONFLICT"} if how == "symlinked" else {"ERR_CONFLICT"}
    )
    if how == "modified":
        assert folder.tree() == {"a.py": START + b"someone else\n"}
    elif how == "removed":
        assert folder.tree() == {}
    else:
        assert os.readlink(folder.ws / "a.py") == "other.py" and folder.read("other.py") == START
    assert folder.undo()[0] == 6  # nothing journalled


def test_a_file_created_between_plan_and_commit_is_not_overwritten(tmp_path: Path) -> None:
    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.executor import Engine
    from operator_app.engine.state.session import Session

    folder = Folder(tmp_path)

    def decide(plan: Any, outlook: object = None) -> bool:
        (folder.ws / "n.txt").write_bytes(b"theirs\n")
        return True

    engine = Engine(Workspace(folder.ws), Session(folder.state), decide=decide)
    for action, fields in (
        ("fs.write", {"content": "mine"}),
        ("fs.patch", {"patch_b64": b64("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+mine\n")}),
    ):
        (folder.ws / "n.txt").unlink(missing_ok=True)
        (result,) = engine.run_text(block(f"c-{action}", action, path="n.txt", **fields)).results
        assert (
            result.error_code == "ERR_CONFLICT"
            and "was created by something else" in result.summary
        )
        assert folder.tree() == {"n.txt": b"theirs\n"}


# --- undo ---------------------------------------------------------------------------------------


def test_undo_restores_exact_bytes_newest_first_and_refuses_a_file_changed_since(
    tmp_path: Path,
) -> None:
    original = b"\xef\xbb\xbfone\r\ntwo\r\n"
    folder = Folder(tmp_path, {"a.txt": original})
    results = folder.exec(
        block("w1", "fs.write", path="a.txt", content_b64=b64("1\n2\n"))
        + block(
            "w2",
            "fs.applyEdits",
            path="a.txt",
            edits_b64=edits_doc({"op": "insertAfter", "anchor": "2", "text": "3"}),
        )
        + block("w3", "fs.write", path="deep/er/n.txt", content="x")
    )
    assert all(r["ok"] for r in results)
    assert folder.read("a.txt") == b"\xef\xbb\xbf1\r\n2\r\n3\r\n"
    (folder.ws / "deep/er/n.txt").write_bytes(b"the person's edit")
    code, _, err = folder.undo("--steps", "3")
    assert code == 6 and "w3" in err and "changed since Operator wrote it" in err
    assert folder.tree() == {
        "a.txt": b"\xef\xbb\xbf1\r\n2\r\n3\r\n",
        "deep/er/n.txt": b"the person's edit",
    }
    (folder.ws / "deep/er/n.txt").write_bytes(b"x")  # back to what Operator wrote: undo may go on
    code, out, _ = folder.undo("--steps", "3")
    assert code == 0 and out.count("\n") == 3
    assert folder.tree() == {"a.txt": original}
    assert not (folder.ws / "deep").exists()  # the folders the write created went with it
    assert folder.undo()[0] == 6


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_writes_and_undo_keep_the_owner_and_group(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    os.chown(folder.ws / "a.txt", 1234, 2345)
    (folder.ws / "a.txt").chmod(0o2664)  # set-group-ID survives the chown that keeps the owner
    for action, fields in (
        ("fs.write", {"content": "b"}),
        ("fs.applyEdits", {"edits_b64": edits_doc({"op": "replaceAll", "find": "b", "text": "c"})}),
    ):
        assert folder.one(action, path="a.txt", **fields)["ok"]
        info = (folder.ws / "a.txt").stat()
        assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (1234, 2345, 0o2664)
    assert folder.undo("--steps", "2")[0] == 0
    info = (folder.ws / "a.txt").stat()
    assert folder.read("a.txt") == b"a\n" and (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (
        1234,
        2345,
        0o2664,
    )


# --- results after the app died -----------------------------------------------------------------


def test_results_last_after_the_output_could_not_be_written(tmp_path: Path) -> None:
    """The terminal is gone (stdout fails): the results are on disk all the same."""
    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    (tmp_path / "m.txt").write_text(
        block("w", "fs.write", path="a.txt", content="b") + block("r", "fs.read", path="a.txt")
    )
    with open("/dev/full", "w") as full:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "operator_app",
                "exec",
                "--workspace",
                str(folder.ws),
                "--state-dir",
                str(folder.state),
                "--approve",
                "all",
                str(tmp_path / "m.txt"),
            ],
            stdout=full,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
    assert folder.read("a.txt") == b"b\n"
    code, out, _ = cli(
        "results", "--workspace", str(folder.ws), "--state-dir", str(folder.state), "--last"
    )
    assert code == 0
    assert (
        "id: w\nok: true\nsummary: Wrote a.txt: +1 -1 lines (2 bytes)\nEND_OPERATOR_RESULT" in out
    )
    assert "id: r\nok: true" in out and f"details_b64: {b64('b' + chr(10))}" in out


@pytest.mark.slow
def test_an_app_killed_mid_message_loses_no_change(tmp_path: Path) -> None:
    """SIGKILL at random points of a message of 120 writes: every file is wholly old or wholly
    new, every change Operator made is in the undo journal (and undo takes all of them back),
    and `results --last` shows no write that did not happen."""
    count = 120
    rng = random.Random(20261123)
    app = [sys.executable, "-m", "operator_app"]
    message = "".join(
        block(f"w{i}", "fs.write", path=f"f{i:03d}.txt", content_b64=b64(f"new {i}\n" * 40))
        for i in range(count)
    )
    for attempt in range(4):
        run_dir = tmp_path / f"run{attempt}"
        run_dir.mkdir()
        folder = Folder(
            run_dir, {f"f{i:03d}.txt": f"old {i}\n".encode() * 40 for i in range(count)}
        )
        (run_dir / "m.txt").write_text(message)
        child = subprocess.Popen(
            [
                *app,
                "exec",
                "--workspace",
                str(folder.ws),
                "--state-dir",
                str(folder.state),
                "--approve",
                "all",
                str(run_dir / "m.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        # Past the start-up, which takes a fraction of a second, and well before the 120 writes end.
        deadline = time.monotonic() + 20
        while (
            not (folder.state / "journal" / "entries.jsonl").exists()
            and time.monotonic() < deadline
        ):
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait()
        files = {i: folder.read(f"f{i:03d}.txt") for i in range(count)}
        changed = {i for i, data in files.items() if data == f"new {i}\n".encode() * 40}
        assert all(
            data in (f"old {i}\n".encode() * 40, f"new {i}\n".encode() * 40)
            for i, data in files.items()
        )
        code, listing, _ = folder.undo("--list")
        journalled = {int(line.split()[2][1:4]) for line in listing.splitlines() if line.strip()}
        assert changed <= journalled, (
            f"attempt {attempt}: changes missing from the journal: {sorted(changed - journalled)}"
        )
        code, out, _ = cli(
            "results", "--workspace", str(folder.ws), "--state-dir", str(folder.state), "--last"
        )
        reported = {
            int(part.split("\n", 1)[0][1:])
            for part in out.split("id: ")[1:]
            if "\nok: true" in part
        }
        assert reported <= changed, f"attempt {attempt}: results claim writes that did not happen"
        code, _, err = folder.undo("--steps", str(count))
        assert code in (0, 6), err
        assert folder.tree() == {f"f{i:03d}.txt": f"old {i}\n".encode() * 40 for i in range(count)}


def test_journal_numbers_stay_unique_across_undos_and_a_long_session(tmp_path: Path) -> None:
    """Each commit reads only the end of the journal for its number; after many undos (whose
    records carry old numbers) the next change must still get a new one, or its pre-image would
    overwrite another's and undo would restore the wrong bytes."""
    folder = Folder(tmp_path, {"a.txt": b"v0\n"})
    steps = 60
    message = "".join(
        block(f"w{n}", "fs.write", path="a.txt", content=f"v{n}") for n in range(1, steps + 1)
    )
    assert all(r["ok"] for r in folder.exec(message))
    assert folder.undo("--steps", str(steps))[0] == 0 and folder.read("a.txt") == b"v0\n"
    assert (
        folder.state / "journal" / "entries.jsonl"
    ).stat().st_size > 8192  # beyond the tail a commit reads
    assert folder.one("fs.write", path="a.txt", content="after")["ok"]
    assert folder.one("fs.write", path="b.txt", content="new file")["ok"]
    seqs = [
        json.loads(line)["seq"]
        for line in (folder.state / "journal" / "entries.jsonl").read_text().splitlines()
        if json.loads(line)["event"] == "begin"
    ]
    assert len(seqs) == len(set(seqs)) == steps + 2
    assert folder.undo("--steps", "2")[0] == 0
    assert folder.tree() == {"a.txt": b"v0\n"}


def test_a_file_with_other_hard_links_is_journalled_by_copy_and_undone_exactly(
    tmp_path: Path,
) -> None:
    """The pre-image of a file with other hard links cannot be kept by linking its inode (the
    other names would change along): it is copied. The replace gives the path a new inode, so
    the other name keeps the old bytes, as with any atomic replace."""
    folder = Folder(tmp_path, {"a.txt": b"one\ntwo\n"})
    os.link(folder.ws / "a.txt", tmp_path / "other-name.txt")
    assert folder.one("fs.patch", path="a.txt", patch_b64=b64("@@ -2 +2 @@\n-two\n+TWO\n"))["ok"]
    assert folder.read("a.txt") == b"one\nTWO\n"
    assert (tmp_path / "other-name.txt").read_bytes() == b"one\ntwo\n"
    pre_images = list((folder.state / "journal" / "pre").iterdir())
    assert len(pre_images) == 1 and pre_images[0].stat().st_nlink == 1  # a copy, not a third name
    assert folder.undo()[0] == 0 and folder.read("a.txt") == b"one\ntwo\n"


SHM = Path("/dev/shm")


@pytest.mark.skipif(
    not SHM.is_dir() or SHM.stat().st_dev == Path(__file__).stat().st_dev,
    reason="needs a second file system (/dev/shm) for the state folder",
)
def test_delete_and_undo_across_file_systems_never_leave_a_half_moved_folder(
    tmp_path: Path,
) -> None:
    """With the state folder on another file system no rename reaches the session trash: the
    folder is renamed aside in one step, copied, then removed (and brought back the same way),
    so the path never holds part of it."""
    import shutil
    import tempfile

    state = Path(tempfile.mkdtemp(dir=SHM, prefix="operator-test-"))
    try:
        files = {"build/a.txt": b"a\n", "build/sub/b.txt": b"b\n", "keep.txt": b"k\n"}
        folder = Folder(tmp_path, files)
        folder.state = state / "st"
        (folder.ws / "build" / "sub" / "b.txt").chmod(0o600)
        result = folder.one("fs.delete", path="build")
        assert result["ok"], result
        assert folder.tree() == {"keep.txt": b"k\n"}  # no hidden copy left beside it either
        assert (folder.state / "trash").stat().st_dev != folder.ws.stat().st_dev
        assert folder.undo()[0] == 0
        assert folder.tree() == files
        assert (folder.ws / "build" / "sub" / "b.txt").stat().st_mode & 0o777 == 0o600
        assert not list((folder.state / "trash").rglob("*.txt"))  # moved back, not copied
    finally:
        shutil.rmtree(state, ignore_errors=True)


@pytest.mark.skipif(
    not SHM.is_dir() or SHM.stat().st_dev == Path(__file__).stat().st_dev,
    reason="needs a second file system (/dev/shm) for the state folder",
)
def test_a_delete_whose_copy_to_another_file_system_fails_leaves_the_folder_whole(
    tmp_path: Path,
) -> None:
    import shutil
    import tempfile

    state = Path(tempfile.mkdtemp(dir=SHM, prefix="operator-test-"))
    try:
        folder = Folder(tmp_path, {"build/a.txt": b"a\n", "build/z.txt": b"z\n"})
        folder.state = state / "st"
        os.mkfifo(folder.ws / "build" / "pipe")  # a FIFO cannot be copied
        result = folder.one("fs.delete", path="build")
        assert not result["ok"]
        assert sorted(p.name for p in folder.ws.iterdir()) == [
            "build"
        ]  # back at its path, no hidden copy
        assert sorted(p.name for p in (folder.ws / "build").iterdir()) == ["a.txt", "pipe", "z.txt"]
        assert not list((folder.state / "trash").rglob("*.txt"))
        assert folder.undo()[0] == 6
    finally:
        shutil.rmtree(state, ignore_errors=True)


def test_the_journal_says_what_each_change_did(tmp_path: Path) -> None:
    """What a results view needs when the app died between a change and its recorded result."""
    from operator_app.engine.safety.journal import Journal

    folder = Folder(tmp_path, {"a.txt": b"a\n", "gone.txt": b"x\n"})
    results = folder.exec(
        block("w", "fs.write", path="a.txt", content="b") + block("d", "fs.delete", path="gone.txt")
    )
    entries = Journal(folder.state).entries()
    assert [(e.command_id, e.summary) for e in entries] == [
        (r["id"], r["summary"].split(" (Operator's own trash")[0]) for r in results
    ]
