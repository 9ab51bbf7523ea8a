"""A workspace driven with whole messages through the real `operator-app exec --json` (in-process,
as tests/support/exec_folder.py does), for String blocks and OPERATOR_CMD blocks alike: each run
gives the envelope's results, its warnings and the copy-back text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.exec_folder import exec_envelope

S = "\U0001d49e"


def content(result: dict[str, Any]) -> str:
    """What a String response holds after its "---" (its content)."""
    details = result["details"] or ""
    return details.split("---\n", 1)[1] if "---\n" in details else ""


def context(result: dict[str, Any]) -> str:
    """The lines a String response has before its "---" (an error's, or a read's notes)."""
    return (result["details"] or "").split("---\n", 1)[0]


def chan(payload: str, topic: str = "t") -> str:
    """One String block as a model writes it, on lines of its own."""
    return f"<{S}=string:{topic}>{payload}</{S}>\n"


@dataclass
class Run:
    results: list[dict[str, Any]]
    warnings: list[str]
    copy_text: str
    message: int

    @property
    def one(self) -> dict[str, Any]:
        (result,) = self.results
        return result

    def text(self, index: int = 0) -> str:
        """A result as the model reads it: summary and details."""
        result = self.results[index]
        return f"{result['summary']}\n{result['details'] or ''}"


class Workspace:
    def __init__(self, tmp_path: Path, files: dict[str, str | bytes] | None = None) -> None:
        self.tmp, self.ws, self.state = tmp_path, tmp_path / "ws", tmp_path / "state"
        self.ws.mkdir(exist_ok=True)
        for rel, data in (files or {}).items():
            self.put(rel, data)
        self.sent = 0

    def put(self, rel: str, data: str | bytes) -> None:
        path = self.ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    def read(self, rel: str) -> str:
        return (self.ws / rel).read_text(encoding="utf-8")

    def exec(self, message: str, approve: str = "all", extra: tuple[str, ...] = ()) -> Run:
        self.sent += 1
        path = self.tmp / f"message-{self.sent}.txt"
        path.write_text(message, encoding="utf-8")
        envelope = exec_envelope(self.ws, self.state, path, approve, *extra)
        data = envelope["data"]
        return Run(data["results"], envelope["warnings"], data["copy_text"], data["message"])
