"""String's protocol cases (`fixtures/cases/string/`), each a whole assistant message run through
the real `operator-app exec --json` on a scratch copy of the demo workspace, as the OPERATOR_CMD
cases are (fixtures/cases/README.md): `invalid/<CODE>/<name>.txt` must answer with that String
error code (or the sidecar's `codes`, one per result) and leave the workspace as it was;
`valid/<name>.txt` must answer ok throughout. Sidecar keys beside those of the OPERATOR_CMD cases:
`contains` (texts the copy-back text holds), `file_after` (files' text afterwards),
`same_as_demo` (files back as the demo has them), `results` (how many results), `dialects`,
`actions` (each result's action: the command a refused block names, "/?" when none)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from operator_app.protocol.chanflow.errors import CATALOG, StringCode
from tests.support.cases import CASES, DEMO, check_envelope, exec_app, make_workspace, snapshot

STRING_CASES = CASES / "string"


def _cases(kind: str) -> list[tuple[Path, str | None, dict[str, Any]]]:
    found = []
    for message in sorted((STRING_CASES / kind).rglob("*.txt")):
        sidecar = message.with_suffix(".json")
        spec = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else {}
        found.append((message, message.parent.name if kind == "invalid" else None, spec))
    return found


INVALID = _cases("invalid")
VALID = _cases("valid")


def _run(message: Path, spec: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], Path]:
    ws = make_workspace(tmp_path / "ws", spec.get("setup", {}))
    done = exec_app(
        ws, tmp_path / "state", message, *spec.get("args", ["--approve", "all"]), "--json"
    )
    assert done.returncode == 0, done.stderr.decode()
    envelope = json.loads(done.stdout)
    check_envelope(envelope, done.returncode)
    return envelope, ws


def _check_common(envelope: dict[str, Any], spec: dict[str, Any]) -> list[dict[str, Any]]:
    data = envelope["data"]
    results = data["results"]
    for text in spec.get("contains", []):
        assert text in data["copy_text"], f"{text!r} not in:\n{data['copy_text']}"
    for text in spec.get("warnings_contain", []):
        assert any(text in w for w in envelope["warnings"]), envelope["warnings"]
    if "results" in spec:
        assert len(results) == spec["results"]
    if "dialects" in spec:
        assert [r["dialect"] for r in results] == spec["dialects"]
    if "actions" in spec:
        assert [r["action"] for r in results] == spec["actions"]
    for result in results:
        if result["dialect"] == "string":
            assert result["topic"].startswith(("file:", "bash:", "web:")) or "." in result["topic"]
            assert result["ok"] is (result["error_code"] is None)
    # One response block per result, in order, each closed.
    assert data["copy_text"].count("</\U0001d49e>") == sum(
        r["dialect"] == "string" for r in results
    )
    return results


@pytest.mark.parametrize(
    ("message", "code", "spec"),
    INVALID,
    ids=[str(m.relative_to(STRING_CASES)) for m, _, _ in INVALID],
)
def test_invalid_string_case(
    message: Path, code: str, spec: dict[str, Any], tmp_path: Path
) -> None:
    before = snapshot(make_workspace(tmp_path / "before", spec.get("setup", {})))
    envelope, ws = _run(message, spec, tmp_path)
    results = _check_common(envelope, spec)
    codes = spec.get("codes", [code])
    assert [r["error_code"] or "ok" for r in results] == codes, results
    for result in results:
        if result["error_code"]:
            assert result["summary"].startswith(f"\u2717 {result['error_code']}: "), result[
                "summary"
            ]
    after = snapshot(ws)
    assert {k: v for k, v in after.items()} == before, "an invalid case changed the workspace"


@pytest.mark.parametrize(
    ("message", "code", "spec"), VALID, ids=[str(m.relative_to(STRING_CASES)) for m, _, _ in VALID]
)
def test_valid_string_case(message: Path, code: None, spec: dict[str, Any], tmp_path: Path) -> None:
    envelope, ws = _run(message, spec, tmp_path)
    results = _check_common(envelope, spec)
    assert results and all(r["ok"] for r in results), [(r["id"], r["summary"]) for r in results]
    for rel, text in spec.get("file_after", {}).items():
        assert (ws / rel).read_text(encoding="utf-8") == text
    for rel in spec.get("same_as_demo", []):
        assert (ws / rel).read_bytes() == (DEMO / rel).read_bytes()


def test_every_string_code_a_message_can_provoke_has_a_case() -> None:
    """The codes no single message can provoke are in tests/engine/test_string_engine.py."""
    elsewhere = {
        StringCode.CONFLICT,
        StringCode.BLOCK_TOO_LARGE,
        StringCode.INTERNAL,
        StringCode.LINES_MOVED,  # needs an earlier change: tests/cli/test_line_numbers.py
    }
    # a bash topic's script timed out, stopped, or without a sandbox: tests/cli/test_shell.py
    elsewhere |= {StringCode.TIMEOUT, StringCode.KILLED, StringCode.NO_SANDBOX}
    folders = {path.name for path in (STRING_CASES / "invalid").iterdir() if path.is_dir()}
    assert folders == {code.value for code in CATALOG} - {code.value for code in elsewhere}


def test_every_command_has_a_case() -> None:
    from operator_app.protocol.chanflow.commands import COMMANDS
    from operator_app.protocol.message import scan_whole

    used = set()
    for message, _, _ in VALID + INVALID:
        for found in scan_whole(message.read_text(encoding="utf-8")).blocks:
            payload = getattr(found, "payload", "").lstrip()
            if payload.startswith("/"):
                used.add(payload[1:].split(None, 1)[0])
    assert {spec.name for spec in COMMANDS} <= used
