"""The headless contract, through the installed `operator-app` command on real folders:
`exec --workspace DIR [--approve all|none] [--state-dir DIR] [--json] [MESSAGE_FILE]`, the JSON
ResponseEnvelope as seed 001 asks (with its "Tests to generate"), exit codes, and the
`results` / `undo` companions."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support import b64, block

ROOT = Path(__file__).resolve().parents[2]
APP = str(Path(sys.executable).with_name("operator-app"))
DEMO = ROOT / "fixtures" / "demo-workspace"
RESULT_RE = re.compile(r"OPERATOR_RESULT\nid: (.*)\nok: (true|false)\nsummary: (.*)\n(?:details_b64: (.*)\n)?END_OPERATOR_RESULT")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    return root


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPERATOR_TRASH="session")
    return subprocess.run([APP, *args], input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def parse_blocks(stdout: str) -> list[dict[str, Any]]:
    blocks = [{"id": m[0], "ok": m[1] == "true", "summary": m[2],
               "details": base64.b64decode(m[3]).decode("utf-8") if m[3] else None} for m in RESULT_RE.findall(stdout)]
    leftover = RESULT_RE.sub("", stdout).strip()
    assert leftover == "", f"stdout holds more than result blocks: {leftover!r}"
    return blocks


def check_envelope(envelope: dict[str, Any], exit_code: int) -> None:
    """The seed's validator: five keys always present, ok derived from the exit code, never
    both data and error null unless not_modified, error complete on failure."""
    assert set(envelope) == {"ok", "data", "error", "warnings", "meta"}
    assert envelope["ok"] is (exit_code == 0)
    assert isinstance(envelope["warnings"], list)
    assert isinstance(envelope["meta"]["duration_ms"], int) and envelope["meta"]["schema_version"] == "1.0"
    if exit_code == 0:
        assert envelope["error"] is None
        assert envelope["data"] is not None or envelope["meta"].get("not_modified") is True
    else:
        assert envelope["data"] is None
        error = envelope["error"]
        assert {"code", "message", "retryable", "phase", "suggestion"} <= set(error)


MESSAGE = "Let me look.\n" + block("r1", "fs.readSlice", path="notes/plan.txt") + "then\n" + \
    block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n")) + \
    block("r2", "fs.readSlice", path="notes/plan.txt")


def test_stdout_is_exactly_the_result_blocks_in_command_order(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    done = run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), "--approve", "all", str(tmp_path / "m.txt"))
    assert done.returncode == 0
    blocks = parse_blocks(done.stdout)
    assert [b["id"] for b in blocks] == ["r1", "w1", "r2"]
    assert all(b["ok"] for b in blocks)
    assert "3: Gamma" in blocks[2]["details"]
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


def test_message_from_stdin_or_dash_and_writes_rejected_without_a_terminal(ws: Path, tmp_path: Path) -> None:
    for source in ([], ["-"]):
        done = run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / f"st{len(source)}"), *source, stdin=MESSAGE)
        assert done.returncode == 0
        blocks = parse_blocks(done.stdout)
        assert [(b["id"], b["ok"]) for b in blocks] == [("r1", True), ("w1", False), ("r2", True)]
        assert "ERR_REJECTED" in blocks[1]["summary"]
        assert "--approve" in done.stderr  # the diagnostic says why, on stderr
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"


def test_approve_none_rejects(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    done = run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), "--approve", "none", str(tmp_path / "m.txt"))
    assert [b["ok"] for b in parse_blocks(done.stdout)] == [True, False, True]


@pytest.mark.parametrize("args, code, error", [
    (["exec", "--state-dir", "x"], 2, "USAGE_ERROR"),
    (["exec", "--workspace", "{ws}", "--approve", "some", "{msg}"], 2, "USAGE_ERROR"),
    (["exec", "--workspace", "{tmp}/missing", "{msg}"], 3, "WORKSPACE_UNUSABLE"),
    (["exec", "--workspace", "{ws}/README.md", "{msg}"], 3, "WORKSPACE_UNUSABLE"),
    (["exec", "--workspace", "{ws}", "{tmp}/no-such-message.txt"], 4, "MESSAGE_UNREADABLE"),
])
def test_exit_codes_and_failure_envelopes(args: list[str], code: int, error: str, ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    filled = [a.format(ws=ws, tmp=tmp_path, msg=tmp_path / "m.txt") for a in args]
    plain = run(*filled, "--state-dir", str(tmp_path / "st"))
    assert plain.returncode == code and plain.stdout == "" and error in plain.stderr
    as_json = run(*filled, "--state-dir", str(tmp_path / "st"), "--json")
    assert as_json.returncode == code
    envelope = json.loads(as_json.stdout)
    check_envelope(envelope, code)
    assert envelope["error"]["code"] == error


def test_json_success_envelope_carries_results_and_the_copy_text(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    text = run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "a"), "--approve", "all", str(tmp_path / "m.txt"))
    shutil.rmtree(ws)
    shutil.copytree(DEMO, ws)
    done = run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "b"), "--approve", "all", "--json", str(tmp_path / "m.txt"))
    envelope = json.loads(done.stdout)
    check_envelope(envelope, done.returncode)
    data = envelope["data"]
    assert [(r["id"], r["action"], r["ok"], r["error_code"]) for r in data["results"]] == [
        ("r1", "fs.readSlice", True, None), ("w1", "fs.write", True, None), ("r2", "fs.readSlice", True, None)]
    assert data["results"][0]["details"].startswith("# path: notes/plan.txt")  # decoded, not base64
    assert data["copy_text"] == text.stdout


def test_truncation_path_sets_meta_truncated(ws: Path, tmp_path: Path) -> None:
    (ws / "many.txt").write_text("hit\n" * 80)
    (tmp_path / "m.txt").write_text(block("s1", "fs.search", path="many.txt", query="hit"))
    envelope = json.loads(run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), "--json", str(tmp_path / "m.txt")).stdout)
    check_envelope(envelope, 0)
    assert envelope["meta"]["truncated"] is True
    assert "(truncated" in envelope["data"]["results"][0]["details"]


def test_cache_hit_path_is_not_modified(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(block("r1", "fs.read", path="README.md"))
    args = ["exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), "--json", str(tmp_path / "m.txt")]
    first = json.loads(run(*args).stdout)
    assert first["data"]["results"][0]["ok"]
    again = run(*args)
    envelope = json.loads(again.stdout)
    check_envelope(envelope, again.returncode)
    assert again.returncode == 0 and envelope["data"] is None and envelope["error"] is None
    assert envelope["meta"]["not_modified"] is True


def test_results_reprints_the_last_message(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    done = run("exec", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), "--approve", "all", str(tmp_path / "m.txt"))
    again = run("results", "--workspace", str(ws), "--state-dir", str(tmp_path / "st"), "--last")
    assert again.returncode == 0 and again.stdout == done.stdout
    missing = run("results", "--workspace", str(ws), "--state-dir", str(tmp_path / "other"))
    assert missing.returncode == 6


def test_undo_restores_exact_bytes_and_refuses_when_the_file_changed(ws: Path, tmp_path: Path) -> None:
    target = ws / "notes" / "plan.txt"
    target.write_bytes(b"\xef\xbb\xbfAlpha\r\nBeta")  # BOM, CRLF, no final newline
    target.chmod(0o640)
    original = target.read_bytes()
    state = str(tmp_path / "st")
    (tmp_path / "m.txt").write_text(block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("One\nTwo\nThree\n")) +
                                     block("w2", "fs.write", path="notes/new/deep.txt", content="x"))
    run("exec", "--workspace", str(ws), "--state-dir", state, "--approve", "all", str(tmp_path / "m.txt"))
    assert target.read_bytes() == b"\xef\xbb\xbfOne\r\nTwo\r\nThree"  # the file's conventions kept
    assert oct(target.stat().st_mode & 0o777) == "0o640"
    done = run("undo", "--workspace", str(ws), "--state-dir", state, "--steps", "2")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == original and not (ws / "notes" / "new").exists()
    assert oct(target.stat().st_mode & 0o777) == "0o640"
    assert run("undo", "--workspace", str(ws), "--state-dir", state).returncode == 6  # nothing left
    (tmp_path / "m2.txt").write_text(block("w3", "fs.write", path="notes/plan.txt", content="changed"))
    run("exec", "--workspace", str(ws), "--state-dir", state, "--approve", "all", str(tmp_path / "m2.txt"))
    target.write_text("edited by hand\n")
    refused = run("undo", "--workspace", str(ws), "--state-dir", state)
    assert refused.returncode == 6 and "changed since" in refused.stderr
    assert target.read_text() == "edited by hand\n"
