"""The details of the selected command: its decoded output, its error, or the diff of a write
(syntax-highlighted). Very long outputs are cut for display only; the copy is never cut."""

from __future__ import annotations

import json

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..state import Row

SHOWN_CHARS = 100_000


def _cut(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + f"\n[... {len(text) - SHOWN_CHARS} more characters not shown here; the copy has them all]"


def render_details(row: Row | None) -> RenderableType:
    if row is None:
        return Text("Select a command to see its output or diff.", style="dim")
    result = row.result
    head = Text()
    head.append(f"{row.command_id or '?'}  {row.action or ''}  {row.path or ''}".rstrip() + "\n", style="bold")
    if result is None:
        head.append(f"{row.status}: {row.summary}".rstrip(": "), style="yellow")
        parts: list[RenderableType] = [head]
        if row.diff:
            parts.append(Syntax(_cut(row.diff), "diff", theme="ansi_dark", word_wrap=True))
        return Group(*parts)
    head.append(result.summary + "\n", style="green" if result.ok else "bold red")
    if row.status == "duplicate":
        head.append("Not run again: the model sent this exact command before. Its earlier result is above.\n",
                    style="dim")
    parts = [head]
    details = result.details or ""
    if details.startswith(("{", "[")):
        try:
            details = json.dumps(json.loads(details), indent=2, ensure_ascii=False)
        except ValueError:
            pass
    if details:
        parts.append(Text(_cut(details)))
    if row.diff:
        parts.append(Syntax(_cut(row.diff), "diff", theme="ansi_dark", word_wrap=True))
    return Group(*parts)


class DetailsView(VerticalScroll):
    _shown: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(render_details(None), id="details-text")

    def show(self, row: Row | None) -> None:
        key = (id(row), row.status, row.summary, id(row.result), id(row.diff)) if row else None
        if key == self._shown and key is not None:
            return
        same_row = self._shown is not None and key is not None and self._shown[0] == key[0]
        self._shown = key
        self.query_one("#details-text", Static).update(render_details(row))
        if not same_row:
            self.scroll_home(animate=False)
