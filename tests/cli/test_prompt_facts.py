"""What the compact prompt tells a model it would otherwise have to find out by trying (issue 25,
point 8), held true through the real `operator-app exec`: fs.rename's path_to is the new path,
insertAfter inserts right after the anchor text, replaceRange with empty text deletes the lines,
fs.read's details are the file's exact text, an invalid block's id may be sent again, and
ERR_UNKNOWN_LANGUAGE names the languages and the override that fixes it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.blocks import b64, block
from tests.support.string_exec import Workspace


def edit(*items: dict[str, object]) -> str:
    return b64(json.dumps({"version": 1, "edits": list(items)}))


def test_the_facts_of_the_prompt_hold(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"src/a.py": "x = 1\ny = 2\nz = 3\n", "crlf.txt": b"one\r\ntwo"})
    renamed = w.exec(block("r1", "fs.rename", path="src/a.py", path_to="src/b.py")).one
    assert renamed["ok"] and w.read("src/b.py").startswith("x = 1")
    inserted = w.exec(
        block(
            "e1",
            "fs.applyEdits",
            path="src/b.py",
            edits_b64=edit({"op": "insertAfter", "anchor": "x = ", "text": "10 + "}),
        )
    ).one
    assert inserted["ok"] and w.read("src/b.py").startswith("x = 10 + 1\n")
    deleted = w.exec(
        block(
            "e2",
            "fs.applyEdits",
            path="src/b.py",
            edits_b64=edit({"op": "replaceRange", "startLine": 2, "endLine": 3, "text": ""}),
        )
    ).one
    assert deleted["ok"] and w.read("src/b.py") == "x = 10 + 1\n"
    read = w.exec(block("f1", "fs.read", path="crlf.txt")).one
    assert "CRLF line endings" in read["summary"] and read["details"] == "one\r\ntwo"
    invalid = w.exec(block("i1", "fs.readSlice", path="src/b.py", lines="none")).one
    assert invalid["error_code"] == "ERR_INVALID_READSLICE_PARAMS"
    again = w.exec(block("i1", "fs.readSlice", path="src/b.py", lines="5")).one
    assert again["ok"]
    unknown = w.exec(block("l1", "fs.listRegions", path="src/b.py", language="cobolx")).one
    assert unknown["error_code"] == "ERR_UNKNOWN_LANGUAGE"
    assert "or pass comment_line_prefix" in unknown["summary"]
