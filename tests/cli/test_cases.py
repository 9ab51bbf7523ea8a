"""The data-driven protocol cases of `fixtures/cases/`, each run through the real
`operator-app exec` in a subprocess on a scratch copy of the demo workspace.

- `invalid/<ERR_CODE>/<name>.txt`: the message yields the folder's code (or the `codes` of its
  sidecar, one per result in order), every invalid summary has the spec's form, and nothing in
  the workspace changes even with `--approve all`.
- `valid/<name>.txt`: every result is ok (or as `codes` says).
- `<name>.out` beside any case: the exact stdout of a plain run (message on stdin), equal to the
  envelope's copy_text (message from the file).

Cases a file cannot hold well (the 200,000-character window, the block limits at their exact
boundary) are built here, and run through the same command.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from operator_app.protocol.errors import ErrorCode
from tests.support.cases import (
    CASES,
    Case,
    check_envelope,
    exec_app,
    load_cases,
    make_workspace,
    snapshot,
)

INVALID = load_cases("invalid")
VALID = load_cases("valid")
RESULT_RE = re.compile(
    rb"OPERATOR_RESULT\nid: ([^\n]*)\nok: (true|false)\nsummary: ([^\n]*)\n"
    rb"(?:details_b64: ([A-Za-z0-9+/=]*)\n)?END_OPERATOR_RESULT\n"
)

# Codes no single message can provoke on a plain workspace; tests/test_error_codes.py reaches them.
NOT_FROM_A_MESSAGE = {
    ErrorCode.ERR_CONFLICT,
    ErrorCode.ERR_PERMISSION_DENIED,
    ErrorCode.ERR_INTERNAL,
    ErrorCode.ERR_IO,
    ErrorCode.ERR_DELETE_INCOMPLETE,  # a failing trash, not a message, provokes it
    # a person stopping a command, a machine without a sandbox, a sandbox that fails to build:
    # tests/cli/test_shell.py
    ErrorCode.ERR_COMMAND_KILLED,
    ErrorCode.ERR_NOT_SANDBOXED,
    ErrorCode.ERR_SANDBOX_FAILED,
}


def split_results(stdout: bytes) -> list[dict[str, Any]]:
    """The result blocks of a plain run; fails if stdout holds anything else."""
    blocks = []
    pos = 0
    for match in RESULT_RE.finditer(stdout):
        gap = stdout[pos : match.start()]
        assert gap == (b"" if pos == 0 else b"\n"), f"stdout holds more than result blocks: {gap!r}"
        pos = match.end()
        details = (
            base64.b64decode(match[4], validate=True).decode("utf-8")
            if match[4] is not None
            else None
        )
        blocks.append(
            {
                "id": match[1].decode(),
                "ok": match[2] == b"true",
                "summary": match[3].decode(),
                "details": details,
            }
        )
    assert stdout[pos:] == b"", f"stdout holds more than result blocks: {stdout[pos:]!r}"
    return blocks


def run_case(case: Case, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    ws = make_workspace(tmp_path / "ws", case.spec.get("setup", {}))
    before = snapshot(ws)
    done = exec_app(ws, tmp_path / "state", case.message, *case.args, "--json")
    assert done.returncode == 0, done.stderr.decode()
    envelope = json.loads(done.stdout)
    check_envelope(envelope, done.returncode)
    if case.expected_code is not None:
        assert snapshot(ws) == before, "an invalid case changed the workspace"
    return envelope, ws


def check_expectations(case: Case, envelope: dict[str, Any], tmp_path: Path) -> None:
    data = envelope["data"]
    results = data["results"]
    assert [r["error_code"] or "ok" for r in results] == case.codes(len(results)), [
        r["summary"] for r in results
    ]
    # One result per block, a repeat's included; an identical duplicate within the message is
    # ignored, as the protocol says (its warning says so).
    ignored = sum(1 for d in data["duplicates"] if d["message"] == data["message"])
    assert len(results) == data["blocks"] - ignored
    for result in results:
        assert result["ok"] is (result["error_code"] is None)
        assert "\n" not in result["summary"] and "\r" not in result["summary"]
        if result["status"] == "invalid":
            assert result["summary"].startswith(
                f"Invalid OPERATOR_CMD ({result['error_code']}): "
            ), result["summary"]
        if result["action"] == "operator.error":
            # docs/design.md, decision 5: no readable id -> a generated id and details
            # {"message", "related_id"}.
            assert re.fullmatch(rf"operator-error-{data['message']}-\d+", result["id"])
            details = json.loads(result["details"])
            assert set(details) == {"message", "related_id"} and details["related_id"] is None
            assert details["message"].startswith(result["summary"])
    summaries = "\n".join(r["summary"] for r in results)
    for text in case.spec.get("summary_contains", []):
        assert text in summaries, f"{text!r} not in {summaries}"
    details = "\n".join(r["details"] or "" for r in results)
    for text in case.spec.get("details_contain", []):
        assert text in details, f"{text!r} not in the details"
    for text in case.spec.get("warnings_contain", []):
        assert any(text in w for w in envelope["warnings"]), envelope["warnings"]
    if case.out.exists():
        # The plain run reads the message from stdin ("-"), the JSON run from the file: both ways
        # in.
        plain = exec_app(
            make_workspace(tmp_path / "ws2", case.spec.get("setup", {})),
            tmp_path / "state2",
            None,
            *case.args,
            "-",
            stdin=case.message.read_bytes(),
        )
        assert plain.returncode == 0
        assert plain.stdout == case.out.read_bytes()
        assert plain.stdout.decode("utf-8") == data["copy_text"]
        assert [b["id"] for b in split_results(plain.stdout)] == [r["id"] for r in results]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_invalid_case(case: Case, tmp_path: Path) -> None:
    assert case.expected_code in ErrorCode.__members__, f"{case.name}: folder is not an error code"
    assert case.expected_code in case.codes(1)
    envelope, _ = run_case(case, tmp_path)
    check_expectations(case, envelope, tmp_path)


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid_case(case: Case, tmp_path: Path) -> None:
    envelope, _ = run_case(case, tmp_path)
    check_expectations(case, envelope, tmp_path)


def test_every_code_a_message_can_provoke_has_a_case_folder() -> None:
    folders = {p.name for p in (CASES / "invalid").iterdir() if p.is_dir()}
    assert folders <= set(ErrorCode.__members__)
    assert {c.value for c in ErrorCode} - NOT_FROM_A_MESSAGE <= folders


def test_every_case_file_is_used() -> None:
    """A sidecar or expected output without its message is a case that silently never runs."""
    for path in CASES.rglob("*"):
        if path.suffix in (".json", ".out"):
            assert path.with_suffix(".txt").exists(), f"{path} has no message"


# --- generated cases: sizes a fixture file would only hide -------------------------------------


def write_block(cid: str, payload_chars: int) -> tuple[str, int]:
    """An fs.write block whose content_b64 has `payload_chars` characters, and the number of
    characters inside the block as the spec counts them (every inner line with its line break)."""
    assert payload_chars % 4 == 0
    inner = [
        "version: 1",
        f"id: {cid}",
        "action: fs.write",
        "path: notes/big.txt",
        "content_b64: " + base64.b64encode(b"a" * (payload_chars // 4 * 3)).decode(),
    ]
    return "OPERATOR_CMD\n" + "\n".join(inner) + "\nEND_OPERATOR_CMD\n", sum(
        len(line) + 1 for line in inner
    )


def sized_write_block(total: int) -> str:
    """A valid fs.write block with exactly `total` characters inside; the id's length absorbs
    what a base64 payload (a multiple of 4) cannot."""
    for pad in range(4):
        text, size = write_block("w" + "x" * pad, 0)
        if (total - size) % 4 == 0:
            text, size = write_block("w" + "x" * pad, total - size)
            assert size == total
            return text
    raise AssertionError("unreachable")


def run_message(tmp_path: Path, message: str, *args: str) -> dict[str, Any]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "message.txt"
    path.write_bytes(message.encode("utf-8"))
    done = exec_app(
        make_workspace(tmp_path / "ws", {}),
        tmp_path / "state",
        path,
        "--approve",
        "all",
        "--json",
        *args,
    )
    assert done.returncode == 0, done.stderr.decode()
    envelope = json.loads(done.stdout)
    check_envelope(envelope, 0)
    return envelope


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_block_of_exactly_50000_characters_runs_and_one_more_is_too_large(
    newline: str, tmp_path: Path
) -> None:
    at_limit = sized_write_block(50_000)
    over = sized_write_block(50_001)
    envelope = run_message(tmp_path, (at_limit + over).replace("\n", newline))
    assert [(r["ok"], r["error_code"]) for r in envelope["data"]["results"]] == [
        (True, None),
        (False, "ERR_BLOCK_TOO_LARGE"),
    ]
    assert (
        "has more than 50000 characters between its markers"
        in envelope["data"]["results"][1]["summary"]
    )


def test_block_of_exactly_200_lines_is_not_too_large_and_201_is(tmp_path: Path) -> None:
    def lines_block(cid: str, count: int) -> str:
        inner = ["version: 1", f"id: {cid}", "action: fs.read", "path: README.md"]
        inner += [f"note{n}: x" for n in range(count - len(inner))]
        return "OPERATOR_CMD\n" + "\n".join(inner) + "\nEND_OPERATOR_CMD\n"

    envelope = run_message(tmp_path, lines_block("l200", 200) + lines_block("l201", 201))
    # 200 lines pass the scanner; the note fields are ignored, and the summary says so in a few
    # words.
    assert [(r["id"], r["error_code"]) for r in envelope["data"]["results"]] == [
        ("l200", None),
        ("l201", "ERR_BLOCK_TOO_LARGE"),
    ]
    assert envelope["data"]["results"][0]["summary"].endswith(
        "; ignored fields: note0, note1, note2 and 193 more"
    )


STAT = "OPERATOR_CMD\nversion: 1\nid: {id}\naction: fs.stat\npath: README.md\nEND_OPERATOR_CMD\n"


def filler(chars: int) -> str:
    """Prose of exactly `chars` characters (>= 2), in lines of 100."""
    lines, rest = divmod(chars, 101)
    return ("x" * 100 + "\n") * lines + ("y" * (rest - 1) + "\n" if rest else "")


def test_a_block_cut_by_the_window_start_is_answered(tmp_path: Path) -> None:
    head, cut, tail = (
        "Earlier prose.\n",
        STAT.format(id="cut"),
        "Now the real one:\n" + STAT.format(id="inside"),
    )
    into_cut = (
        cut.index("action:") + 3
    )  # the window's first character falls inside the "action:" line
    message = head + cut + filler(200_000 - (len(cut) - into_cut) - len(tail)) + tail
    assert len(message) - 200_000 == len(head) + into_cut
    envelope = run_message(tmp_path, message)
    answered, inside = envelope["data"]["results"]
    assert inside["id"] == "inside" and inside["ok"]
    # The cut block gets an answer (its id line lies before the window: a generated id), so the
    # model learns that command never ran.
    assert (
        answered["action"] == "operator.error" and answered["error_code"] == "ERR_BLOCK_TOO_LARGE"
    )
    assert answered["summary"].startswith(
        "Invalid OPERATOR_CMD (ERR_BLOCK_TOO_LARGE): the block ending at line 7 starts before the "
        "last 200000 characters of the message"
    )
    warnings = " | ".join(envelope["warnings"])
    assert (
        f"the message is {len(message)} characters; only the last 200000 were scanned" in warnings
    )


def test_a_block_starting_exactly_at_the_window_start_runs(tmp_path: Path) -> None:
    block = STAT.format(id="first-in-window")
    message = (
        "Some earlier prose that falls out of the window.\n" + block + filler(200_000 - len(block))
    )
    assert len(message) - 200_000 == message.index("OPERATOR_CMD")
    envelope = run_message(tmp_path, message)
    assert [r["id"] for r in envelope["data"]["results"]] == ["first-in-window"]
    assert any("only the last 200000 were scanned" in w for w in envelope["warnings"])
    exact = run_message(
        tmp_path / "exact", message[-200_000:]
    )  # exactly the window: nothing is cut
    assert [r["id"] for r in exact["data"]["results"]] == ["first-in-window"] and exact[
        "warnings"
    ] == []
