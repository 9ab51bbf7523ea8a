"""A workspace and its state folder under a test's tmp_path, driven through the real
`operator-app exec` and `undo` entry points (in-process, so a monkeypatch can reach the engine).
Shared by the write tests; import it as `from exec_folder import Folder, cli`."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from operator_app.cli.main import main as cli_main
from support import block


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


class Folder:
    """`files` (path -> bytes) are written into the workspace first; `ws` names another
    workspace folder than tmp_path/ws."""

    def __init__(self, tmp_path: Path, files: dict[str, bytes] | None = None, *, ws: Path | None = None) -> None:
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
        code, out, err = cli("exec", "--workspace", str(self.ws), "--state-dir", str(self.state), "--approve", approve,
                             "--json", str(path))
        assert code == 0, err
        return list(json.loads(out)["data"]["results"])

    def one(self, action: str, **fields: str) -> dict[str, Any]:
        (result,) = self.exec(block(f"c{self.messages + 1}", action, **fields))
        return result

    def undo(self, *extra: str, ws: Path | None = None) -> tuple[int, str, str]:
        return cli("undo", "--workspace", str(ws or self.ws), "--state-dir", str(self.state), *extra)

    def read(self, rel: str) -> bytes:
        return (self.ws / rel).read_bytes()

    def tree(self) -> dict[str, bytes]:
        """Every file under the workspace (temporary files included, so a leftover shows)."""
        return {p.relative_to(self.ws).as_posix(): p.read_bytes() for p in sorted(self.ws.rglob("*")) if p.is_file()}

    def journal(self) -> Path:
        return self.state / "journal" / "entries.jsonl"

    def append_records(self, *records: dict[str, Any]) -> None:
        with self.journal().open("a") as handle:
            handle.write("".join(json.dumps(r) + "\n" for r in records))
