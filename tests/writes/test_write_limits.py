"""What a hostile or mistaken write command costs, and what its error tells the model, through the
real `exec` on real folders: no write leaves a file over the write limit (and a replaceAll is
refused before its string is built), a lone surrogate in the edits is a document error, and
not-found messages point at the fix (the closest line, markers in another comment style)."""

from __future__ import annotations

import base64
import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from operator_app.cli.main import main as cli_main
from operator_app.protocol.grammar import WRITE_MAX_BYTES
from tests.support.blocks import b64, block

ROOT = Path(__file__).resolve().parents[2]


def run(ws: Path, message: str) -> list[dict[str, Any]]:
    path = ws.parent / "message.txt"
    path.write_text(message)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert (
            cli_main(
                [
                    "exec",
                    "--workspace",
                    str(ws),
                    "--state-dir",
                    str(ws.parent / "st"),
                    "--approve",
                    "all",
                    "--json",
                    str(path),
                ]
            )
            == 0
        )
    return list(json.loads(out.getvalue())["data"]["results"])


def one(ws: Path, action: str, **fields: str) -> dict[str, Any]:
    (result,) = run(ws, block("c", action, **fields))
    return result


def edits(*items: dict[str, Any]) -> str:
    return b64(json.dumps({"version": 1, "edits": list(items)}))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_a_replace_all_that_would_pass_the_write_limit_is_refused_before_it_is_built(
    ws: Path,
) -> None:
    """200 KB of "o" with each "o" made 50: a 10 MB file from a message of a few hundred bytes
    (made 5,000 it took 20-50 s and 6.9 GB to build the preview)."""
    (ws / "a.txt").write_text("o" * 200_000 + "\n")
    result = one(
        ws,
        "fs.applyEdits",
        path="a.txt",
        edits_b64=edits({"op": "replaceAll", "find": "o", "text": "o" * 50}),
    )
    assert result["error_code"] == "ERR_FILE_TOO_LARGE", result
    assert result["summary"].startswith(
        "ERR_FILE_TOO_LARGE: edit #1 (edits[0], replaceAll): replacing 200,000 occurrences of "
        "1 character with 50 characters would make a.txt 10,000,001 characters long "
        "(it is 200,001 before this edit)"
    )
    assert (ws / "a.txt").read_text() == "o" * 200_000 + "\n"


def test_a_patch_or_region_whose_result_passes_the_write_limit_is_refused(ws: Path) -> None:
    body = "start\n" + "y" * (WRITE_MAX_BYTES - 40) + "\n"
    (ws / "big.txt").write_text(body)
    (ws / "big.py").write_text(body)
    patch = "@@ -1 +1,3 @@\n start\n+" + "p" * 30 + "\n+" + "q" * 30 + "\n"
    region = {"marker_id": "r", "anchor": "start", "content_b64": b64("z" * 60 + "\n")}
    results = run(
        ws,
        block("p", "fs.patch", path="big.txt", patch_b64=b64(patch))
        + block("r", "fs.insertRegion", path="big.py", **region),
    )
    for result, name in zip(results, ("big.txt", "big.py"), strict=True):
        assert result["error_code"] == "ERR_FILE_TOO_LARGE", result
        assert (
            f"would make {name} 8,000,0" in result["summary"]
            and "over the 8,000,000-byte limit" in result["summary"]
        )
    assert (ws / "big.txt").read_text() == body and (ws / "big.py").read_text() == body


def test_a_lone_surrogate_in_the_edits_is_err_invalid_edits_json(ws: Path) -> None:
    (ws / "a.txt").write_text("needle\n")
    document = '{"version":1,"edits":[{"op":"replaceAll","find":"needle","text":"\\ud800"}]}'
    result = one(
        ws, "fs.applyEdits", path="a.txt", edits_b64=base64.b64encode(document.encode()).decode()
    )
    assert result["error_code"] == "ERR_INVALID_EDITS_JSON", result
    assert "text holds a lone surrogate \\ud800" in result["summary"]
    assert (ws / "a.txt").read_text() == "needle\n"


def test_an_anchor_with_a_typo_gets_the_closest_line(ws: Path) -> None:
    """The bar of docs/design.md ("Error messages"); line 13 of the text edit #2 applies to (edit
    #1 added a line above it)."""
    shutil.copytree(ROOT / "fixtures" / "demo-workspace" / "src", ws / "src")
    result = one(
        ws,
        "fs.applyEdits",
        path="src/app.py",
        edits_b64=edits(
            {"op": "insertAfter", "anchor": "import sys", "text": "import os"},
            {"op": "insertAfter", "anchor": "def mian(", "text": "    pass"},
        ),
    )
    assert result["summary"] == (
        'ERR_ANCHOR_NOT_FOUND: edit #2 (edits[1], insertAfter): anchor "def mian(" not found in '
        'src/app.py; closest line 13: "def main(argv: list[str]) -> int:"; nothing was written'
    )


def test_region_actions_point_at_markers_in_another_comment_style(ws: Path) -> None:
    (ws / "m.py").write_text("import os\n// OPERATOR_BEGIN a\nx = 1\n// OPERATOR_END a\n")
    read, listed, replaced = run(
        ws,
        block("r", "fs.readRegion", path="m.py", marker_id="a")
        + block("l", "fs.listRegions", path="m.py")
        + block("w", "fs.replaceRegion", path="m.py", marker_id="a", content_b64=b64("x = 2\n")),
    )
    for result in (read, replaced):
        assert result["error_code"] == "ERR_REGION_MARKER_NOT_FOUND"
        assert (
            'region "a" is marked in another comment style (line 2: "// OPERATOR_BEGIN a"); '
            "pass comment_line_prefix: // to read it"
        ) in result["summary"]
    assert listed["ok"] and listed["summary"] == "0 regions in m.py (1 marker problem, see details)"
    assert (
        "pass comment_line_prefix: // to read them" in json.loads(listed["details"])["problems"][0]
    )
    fixed = one(
        ws,
        "fs.replaceRegion",
        path="m.py",
        marker_id="a",
        comment_line_prefix="//",
        content_b64=b64("x = 2\n"),
    )
    assert (
        fixed["ok"]
        and (ws / "m.py").read_text()
        == "import os\n// OPERATOR_BEGIN a\nx = 2\n// OPERATOR_END a\n"
    )
