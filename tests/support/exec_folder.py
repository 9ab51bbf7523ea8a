"""A workspace and its state folder under a test's tmp_path, driven through the real
`operator-app exec` and `undo` entry points (in-process, so a monkeypatch can reach the engine).
Shared by the write tests: `Folder` and `cli` (and `exec_json`,
`entries` for tests that keep their own workspace fixture)."""

from __future__ import annotations

import io
import json
import os
import random
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from operator_app.cli.main import main as cli_main
from tests.support.blocks import block


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


def exec_envelope(
    ws: Path, state: Path, path: Path, approve: str = "all", *extra: str
) -> dict[str, Any]:
    """The envelope `operator-app exec --approve APPROVE --json [EXTRA...]` prints for the message
    in `path` (no --approve when APPROVE is empty: no one to ask); fails unless it exits 0."""
    code, out, err = cli(
        "exec",
        "--workspace",
        str(ws),
        "--state-dir",
        str(state),
        *(("--approve", approve) if approve else ()),
        "--json",
        *extra,
        str(path),
    )
    assert code == 0, err
    envelope: dict[str, Any] = json.loads(out)
    return envelope


def exec_json(ws: Path, state: Path, message: str, approve: str = "all") -> list[dict[str, Any]]:
    """The results `operator-app exec --json` gives for `message` (written to a file beside
    state)."""
    path = state.parent / f"message-{random.random()}.txt"
    path.write_text(message, encoding="utf-8")
    return list(exec_envelope(ws, state, path, approve)["data"]["results"])


def entries(root: Path, *, exact: bool = False) -> dict[str, object]:
    """Every entry under root: a file's bytes and mode, a symlink's target, a folder; `exact` adds
    a file's mtime and a folder's mode (what an undo or a recovery must put back as it was)."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            info = path.stat()
            out[rel] = (path.read_bytes(), info.st_mode & 0o7777) + (
                (info.st_mtime_ns,) if exact else ()
            )
        else:
            out[rel] = ("dir", path.stat().st_mode & 0o7777) if exact else "dir"
    return out


def notes_tree(root: Path) -> Path:
    """A workspace at root with a small tree to copy, move and rename: notes/plan.txt and
    notes/old/v1.txt."""
    (root / "notes" / "old").mkdir(parents=True)
    (root / "notes" / "plan.txt").write_text("Alpha\nBeta\n")
    (root / "notes" / "old" / "v1.txt").write_text("first\n")
    return root


class Folder:
    """`files` (path -> bytes) are written into the workspace first; `ws` names another
    workspace folder than tmp_path/ws."""

    def __init__(
        self, tmp_path: Path, files: dict[str, bytes] | None = None, *, ws: Path | None = None
    ) -> None:
        self.tmp = tmp_path
        self.ws = ws or tmp_path / "ws"
        self.state = tmp_path / "state"
        self.ws.mkdir(exist_ok=True)
        for rel, data in (files or {}).items():
            (self.ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.ws / rel).write_bytes(data)
        self.messages = 0

    def exec(self, message: str, approve: str = "all") -> list[dict[str, Any]]:
        self.messages += 1
        path = self.tmp / f"message-{self.messages}.txt"
        path.write_text(message, encoding="ascii")
        return list(exec_envelope(self.ws, self.state, path, approve)["data"]["results"])

    def one(self, action: str, **fields: str) -> dict[str, Any]:
        (result,) = self.exec(block(f"c{self.messages + 1}", action, **fields))
        return result

    def undo(self, *extra: str, ws: Path | None = None) -> tuple[int, str, str]:
        return cli(
            "undo", "--workspace", str(ws or self.ws), "--state-dir", str(self.state), *extra
        )

    def read(self, rel: str) -> bytes:
        return (self.ws / rel).read_bytes()

    def tree(self) -> dict[str, bytes]:
        """Every file under the workspace (temporary files included, so a leftover shows)."""
        return {
            p.relative_to(self.ws).as_posix(): p.read_bytes()
            for p in sorted(self.ws.rglob("*"))
            if p.is_file()
        }

    def journal(self) -> Path:
        return self.state / "journal" / "entries.jsonl"

    def append_records(self, *records: dict[str, Any]) -> None:
        with self.journal().open("a") as handle:
            handle.write("".join(json.dumps(r) + "\n" for r in records))
