"""The headless contract, through the installed `operator-app` command on real folders:
`exec --workspace DIR [--approve all|none] [--state-dir DIR] [--json] [MESSAGE_FILE]`, the JSON
ResponseEnvelope of docs/design.md ("The --json envelope"), exit codes, and the `results` / `undo`
companions.

The envelope's success path, failure path, truncation path and cache-hit path are below. Operator
never redirects: no exit code 13 is documented and `check_envelope` asserts no envelope ever
carries error.redirect."""

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

from operator_app import __version__
from tests.support.blocks import b64, block
from tests.support.cases import (  # check_envelope: the --json envelope of docs/design.md
    check_envelope,
    in_session,
    run_app,
)

ROOT = Path(__file__).resolve().parents[2]
APP = str(Path(sys.executable).with_name("operator-app"))
DEMO = ROOT / "fixtures" / "demo-workspace"
RESULT_RE = re.compile(
    r"OPERATOR_RESULT\nid: (.*)\nok: (true|false)\nsummary: (.*)\n"
    r"(?:details_b64: (.*)\n)?END_OPERATOR_RESULT"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    return root


def parse_blocks(stdout: str) -> list[dict[str, Any]]:
    blocks = [
        {
            "id": m[0],
            "ok": m[1] == "true",
            "summary": m[2],
            "details": base64.b64decode(m[3]).decode("utf-8") if m[3] else None,
        }
        for m in RESULT_RE.findall(stdout)
    ]
    leftover = RESULT_RE.sub("", stdout).strip()
    assert leftover == "", f"stdout holds more than result blocks: {leftover!r}"
    return blocks


MESSAGE = (
    "Let me look.\n"
    + block("r1", "fs.readSlice", path="notes/plan.txt")
    + "then\n"
    + block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n"))
    + block("r2", "fs.readSlice", path="notes/plan.txt")
)


def test_stdout_is_exactly_the_result_blocks_in_command_order(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    done = in_session(
        "exec",
        ws,
        tmp_path / "st",
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    assert done.returncode == 0
    blocks = parse_blocks(done.stdout)
    assert [b["id"] for b in blocks] == ["r1", "w1", "r2"]
    assert all(b["ok"] for b in blocks)
    assert "3: Gamma" in blocks[2]["details"]
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


def test_message_from_stdin_or_dash_and_writes_not_approved_without_a_terminal(
    ws: Path, tmp_path: Path
) -> None:
    """No terminal and no --approve: no one is asked, so the model is not told "the person
    declined" (ERR_REJECTED) but that no one was asked (ERR_NOT_APPROVED), and the read after the
    write waits with it; the person is told on stderr how to approve."""
    for source in ([], ["-"]):
        state = tmp_path / f"st{len(source)}"
        done = in_session("exec", ws, state, *source, stdin=MESSAGE)
        assert done.returncode == 0
        blocks = parse_blocks(done.stdout)
        assert [(b["id"], b["ok"]) for b in blocks] == [("r1", True), ("w1", False), ("r2", False)]
        assert blocks[1]["summary"].startswith(
            "ERR_NOT_APPROVED: fs.write on notes/plan.txt was not applied: no person was asked"
        )
        assert blocks[2]["summary"].startswith(
            "ERR_NOT_APPROVED: not run: it comes after w1 (fs.write on notes/plan.txt), which "
            "waits for a person's approval"
        )
        assert done.stderr == (
            "operator-app: no one was asked about w1 (fs.write of notes/plan.txt): stdin is not a "
            "terminal and no --approve was given. It was not applied, and the command after it "
            "did not run; the model is told so (ERR_NOT_APPROVED). To decide, run the same "
            "message again from a terminal, with the message in a file, and Operator shows each "
            f"diff and command and asks: operator-app exec --workspace {ws} --state-dir {state} "
            "MESSAGE_FILE; or approve every write and command unseen: operator-app exec "
            f"--workspace {ws} --state-dir {state} --approve all MESSAGE_FILE\n"
        )
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"


def test_approve_none_rejects(ws: Path, tmp_path: Path) -> None:
    """--approve none is a decision the person made beforehand: ERR_REJECTED, and the read after
    the write runs (it shows the file as it stays)."""
    (tmp_path / "m.txt").write_text(MESSAGE)
    done = in_session("exec", ws, tmp_path / "st", "--approve", "none", str(tmp_path / "m.txt"))
    blocks = parse_blocks(done.stdout)
    assert [(b["id"], b["ok"]) for b in blocks] == [("r1", True), ("w1", False), ("r2", True)]
    assert blocks[1]["summary"].startswith("ERR_REJECTED: the person declined fs.write")
    assert done.stderr == ""


@pytest.mark.parametrize(
    "args, code, error",
    [
        (["exec", "--state-dir", "x"], 2, "USAGE_ERROR"),
        (["exec", "--workspace", "{ws}", "--approve", "some", "{msg}"], 2, "USAGE_ERROR"),
        (["exec", "--workspace", "{tmp}/missing", "{msg}"], 3, "WORKSPACE_UNUSABLE"),
        (["exec", "--workspace", "{ws}/README.md", "{msg}"], 3, "WORKSPACE_UNUSABLE"),
        (["exec", "--workspace", "{ws}", "{tmp}/no-such-message.txt"], 4, "MESSAGE_UNREADABLE"),
    ],
)
def test_exit_codes_and_failure_envelopes(
    args: list[str], code: int, error: str, ws: Path, tmp_path: Path
) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    filled = [a.format(ws=ws, tmp=tmp_path, msg=tmp_path / "m.txt") for a in args]
    plain = run_app(*filled, "--state-dir", str(tmp_path / "st"))
    assert plain.returncode == code and plain.stdout == "" and error in plain.stderr
    as_json = run_app(*filled, "--state-dir", str(tmp_path / "st"), "--json")
    assert as_json.returncode == code
    envelope = json.loads(as_json.stdout)
    check_envelope(envelope, code)
    assert envelope["error"]["code"] == error


def test_json_success_envelope_carries_results_and_the_copy_text(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    text = in_session(
        "exec",
        ws,
        tmp_path / "a",
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    shutil.rmtree(ws)
    shutil.copytree(DEMO, ws)
    done = in_session(
        "exec",
        ws,
        tmp_path / "b",
        "--approve",
        "all",
        "--json",
        str(tmp_path / "m.txt"),
    )
    envelope = json.loads(done.stdout)
    check_envelope(envelope, done.returncode)
    data = envelope["data"]
    assert [(r["id"], r["action"], r["ok"], r["error_code"]) for r in data["results"]] == [
        ("r1", "fs.readSlice", True, None),
        ("w1", "fs.write", True, None),
        ("r2", "fs.readSlice", True, None),
    ]
    assert data["results"][0]["details"].startswith("# path: notes/plan.txt")  # decoded, not base64
    assert data["copy_text"] == text.stdout


def test_truncation_path_sets_meta_truncated(ws: Path, tmp_path: Path) -> None:
    (ws / "many.txt").write_text("hit\n" * 80)
    (tmp_path / "m.txt").write_text(block("s1", "fs.search", path="many.txt", query="hit"))
    envelope = json.loads(
        in_session(
            "exec",
            ws,
            tmp_path / "st",
            "--json",
            str(tmp_path / "m.txt"),
        ).stdout
    )
    check_envelope(envelope, 0)
    assert envelope["meta"]["truncated"] is True
    assert "(truncated" in envelope["data"]["results"][0]["details"]


def test_a_message_of_repeats_is_answered_not_a_cache_hit(ws: Path, tmp_path: Path) -> None:
    """Every block repeats one already run: nothing runs again, but the data holds their answers
    (issue 19: with none, rule 15 tells the model they never ran). The envelope's not_modified
    (seed 001's cache hit, data null) is for an unchanged answer, which a chat never needs."""
    (tmp_path / "m.txt").write_text(block("r1", "fs.read", path="README.md"))
    args = [
        "exec",
        "--workspace",
        str(ws),
        "--state-dir",
        str(tmp_path / "st"),
        "--json",
        str(tmp_path / "m.txt"),
    ]
    first = json.loads(run_app(*args).stdout)
    assert first["data"]["results"][0]["ok"]
    again = run_app(*args)
    envelope = json.loads(again.stdout)
    check_envelope(envelope, again.returncode)
    assert again.returncode == 0 and envelope["error"] is None
    assert "not_modified" not in envelope["meta"]
    (result,) = envelope["data"]["results"]
    assert result["ok"] and result["summary"].startswith("already ran in message 1: Read README.md")
    assert result["details"] == first["data"]["results"][0]["details"]
    assert envelope["data"]["duplicates"] == [
        {"id": "r1", "message": 1, "summary": first["data"]["results"][0]["summary"]}
    ]


def test_results_reprints_the_last_message(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    done = in_session(
        "exec",
        ws,
        tmp_path / "st",
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    again = in_session("results", ws, str(tmp_path / "st"), "--last")
    assert again.returncode == 0 and again.stdout == done.stdout
    missing = in_session("results", ws, str(tmp_path / "other"))
    assert missing.returncode == 6 and "there is no Operator session in" in missing.stderr
    nothing = in_session("undo", ws, str(tmp_path / "other"))
    assert nothing.returncode == 6 and "there is no Operator session in" in nothing.stderr
    assert not (tmp_path / "other").exists()  # they only look: no state folder is made


def test_results_of_a_message_of_repeats_prints_their_answers(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(block("r1", "fs.read", path="README.md"))
    args = ("--workspace", str(ws), "--state-dir", str(tmp_path / "st"))
    run_app("exec", *args, str(tmp_path / "m.txt"))
    run_app("exec", *args, str(tmp_path / "m.txt"))  # every command a repeat: answered, not run
    again = run_app("results", *args, "--last")
    assert again.returncode == 0
    assert again.stdout.startswith("OPERATOR_RESULT\nid: r1\nok: true\nsummary: already ran in ")
    assert run_app("results", *args, "--message", "1").stdout.startswith(
        "OPERATOR_RESULT\nid: r1\n"
    )


def test_results_prints_while_another_process_holds_the_session(ws: Path, tmp_path: Path) -> None:
    """The TUI holds the session while it waits for a yes: `results` still prints what is recorded
    (and says more may come) instead of waiting for the lock and failing."""
    from operator_app.engine.state.session import Session

    (tmp_path / "m.txt").write_text(MESSAGE)
    done = in_session(
        "exec",
        ws,
        tmp_path / "st",
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    with Session(tmp_path / "st").lock():
        again = in_session("results", ws, str(tmp_path / "st"), "--last")
    assert again.returncode == 0 and again.stdout == done.stdout
    assert "another Operator process is working in this session" in again.stderr


def test_undo_restores_exact_bytes_and_refuses_when_the_file_changed(
    ws: Path, tmp_path: Path
) -> None:
    target = ws / "notes" / "plan.txt"
    target.write_bytes(b"\xef\xbb\xbfAlpha\r\nBeta")  # BOM, CRLF, no final newline
    target.chmod(0o640)
    original = target.read_bytes()
    state = str(tmp_path / "st")
    (tmp_path / "m.txt").write_text(
        block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("One\nTwo\nThree\n"))
        + block("w2", "fs.write", path="notes/new/deep.txt", content="x")
    )
    in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    assert target.read_bytes() == b"\xef\xbb\xbfOne\r\nTwo\r\nThree"  # the file's conventions kept
    assert oct(target.stat().st_mode & 0o777) == "0o640"
    done = in_session("undo", ws, state, "--steps", "2")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == original and not (ws / "notes" / "new").exists()
    assert oct(target.stat().st_mode & 0o777) == "0o640"
    assert in_session("undo", ws, state).returncode == 6  # nothing left
    (tmp_path / "m2.txt").write_text(
        block("w3", "fs.write", path="notes/plan.txt", content="changed")
    )
    in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        str(tmp_path / "m2.txt"),
    )
    target.write_text("edited by hand\n")
    refused = in_session("undo", ws, state)
    assert refused.returncode == 6 and "changed since" in refused.stderr
    assert target.read_text() == "edited by hand\n"


def test_an_undone_change_is_marked_in_results_and_undo_list(ws: Path, tmp_path: Path) -> None:
    """The result blocks stay what the model was told; stderr and --json say the change was undone
    since, and `undo --list` keeps it, marked, instead of dropping it."""
    state = str(tmp_path / "st")
    (tmp_path / "m.txt").write_text(
        block("w1", "fs.write", path="notes/plan.txt", content="one")
        + block("w2", "fs.write", path="notes/other.txt", content="two")
        + block("r1", "fs.stat", path="README.md")
    )
    done = in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    assert in_session("undo", ws, state).returncode == 0  # w2, the newest
    again = in_session("results", ws, state, "--last")
    assert again.returncode == 0 and again.stdout == done.stdout
    assert (
        "w2 (fs.write notes/other.txt) was undone at " in again.stderr and "tell it" in again.stderr
    )
    assert "w1 (" not in again.stderr
    data = json.loads(in_session("results", ws, state, "--last", "--json").stdout)["data"]
    assert [(r["id"], r["undone"]) for r in data["results"]] == [
        ("w1", False),
        ("w2", True),
        ("r1", False),
    ]
    listing = in_session("undo", ws, state, "--list")
    lines = listing.stdout.splitlines()
    assert len(lines) == 2 and "w2, " in lines[0] and " undone at " in lines[0]
    assert "w1, " in lines[1] and "undone" not in lines[1]
    listed = json.loads(in_session("undo", ws, state, "--list", "--json").stdout)["data"]
    assert [c["command_id"] for c in listed["changes"]] == ["w1"]
    assert [c["command_id"] for c in listed["undone"]] == ["w2"] and listed["undone"][0][
        "undone_at"
    ] > 0


# --- more of section 8, through the real command -------------------------------------------------

DATA_KEYS = {"message", "workspace", "state_dir", "blocks", "results", "duplicates", "copy_text"}
RESULT_KEYS = {
    "id",
    "action",
    "path",
    "ok",
    "status",
    "summary",
    "error_code",
    "details",
    "truncated",
    "line",
    "dialect",
    "outcome",  # the record of what it did, or null (tests/cli/test_outcomes.py)
}


def test_json_data_has_the_declared_shape_for_every_kind_of_result(
    ws: Path, tmp_path: Path
) -> None:
    """The success path: data matches its declared schema, whatever the results were."""
    message = (
        "Prose.\n"
        + block("ok1", "fs.stat", path="README.md")
        + block("bad", "fs.reed", path="x")
        + "OPERATOR_CMD\nversion: 1\nEND_OPERATOR_CMD\n"
        + block("w1", "fs.write", path="a.txt", content="x")
    )
    (tmp_path / "m.txt").write_text(message)
    done = in_session(
        "exec",
        ws,
        tmp_path / "st",
        "--json",
        str(tmp_path / "m.txt"),
    )
    envelope = json.loads(done.stdout)
    check_envelope(envelope, done.returncode)
    data = envelope["data"]
    assert set(data) == DATA_KEYS and data["blocks"] == 4 and data["message"] == 1
    assert [set(r) for r in data["results"]] == [RESULT_KEYS] * 4
    assert [
        (r["id"], r["action"], r["ok"], r["status"], r["error_code"], r["line"])
        for r in data["results"]
    ] == [
        ("ok1", "fs.stat", True, "ok", None, 2),
        ("bad", None, False, "invalid", "ERR_UNKNOWN_ACTION", 8),
        (
            "operator-error-1-1",
            "operator.error",
            False,
            "invalid",
            "ERR_MISSING_REQUIRED_FIELDS",
            14,
        ),
        ("w1", "fs.write", False, "rejected", "ERR_NOT_APPROVED", 17),  # no --approve, no tty
    ]
    assert json.loads(data["results"][0]["details"])["path"] == "README.md"  # decoded, not base64
    # Nothing recorded: fs.stat shows no lines, the invalid blocks and the write did nothing.
    assert [r["outcome"] for r in data["results"]] == [None] * 4
    assert json.loads(data["results"][2]["details"]) == {
        "message": data["results"][2]["summary"],
        "related_id": None,
    }
    assert not (ws / "a.txt").exists()
    assert any("--approve" in w for w in envelope["warnings"])


def test_diagnostics_go_to_stderr_never_stdout(ws: Path, tmp_path: Path) -> None:
    message = (
        "END_OPERATOR_CMD\n"
        + block("r1", "fs.stat", path="README.md")
        + block("w1", "fs.delete", path="README.md")
    )
    done = in_session("exec", ws, str(tmp_path / "st"), stdin=message)
    assert done.returncode == 0
    assert [b["id"] for b in parse_blocks(done.stdout)] == ["r1", "w1"]
    assert "has no OPERATOR_CMD before it" in done.stderr and "--approve all" in done.stderr
    assert (ws / "README.md").exists()


def test_an_empty_message_prints_nothing_and_says_why_on_stderr(ws: Path, tmp_path: Path) -> None:
    done = in_session(
        "exec",
        ws,
        tmp_path / "st",
        "-",
        stdin="Just prose, no commands.\n",
    )
    assert (
        done.returncode == 0
        and done.stdout == ""
        and "no OPERATOR_CMD or <\U0001d49e=string:...> blocks" in done.stderr
    )
    as_json = json.loads(in_session("exec", ws, str(tmp_path / "st2"), "--json", stdin="").stdout)
    check_envelope(as_json, 0)
    assert as_json["data"]["results"] == [] and as_json["data"]["copy_text"] == ""


def test_a_message_that_is_not_utf8_is_still_processed(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_bytes(
        block("r1", "fs.stat", path="README.md").encode() + b"caf\xe9 au lait\n"
    )
    done = in_session("exec", ws, str(tmp_path / "st"), str(tmp_path / "m.txt"))
    assert done.returncode == 0 and [b["ok"] for b in parse_blocks(done.stdout)] == [True]
    assert "not valid UTF-8" in done.stderr


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_a_utf16_message_with_its_byte_order_mark_is_read(
    encoding: str, ws: Path, tmp_path: Path
) -> None:
    """What PowerShell's > writes: without this every block would be lost to replaced bytes."""
    text = "Here it is.\r\n" + block("r1", "fs.stat", path="README.md").replace("\n", "\r\n")
    (tmp_path / "m.txt").write_bytes(("\ufeff" + text).encode(encoding))
    done = in_session("exec", ws, str(tmp_path / "st"), str(tmp_path / "m.txt"))
    assert done.returncode == 0 and [(b["id"], b["ok"]) for b in parse_blocks(done.stdout)] == [
        ("r1", True)
    ]
    assert (
        f"the message is {encoding[:6].upper()} (it starts with its byte order mark)" in done.stderr
    )


@pytest.mark.parametrize(
    "args, code, error",
    [
        (["exec", "--workspace", "{ws}", "--bogus", "{msg}"], 2, "USAGE_ERROR"),
        (["exec", "{msg}"], 2, "USAGE_ERROR"),
        (["nosuch", "--workspace", "{ws}"], 2, "USAGE_ERROR"),
        (
            ["exec", "--workspace", "{ws}", "{tmp}"],
            4,
            "MESSAGE_UNREADABLE",
        ),  # a folder is no message
        (
            ["exec", "--workspace", "{ws}", "--state-dir", "{ws}/README.md", "{msg}"],
            5,
            "STATE_UNUSABLE",
        ),
    ],
)
def test_more_failures_have_their_documented_exit_code(
    args: list[str], code: int, error: str, ws: Path, tmp_path: Path
) -> None:
    (tmp_path / "m.txt").write_text(MESSAGE)
    filled = [a.format(ws=ws, tmp=tmp_path, msg=tmp_path / "m.txt") for a in args]
    as_json = run_app(*filled, "--json")
    assert as_json.returncode == code, as_json.stderr
    envelope = json.loads(as_json.stdout)
    check_envelope(envelope, code)
    assert envelope["error"]["code"] == error and envelope["error"]["suggestion"]


def test_refusals_before_the_message_runs_leave_no_state_and_touch_nothing(
    ws: Path, tmp_path: Path
) -> None:
    """phase "validation" means zero side effects: no state folder is made, the workspace is as it
    was."""
    before = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    (tmp_path / "m.txt").write_text(MESSAGE)
    for args in (
        ["--workspace", str(tmp_path / "missing"), str(tmp_path / "m.txt")],
        ["--workspace", str(ws), str(tmp_path / "missing.txt")],
    ):
        done = run_app(
            "exec", "--state-dir", str(tmp_path / "st"), "--approve", "all", "--json", *args
        )
        assert (
            done.returncode in (3, 4) and json.loads(done.stdout)["error"]["phase"] == "validation"
        )
        assert not (tmp_path / "st").exists()
    assert sorted(p.relative_to(ws) for p in ws.rglob("*")) == before


def test_no_sub_command_opens_the_tui_which_needs_a_terminal(ws: Path, tmp_path: Path) -> None:
    """`operator-app` alone is the TUI (the entry point routes it there, not to exec): without a
    terminal it says so and how to run headless, and touches nothing."""
    done = run_app("--workspace", str(ws), "--state-dir", str(tmp_path / "st"))
    assert done.returncode == 2 and done.stdout == ""
    assert (
        "USAGE_ERROR: the TUI needs a terminal; for scripts use: operator-app exec" in done.stderr
    )
    assert not (tmp_path / "st").exists()
    version = run_app("--version")
    assert version.returncode == 0 and version.stdout.strip() == __version__


def test_help_documents_the_exit_codes() -> None:
    done = run_app("exec", "--help")
    assert done.returncode == 0
    for text in (
        "0 the message was processed",
        "2 bad usage",
        "3 workspace missing or unusable",
        "4 message unreadable",
        "7 the output could not be written",
    ):
        assert text in done.stdout


def test_the_envelope_factory_derives_ok_and_refuses_contradictions() -> None:
    """respond() is the only way to an envelope: ok comes from the exit code, and a response that
    would contradict itself is a framework bug, refused."""
    from operator_app.cli.envelope import ErrorDetail, respond

    error = ErrorDetail("X", "went wrong", suggestion="do y")
    assert respond(exit_code=0, started=0.0, data={"a": 1})["ok"] is True
    failure = respond(exit_code=3, started=0.0, error=error)
    assert (
        failure["ok"] is False
        and failure["data"] is None
        and failure["error"]["retryable"] is False
    )
    cache_hit = respond(exit_code=0, started=0.0, not_modified=True)
    assert (
        cache_hit["data"] is None
        and cache_hit["error"] is None
        and cache_hit["meta"]["not_modified"] is True
    )
    for bad in ({"exit_code": 2}, {"exit_code": 0, "error": error}, {"exit_code": 0}):
        with pytest.raises(ValueError):
            respond(started=0.0, **bad)  # type: ignore[arg-type]


def test_no_module_but_the_factory_builds_an_envelope() -> None:
    """Command handlers never construct the envelope directly (docs/design.md, "The --json
    envelope")."""

    def builds_one(source: str) -> bool:  # a dict literal with the envelope's keys
        return all(
            re.search(rf"""["']{key}["']\s*:""", source)
            for key in ("ok", "data", "error", "warnings", "meta")
        )

    builders = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "operator_app").rglob("*.py")
        if builds_one(p.read_text(encoding="utf-8"))
    ]
    assert builders == ["operator_app/cli/envelope.py"]


def test_there_is_no_redirected_exit_code() -> None:
    from operator_app.cli import envelope

    codes = {
        value
        for name, value in vars(envelope).items()
        if name.startswith("EXIT_") and isinstance(value, int)
    }
    assert codes == {0, 1, 2, 3, 4, 5, 6, 7} and 13 not in codes


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_that_cannot_be_written_loses_no_result(ws: Path, tmp_path: Path) -> None:
    """A full disk under stdout: exit 7 with a one-line reason naming the command that prints the
    results again (no traceback), and `results --last` prints exactly what exec would have."""
    (tmp_path / "m.txt").write_text(MESSAGE)
    args = (
        "exec",
        "--workspace",
        str(ws),
        "--state-dir",
        str(tmp_path / "st"),
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    env = dict(os.environ, OPERATOR_TRASH="session")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [APP, *args],
            stdout=full,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    assert done.returncode == 7, done.stderr
    assert "Traceback" not in done.stderr
    assert "OUTPUT_FAILED" in done.stderr and "results --workspace DIR --last" in done.stderr
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"  # the work was done
    again = in_session("results", ws, str(tmp_path / "st"), "--last")
    assert again.returncode == 0
    assert [(b["id"], b["ok"]) for b in parse_blocks(again.stdout)] == [
        ("r1", True),
        ("w1", True),
        ("r2", True),
    ]


def test_get_interface_spec_returns_the_spec_file_exactly(ws: Path, tmp_path: Path) -> None:
    spec = (ROOT / "spec" / "interface.txt").read_bytes()
    spec.decode("ascii")  # plain ASCII, as the issue asks
    done = in_session(
        "exec",
        ws,
        tmp_path / "st",
        stdin=(
            "OPERATOR_CMD\nversion: 1\nid: spec\naction: operator.getInterfaceSpec\n"
            "END_OPERATOR_CMD\n"
        ),
    )
    (result,) = parse_blocks(done.stdout)
    assert result["ok"] and result["details"].encode("utf-8") == spec


def test_a_reused_id_in_a_later_message_is_err_duplicate_id_and_runs_nothing(
    ws: Path, tmp_path: Path
) -> None:
    state = str(tmp_path / "st")
    first = in_session(
        "exec",
        ws,
        state,
        stdin=block("w1", "fs.stat", path="README.md"),
    )
    assert [b["ok"] for b in parse_blocks(first.stdout)] == [True]
    again = in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        stdin=block("w1", "fs.delete", path="README.md"),
    )
    (result,) = parse_blocks(again.stdout)
    assert result["summary"].startswith(
        "Invalid OPERATOR_CMD (ERR_DUPLICATE_ID): id w1 was already used in this session "
        "(message 1)"
    )
    assert (ws / "README.md").exists()


def test_stat_json_has_exactly_the_spec_keys_and_comment_styles_resolve_aliases(
    ws: Path, tmp_path: Path
) -> None:
    message = (
        block("st", "fs.stat", path="src/app.py")
        + block("dir", "fs.stat", path=".")
        + block("all", "operator.getCommentStyle")
        + block("ts", "operator.getCommentStyle", language="typescript")
    )
    done = in_session("exec", ws, str(tmp_path / "st"), stdin=message)
    stat_file, stat_dir, styles, ts = (json.loads(b["details"]) for b in parse_blocks(done.stdout))
    assert list(stat_file) == ["path", "size", "isFile", "isDir", "mtimeMs", "ctimeMs"]
    assert (
        stat_file["path"] == "src/app.py"
        and stat_file["size"] == (ws / "src" / "app.py").stat().st_size
    )
    assert stat_file["isFile"] is True and stat_file["isDir"] is False
    assert isinstance(stat_file["mtimeMs"], int) and isinstance(stat_file["ctimeMs"], int)
    assert stat_dir["path"] == "." and stat_dir["isDir"] is True
    assert (
        list(styles) == ["styles"]
        and {"language": "ts", "type": "line", "line_prefix": "//"}.items()
        <= next(s for s in styles["styles"] if s["language"] == "ts").items()
    )
    assert ts == {"language": "ts", "type": "line", "line_prefix": "//"}


def test_rerunning_a_message_with_approve_all_applies_the_write_and_runs_the_read_after_it(
    ws: Path, tmp_path: Path
) -> None:
    """What stderr tells the person to do must work: the write no one was asked about was never
    run, so it is no repeat, and neither is the read after it, which waited with it: that read
    runs now and shows the change. The read before the write ran then and is answered with its
    earlier result, as a repeat (it read what it would read now)."""
    state = str(tmp_path / "st")
    (tmp_path / "m.txt").write_text(MESSAGE)
    first = in_session("exec", ws, state, str(tmp_path / "m.txt"))
    assert (
        f"--approve all {tmp_path / 'm.txt'}" in first.stderr
        and (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"
    )
    again = in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        str(tmp_path / "m.txt"),
    )
    blocks = parse_blocks(again.stdout)
    assert [(b["id"], b["ok"]) for b in blocks] == [("r1", True), ("w1", True), ("r2", True)]
    assert blocks[0]["summary"].startswith("already ran in message 1: Read notes/plan.txt")
    assert blocks[2]["summary"] == "Read notes/plan.txt lines 1-3 of 3"  # run now, not replayed
    assert blocks[2]["details"].endswith("3: Gamma")
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


def test_a_workspace_path_that_is_not_utf8_gives_valid_utf8_json(tmp_path: Path) -> None:
    root = os.fsencode(tmp_path) + b"/caf\xe9"
    os.makedirs(root + b"/notes")
    with open(root + b"/notes/a.txt", "wb") as handle:
        handle.write(b"hi\n")
    done = subprocess.run(
        [
            APP,
            "exec",
            "--workspace",
            os.fsdecode(root),
            "--state-dir",
            str(tmp_path / "st"),
            "--json",
        ],
        input=block("r1", "fs.read", path="notes/a.txt").encode(),
        capture_output=True,
    )
    envelope = json.loads(done.stdout.decode("utf-8"))  # strict: no stray byte in the output
    check_envelope(envelope, done.returncode)
    assert (
        envelope["data"]["workspace"].endswith("caf\\xe9")
        and envelope["data"]["results"][0]["details"] == "hi\n"
    )
    missing = subprocess.run(
        [APP, "exec", "--workspace", os.fsdecode(root + b"/gone"), "--json"],
        input=b"",
        capture_output=True,
    )
    assert (
        missing.returncode == 3
        and "caf\\xe9" in json.loads(missing.stdout.decode("utf-8"))["error"]["message"]
    )


def test_every_failure_envelope_has_a_suggestion(ws: Path, tmp_path: Path) -> None:
    done = in_session("undo", ws, str(tmp_path / "st"), "--json")
    assert done.returncode == 6
    envelope = json.loads(done.stdout)
    check_envelope(envelope, 6)
    assert (
        envelope["error"]["code"] == "NOTHING_TO_UNDO"
        and "undo --list" in envelope["error"]["suggestion"]
    )
