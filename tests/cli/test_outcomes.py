"""Every action's result carries the record the engine made of it (protocol/outcomes.py), through
the real `operator-app exec --json` and `results --json`: a command's exit status, folders,
output and change-set state as fields; a change's line moves, hashes and journal number; a read's
file (as resolved through a symlinked folder), lines shown and hash. The session keeps the
records with the results, and a session recorded before results had them still loads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from operator_app.engine import Journal
from tests.cli.test_shell import sandbox_or_skip
from tests.support.blocks import b64, block
from tests.support.exec_folder import cli, exec_json
from tests.support.string_exec import Workspace, chan


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "real").mkdir(parents=True)
    (root / "real" / "f.md").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    (root / "lnk").symlink_to("real")
    return root


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(ws: Path, state: Path, script: str, approve: str = "all", **fields: str) -> dict[str, Any]:
    (result,) = exec_json(
        ws, state, block("c1", "shell.run", command_b64=b64(script), **fields), approve
    )
    return result


def test_a_commands_exit_status_folder_and_output_are_fields_of_its_record(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "cd real; echo one; echo two >&2; exit 3")
    outcome = result["outcome"]
    assert result["ok"] and outcome["type"] == "run"
    assert outcome["end"] == "exit" and outcome["exit"] == 3 and outcome["signal"] is None
    assert outcome["started_in"] == "." and outcome["ended_in"] == "real"
    assert outcome["cwd_unknown"] == "" and outcome["sandboxed"] is True
    assert outcome["network"] is False
    output = outcome["output"]
    assert output["text"] == "one\ntwo\n" and output["lines"] == 2 and output["bytes"] == 8
    assert output["cut_lines"] == output["cut_bytes"] == 0
    assert Path(output["saved"]).read_bytes() == b"one\ntwo\n"
    assert outcome["changes"]["state"] == "none" and outcome["changes"]["entries"] == []
    # The words are rendered from the same record.
    assert (
        result["summary"].startswith("exit 3 in ")
        and "(cwd real); no file changes" in (result["summary"])
    )


def test_a_change_set_applied_names_its_entries_and_its_journal_entry(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    state = tmp_path / "st"
    (ws / "gone.txt").write_text("old\n")
    result = run(ws, state, "echo new > real/new.txt; echo more >> real/f.md; rm gone.txt")
    changes = result["outcome"]["changes"]
    assert changes["state"] == "applied"
    assert changes["summary"] == "3 files: 1 changed, 1 created, 1 deleted"
    entries = {entry["path"]: entry for entry in changes["entries"]}
    assert entries["real/new.txt"]["change"] == "created"
    assert entries["real/new.txt"]["sha256"] == sha(ws / "real" / "new.txt")
    assert entries["real/f.md"]["change"] == "changed"
    assert entries["gone.txt"]["change"] == "deleted" and entries["gone.txt"]["sha256"] is None
    (entry,) = [e for e in Journal(state).entries() if e.kind == "changeset"]
    assert changes["seq"] == entry.seq


def test_a_command_that_ran_out_of_time_is_a_failure_with_its_record(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "echo started; touch real/x; sleep 30", timeout_s="1")
    assert not result["ok"] and result["error_code"] == "ERR_COMMAND_TIMEOUT"
    outcome = result["outcome"]
    assert outcome["end"] == "timeout" and outcome["exit"] is None
    assert outcome["timeout_s"] == 1 and outcome["output"]["text"] == "started\n"
    assert outcome["changes"]["state"] == "discarded"
    assert not (ws / "real" / "x").exists()


def test_changes_declined_and_a_command_not_run(ws: Path, tmp_path: Path) -> None:
    """A command not run has no record (nothing ran); one whose changes were not applied says
    which of the closed states they are in."""
    sandbox_or_skip()
    state = tmp_path / "st"
    refused = run(ws, state, "echo x > real/x", approve="none")
    assert refused["status"] == "rejected" and refused["outcome"] is None
    # No terminal, no --approve: the command itself waits, and is not run.
    waiting = run(ws, state, "echo x > real/x", approve="")
    assert waiting["error_code"] == "ERR_NOT_APPROVED" and waiting["outcome"] is None


def test_a_bash_topics_answer_carries_the_runs_record(tmp_path: Path) -> None:
    sandbox_or_skip()
    space = Workspace(tmp_path, {"sub/a.txt": "a\n"})
    answer = space.exec(chan("cd sub && exit 4", "bash:dev")).one
    assert answer["summary"] == "exit: 4 | cwd: ~/sub"
    outcome = answer["outcome"]
    assert outcome["type"] == "run" and outcome["exit"] == 4 and outcome["ended_in"] == "sub"


def test_a_change_records_its_moves_hashes_and_journal_entry_and_the_file_it_reached(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "st"
    edits = {"version": 1, "edits": [{"op": "replaceRange", "startLine": 3, "endLine": 3}]}
    edits["edits"][0]["text"] = "three\nand a half\n"
    (result,) = exec_json(
        ws, state, block("w1", "fs.applyEdits", path="lnk/f.md", edits_b64=b64(json.dumps(edits)))
    )
    change = result["outcome"]
    assert change["type"] == "change" and change["kind"] == "modify"
    assert change["path"] == "lnk/f.md" and change["real"] == "real/f.md"
    assert change["moves"] == [{"start": 2, "end": 3, "new_start": 2, "new_end": 4}]
    assert change["rewrote"] is False and change["lines"] == 11
    assert change["new_sha256"] == sha(ws / "real" / "f.md")
    assert (
        change["old_sha256"]
        == hashlib.sha256("".join(f"line {n}\n" for n in range(1, 11)).encode()).hexdigest()
    )
    (entry,) = Journal(state).entries()
    assert change["seq"] == entry.seq
    (moved,) = exec_json(ws, state, block("m1", "fs.move", path="real/f.md", path_to="g.md"))
    assert moved["outcome"]["kind"] == "move" and moved["outcome"]["path_to"] == "g.md"
    (written,) = exec_json(ws, state, block("w2", "fs.write", path="g.md", content_b64=b64("x\n")))
    assert written["outcome"]["rewrote"] is True


def test_a_read_records_the_file_it_reached_and_the_lines_it_showed(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "st"
    message = (
        block("r1", "fs.readSlice", path="lnk/f.md", start="3", lines="4")
        + block("r2", "fs.search", path="real/f.md", query="line 1")
        + block("r3", "fs.read", path="lnk/f.md")
    )
    sliced, searched, whole = exec_json(ws, state, message)
    assert sliced["outcome"] == {
        "type": "read",
        "path": "lnk/f.md",
        "real": "real/f.md",
        "lines": 10,
        "shown": [[3, 6]],
        "numbered": True,
        "sha256": sha(ws / "real" / "f.md"),
    }
    assert searched["outcome"]["shown"] == [[1, 1], [10, 10]]
    assert whole["outcome"]["shown"] == [[1, 10]] and whole["outcome"]["numbered"] is False


def test_string_answers_carry_their_records(tmp_path: Path) -> None:
    space = Workspace(tmp_path, {"a.md": "one\ntwo\nthree\n"})
    opened, replaced, listed = space.exec(
        chan("/open a.md:L2-L3") + chan("/replace a.md:L1\nONE\nUNO") + chan("/grep two")
    ).results
    assert opened["outcome"]["type"] == "read" and opened["outcome"]["shown"] == [[2, 3]]
    assert replaced["outcome"]["moves"] == [{"start": 0, "end": 1, "new_start": 0, "new_end": 2}]
    assert listed["outcome"]["type"] == "walk" and listed["outcome"]["rows"] == ["a.md:3: two"]
    undone = space.exec(chan("/undo")).one
    assert undone["outcome"]["kind"] == "modify"
    assert undone["outcome"]["undoes"] == replaced["outcome"]["seq"]


def test_results_json_reads_the_records_back_from_the_session(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "st"
    (live,) = exec_json(ws, state, block("r1", "fs.readSlice", path="real/f.md", start="2"))
    code, out, err = cli(
        "results", "--workspace", str(ws), "--state-dir", str(state), "--last", "--json"
    )
    assert code == 0, err
    (kept,) = json.loads(out)["data"]["results"]
    assert kept["outcome"] == live["outcome"] and kept["outcome"]["shown"] == [[2, 10]]


def test_a_session_recorded_before_results_had_records_still_loads(
    ws: Path, tmp_path: Path
) -> None:
    """Results kept without a record (and one whose record this version cannot read) load, print
    and count as used ids as ever; their record is null."""
    state = tmp_path / "st"
    exec_json(ws, state, block("r1", "fs.read", path="real/f.md"))
    results = state / "session" / "results.jsonl"
    (record,) = [json.loads(line) for line in results.read_text().splitlines()]
    del record["result"]["outcome"], record["result"]["error_message"]
    unreadable = json.loads(json.dumps(record))
    unreadable["result"]["id"] = "r2"
    unreadable["result"]["outcome"] = {"type": "teleport", "to": "mars"}
    results.write_text(json.dumps(record) + "\n" + json.dumps(unreadable) + "\n")
    code, out, err = cli(
        "results", "--workspace", str(ws), "--state-dir", str(state), "--last", "--json"
    )
    assert code == 0, err
    old, odd = json.loads(out)["data"]["results"]
    assert old["id"] == "r1" and old["ok"] and old["outcome"] is None
    assert odd["id"] == "r2" and odd["outcome"] is None
    # The id is still known as used: the same block again is a repeat.
    (again,) = exec_json(ws, state, block("r1", "fs.read", path="real/f.md"))
    assert again["summary"].startswith("already ran in message 1: ")


def test_a_whole_file_write_that_changes_nothing_still_gives_the_model_its_numbering(
    ws: Path, tmp_path: Path
) -> None:
    """fs.write of the text the file holds already writes nothing, but the model numbers what
    follows from that text: its record (kind "none", rewrote) starts the count again, so a line
    edit after it applies where an edit numbered from the message's start would be refused."""
    state = tmp_path / "st"
    f = ws / "real" / "f.md"
    insert = {"version": 1, "edits": [{"op": "replaceRange", "startLine": 2, "endLine": 2}]}
    insert["edits"][0]["text"] = "line 2\nline 2b\n"
    grown = f.read_text().replace("line 2\n", "line 2\nline 2b\n")
    edit8 = {"version": 1, "edits": [{"op": "replaceRange", "startLine": 8, "endLine": 8}]}
    edit8["edits"][0]["text"] = "LINE 7\n"
    message = (
        block("w1", "fs.applyEdits", path="real/f.md", edits_b64=b64(json.dumps(insert)))
        + block("w2", "fs.write", path="real/f.md", content_b64=b64(grown))
        + block("w3", "fs.applyEdits", path="real/f.md", edits_b64=b64(json.dumps(edit8)))
    )
    inserted, same, edited = exec_json(ws, state, message)
    assert inserted["ok"] and same["summary"].startswith("No change: ")
    assert same["outcome"]["kind"] == "none" and same["outcome"]["rewrote"] is True
    assert same["outcome"]["seq"] is None
    assert same["outcome"]["new_sha256"] == hashlib.sha256(grown.encode()).hexdigest()
    assert edited["ok"], edited["summary"]
    assert f.read_text().split("\n")[7] == "LINE 7"
