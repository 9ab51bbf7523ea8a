"""The table of a message's commands: id, action, path, status and one-line summary, one row per
block keyed by the block's line, updated as engine events arrive."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

STATUS_STYLE = {"ok": "green", "running": "cyan", "waiting for you": "bold yellow", "pending": "yellow",
                "rejected": "magenta", "duplicate": "dim"}


def styled(status: str) -> Text:
    style = STATUS_STYLE.get(status, "bold red" if status.startswith("failed") else "")
    return Text(status, style=style)


class CommandTable(DataTable[object]):
    COLUMNS = ("line", "id", "action", "path", "status", "summary")

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for column in self.COLUMNS:
            self.add_column(column, key=column)

    def reset(self) -> None:
        self.clear()

    def upsert(self, line: int, command_id: str | None, action: str | None, path: str | None, status: str,
               summary: str = "") -> None:
        key = str(line)
        values = {"line": str(line), "id": command_id or "?", "action": action or "", "path": path or "",
                  "status": styled(status), "summary": summary}
        if key in self.rows:
            for column, value in values.items():
                if column in ("id", "action", "path") and not value:
                    continue
                self.update_cell(key, column, value, update_width=True)
        else:
            self.add_row(*values.values(), key=key)
