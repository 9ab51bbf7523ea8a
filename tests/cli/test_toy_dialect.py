"""A third dialect is its own packages and one line: the toy of tests/support/toy_dialect, named
in OPERATOR_DIALECTS, runs through the real `operator-app exec` in a process of its own. Its
block is found by the scanner through its opener among both dialects Operator ships, run by the
engine, answered in its own form (the engine's codes spelt its way) and printed with the others'
in message order; `spec` offers its prompt, and a message with no block names its form too."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.cases import ROOT, in_session, run_app
from tests.support.toy_dialect import ENVIRONMENT

S = "\U0001d49e"
MESSAGE = (
    "Let me read the plan. [[toy: read notes/plan.txt]] Then its size:\n"
    "OPERATOR_CMD\nversion: 1\nid: s1\naction: fs.stat\npath: notes/plan.txt\nEND_OPERATOR_CMD\n"
    f"<{S}=string:notes>/write notes/new.md\n[[toy: read notes/plan.txt]] is text here\n</{S}>\n"
    "And a file that is not there: [[toy: read notes/gone.txt]]\n"
)


def toy_env(**more: str) -> dict[str, str]:
    """The environment of a process that has the toy dialect: one variable (and the tests'
    package on the path, where the toy lives)."""
    return dict(os.environ, **ENVIRONMENT, PYTHONPATH=str(ROOT), OPERATOR_TRASH="session", **more)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "plan.txt").write_text("Alpha\nBeta\n")
    return ws


def test_a_toy_block_runs_through_exec_and_answers_in_its_own_form(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    message = tmp_path / "m.txt"
    message.write_text(MESSAGE)
    done = in_session("exec", ws, tmp_path / "st", "--approve", "all", str(message), env=toy_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # In message order: the toy's read, the OPERATOR_CMD stat, String's write, the toy's miss.
    assert out.index("[[toy-answer toy-1 ok]]") < out.index("OPERATOR_RESULT\nid: s1")
    assert out.index("id: s1") < out.index(f"<{S}=string:file:notes") < out.index("toy-11")
    assert "[[toy-answer toy-1 ok]]\nRead notes/plan.txt (11 bytes, 2 lines)\nAlpha\nBeta\n" in out
    # The engine's code, spelt the toy's way in its answer.
    assert "[[toy-answer toy-11 error=not-found]]\nERR_NOT_FOUND: " in out
    # Inside String's /write, the toy's opener is the file's text, never a block.
    assert (ws / "notes" / "new.md").read_text() == ("[[toy: read notes/plan.txt]] is text here\n")
    assert out.count("[[toy-answer") == 2


def test_the_envelope_keeps_the_engines_code_and_the_dialects_own_fields(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    message = tmp_path / "m.txt"
    message.write_text("[[toy: read notes/gone.txt]]\n")
    done = in_session("exec", ws, tmp_path / "st", "--json", str(message), env=toy_env())
    envelope = json.loads(done.stdout)
    (result,) = envelope["data"]["results"]
    assert (result["dialect"], result["action"], result["error_code"]) == (
        "toy",
        "toy.read",
        "ERR_NOT_FOUND",
    )
    assert result["toy_command"] == "read notes/gone.txt"  # what its dialect describes
    assert "error=not-found" in envelope["data"]["copy_text"]


def test_spec_and_the_no_blocks_warning_read_the_table(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    spec = run_app("spec", "--dialect", "toy", env=toy_env())
    assert spec.returncode == 0 and spec.stdout.startswith("Read a file of the workspace")
    message = tmp_path / "m.txt"
    message.write_text("Nothing to run here.\n")
    done = in_session("exec", ws, tmp_path / "st", str(message), env=toy_env())
    assert f"no OPERATOR_CMD or <{S}=string:...> or [[toy: ...]] blocks found" in done.stderr
    # Without the variable the toy is no dialect: its block is prose.
    message.write_text("[[toy: read notes/plan.txt]]\n")
    plain = in_session(
        "exec", ws, tmp_path / "st", str(message), env=dict(os.environ, PYTHONPATH=str(ROOT))
    )
    assert plain.stdout == "" and "blocks found" in plain.stderr
