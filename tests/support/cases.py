"""Running one protocol case from `fixtures/cases/` through the real `operator-app exec`.

A case is a whole assistant message (`<name>.txt`, bytes exactly as a chat gave them) with an
optional sidecar `<name>.json` (set-up, extra arguments, expectations) and an optional
`<name>.out` holding the exact stdout of a plain (non-JSON) run. `fixtures/cases/README.md`
describes the format; this module only knows how to set a case up and run it.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "fixtures" / "cases"
DEMO = ROOT / "fixtures" / "demo-workspace"
APP = str(Path(sys.executable).with_name("operator-app"))
DEFAULT_ARGS = (
    "--approve",
    "all",
)  # invalid blocks must change nothing even when writes are approved


@dataclass(frozen=True)
class Case:
    message: Path
    expected_code: str | None  # the folder's ERR code for invalid cases, None for valid ones
    spec: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.message.relative_to(CASES).with_suffix(""))

    @property
    def out(self) -> Path:
        return self.message.with_suffix(".out")

    def codes(self, results: int) -> list[str]:
        """Per result, in order: its error code, or "ok". Without a `codes` entry an invalid case
        has exactly one result, with the folder's code, and a valid case has only ok results."""
        if "codes" in self.spec:
            return list(self.spec["codes"])
        return [self.expected_code] if self.expected_code else ["ok"] * max(results, 1)

    @property
    def args(self) -> list[str]:
        return list(self.spec.get("args", DEFAULT_ARGS))


def load_cases(kind: str) -> list[Case]:
    found = []
    for message in sorted((CASES / kind).rglob("*.txt")):
        sidecar = message.with_suffix(".json")
        spec = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else {}
        code = message.parent.name if kind == "invalid" else None
        found.append(Case(message, code, spec))
    return found


def make_workspace(target: Path, setup: dict[str, Any]) -> Path:
    """A scratch copy of the demo workspace with the case's extra entries."""
    shutil.copytree(DEMO, target)
    for rel in setup.get("dirs", []):
        (target / rel).mkdir(parents=True, exist_ok=True)
    for rel, text in setup.get("files", {}).items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes(text.encode("utf-8"))
    for rel, data in setup.get("bytes_b64", {}).items():
        (target / rel).write_bytes(base64.b64decode(data))
    for rel, (unit, times, *prefix) in setup.get(
        "repeat", {}
    ).items():  # [unit, times, optional text before]
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes("".join(prefix).encode("utf-8") + unit.encode("utf-8") * times)
    for rel, link_to in setup.get("symlinks", {}).items():
        os.symlink(link_to, target / rel)
    for rel in setup.get("fifos", []):
        os.mkfifo(target / rel)
    return target


def run_app(
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`operator-app ARGS` as a person runs it, its output as text: no terminal on stdin (or
    `stdin` piped in), deletes into the session's own trash unless `env` says otherwise."""
    return subprocess.run(
        [APP, *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env if env is not None else dict(os.environ, OPERATOR_TRASH="session"),
    )


def in_session(
    command: str,
    ws: Path,
    state: Path | str,
    *rest: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`operator-app COMMAND --workspace WS --state-dir STATE REST...`."""
    return run_app(
        command, "--workspace", str(ws), "--state-dir", str(state), *rest, stdin=stdin, env=env
    )


def exec_app(
    ws: Path, state: Path, message: Path | None, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """`operator-app exec` as a person runs it: no terminal on stdin, the message from a file or
    stdin."""
    command = [APP, "exec", "--workspace", str(ws), "--state-dir", str(state), *args]
    if message is not None:
        command.append(str(message))
    env = dict(os.environ, OPERATOR_TRASH="session")
    return subprocess.run(
        command,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=60,
    )


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under root: file bytes, symlink targets, and the kind of anything else."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
        else:
            out[rel] = "dir" if path.is_dir() else "special"
    return out


def check_envelope(envelope: dict[str, Any], exit_code: int) -> None:
    """The envelope of docs/design.md, checked on every one: the five keys always there, `ok`
    derived from the exit code, never data and error both null outside a cache hit, a complete
    error on failure, and no redirect (Operator has no REDIRECTED exit code)."""
    assert set(envelope) == {"ok", "data", "error", "warnings", "meta"}, envelope.keys()
    assert envelope["ok"] is (exit_code == 0)
    assert isinstance(envelope["warnings"], list) and all(
        isinstance(w, str) for w in envelope["warnings"]
    )
    meta = envelope["meta"]
    assert isinstance(meta["duration_ms"], int) and meta["duration_ms"] >= 0
    assert meta["schema_version"] == "1.0"
    if exit_code == 0:
        assert envelope["error"] is None
        assert envelope["data"] is not None or meta.get("not_modified") is True
    else:
        assert envelope["data"] is None
        error = envelope["error"]
        assert {"code", "message", "retryable", "phase", "suggestion"} <= set(error), error
        assert (
            isinstance(error["code"], str)
            and error["code"]
            and isinstance(error["message"], str)
            and error["message"]
        )
        assert isinstance(error["retryable"], bool) and error["phase"] in (
            "validation",
            "execution",
            "cleanup",
        )
        assert "redirect" not in error
