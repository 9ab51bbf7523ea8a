"""The table of a message's commands: id, status, action, path and one-line summary, one row per
block keyed by the line where the block starts (selecting a row scrolls the message to it). The
status comes second so a narrow terminal still shows it. `sync` brings the table in step with a
message's rows, touching only the cells that changed (or rebuilding once when many did: DataTable
re-measures a whole column whenever a cell shrinks, which made per-cell updates of a 100-block
paste crawl)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ..display import printable
from ..state import NOT_RUN, WAITING, Row, bare_summary

STATUS_STYLE = {"ok": "green", "running": "cyan", WAITING: "bold yellow", "pending": "yellow",
                "rejected": "magenta", "duplicate": "dim", NOT_RUN: "yellow"}
COLUMNS = ("id", "status", "action", "path", "summary")
SUMMARY_CHARS = 110  # the details pane has the whole summary
REBUILD_ABOVE = 12  # changed cells beyond which one rebuild is cheaper than cell updates


def styled(status: str) -> Text:
    style = STATUS_STYLE.get(status, "bold red" if status.startswith("failed") else "")
    return Text(status, style=style)


def short_summary(row: Row) -> str:
    # The status column shows the error code already: repeated, it would fill a narrow column alone.
    summary = bare_summary(row.summary, row.result.error_code if row.result is not None else None)
    return summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1] + "…"


def cells_of(row: Row) -> tuple[str, ...]:
    return (printable(row.command_id or "?"), row.status, printable(row.action or ""), printable(row.path or ""),
            printable(short_summary(row)))


class CommandTable(DataTable[object]):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self._cells: dict[str, tuple[str, ...]] = {}  # row key -> the values shown

    def on_mount(self) -> None:
        for column in COLUMNS:
            self.add_column(column, key=column)

    def reset(self) -> None:
        # Columns too: a column keeps the width of its widest cell ever shown, so one long error
        # code in an earlier message would squeeze every later message's summaries.
        self.clear(columns=True)
        for column in COLUMNS:
            self.add_column(column, key=column)
        self._cells = {}

    def selected_line(self) -> int | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def sync(self, rows: list[Row], *, tail: bool = False) -> None:
        """Show these rows, in this order. The cursor stays on its row; with `tail` (a message still
        running), a cursor on the last row (or none) moves on to the new last row."""
        wanted = {str(row.line): cells_of(row) for row in rows}
        keys = list(wanted)
        selected = self.selected_line()
        at_end = selected is None or (bool(self._cells) and str(selected) == list(self._cells)[-1])
        same_order = keys[: len(self._cells)] == list(self._cells)
        changed = [(key, i) for key in keys[: len(self._cells)] for i, value in enumerate(wanted[key])
                   if self._cells[key][i] != value] if same_order else []
        touched = not same_order or bool(changed) or len(keys) > len(self._cells)
        if not same_order or len(changed) > REBUILD_ABOVE:
            self.clear()
            self._cells = {}
        else:
            for key, i in changed:
                self.update_cell(key, COLUMNS[i], self._display(i, wanted[key][i]), update_width=True)
                self._cells[key] = wanted[key]
        for key in keys[len(self._cells):]:
            self.add_row(*(self._display(i, v) for i, v in enumerate(wanted[key])), key=key)
            self._cells[key] = wanted[key]
        if touched:
            self.call_next(self._measured)
        target = None
        if tail and at_end and rows:
            target = rows[-1].line
        elif selected is not None and str(selected) in wanted:
            target = selected
        if target is not None and self.row_count:
            index = self.get_row_index(str(target))
            if index != self.cursor_row:
                self.move_cursor(row=index)

    def _measured(self) -> None:
        # Runs after the idle pass in which DataTable measures new cells. Its line cache is keyed on
        # a counter that measuring does not bump, so a line drawn between a change and that pass
        # (the header, often) kept the old column widths until something else changed; redraw.
        self.notify_style_update()

    @staticmethod
    def _display(column: int, value: str) -> object:
        return styled(value) if COLUMNS[column] == "status" else value
