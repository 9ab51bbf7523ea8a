"""The table of a message's commands, one row per block keyed by the line where the block starts
(selecting a row scrolls the message to it). The summary is what a person reads, so it gets the
width: the status is a short icon and word, the error code leads the summary, the action column
shows only where the summary keeps room enough, and a long summary wraps (up to SUMMARY_LINES
lines; the details pane has all of it). Every column has a width decided here, from the table's
width and the ids and actions shown, so nothing is re-measured as rows arrive.

`sync` brings the table in step with a message's rows, touching only the cells that changed (or
rebuilding once when many did). Cells are Text, never markup: an id or a summary written by the
model is drawn as it is."""

from __future__ import annotations

import re
import time
from typing import NamedTuple

from rich.console import Console
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from ..display import printable
from ..state import NOT_RUN, UNDONE, WAITING, Row, bare_summary


class StatusLook(NamedTuple):
    """How the status column draws a status."""

    icon: str
    word: str
    style: str


# All the words fit STATUS_WIDTH, so the column never moves.
STATUS_LOOKS: dict[str, StatusLook] = {
    "ok": StatusLook("✓", "ok", "green"),
    "failed": StatusLook("✗", "failed", "bold red"),
    "invalid": StatusLook("✗", "invalid", "bold red"),
    "conflict": StatusLook("✗", "conflict", "bold red"),
    "rejected": StatusLook("⊘", "rejected", "magenta"),
    WAITING: StatusLook("●", "waiting", "bold yellow"),
    "running": StatusLook("…", "running", "cyan"),
    "pending": StatusLook("…", "pending", "yellow"),
    "duplicate": StatusLook("=", "repeat", "dim"),
    NOT_RUN: StatusLook("○", "not run", "yellow"),
    UNDONE: StatusLook("↶", "undone", "bold magenta"),
}
STATUS_WIDTH = max(len(f"{look.icon} {look.word}") for look in STATUS_LOOKS.values())
# an id column between these widths; a longer id ends in "…" (the details have it)
ID_WIDTHS = (2, 12)
ACTION_WIDTHS = (6, 16)
SUMMARY_ROOM = 48  # the action column shows only when the summary keeps at least this many columns
SUMMARY_LINES = 4  # a longer summary ends in "…" after this many lines
WRAPPED_KEPT = 2_000  # summaries kept wrapped
REBUILD_ABOVE = 12  # changed rows beyond which one rebuild is cheaper than cell updates
PADDING = 2  # DataTable pads each cell by one column on either side

FAILED = ("failed", "invalid", "conflict")
_CODE_RE = re.compile(r"ERR_[A-Z0-9_]+:")


class RowCells(NamedTuple):
    """What a row shows, before it is drawn; compared with the last one to update only what
    changed."""

    status: str
    command_id: str
    action: str
    summary: tuple[str, ...]  # wrapped to the summary column, one item a line


class Layout(NamedTuple):
    """The columns' widths, decided from the table's width and the rows shown."""

    id_width: int
    action_width: int  # 0: no action column
    summary_width: int


def status_cell(status: str) -> Text:
    look = STATUS_LOOKS.get(status, StatusLook("", status, ""))
    return Text(f"{look.icon} {look.word}".strip(), style=look.style, no_wrap=True)


def summary_of(row: Row) -> str:
    """What the summary column says of a row: the error code first for a failure (the status
    says only "failed"), what a running or waiting command works on, and for a change undone
    since, that it was."""
    result = row.result
    if row.status == UNDONE and result is not None:
        when = time.strftime("%H:%M", time.localtime(row.undone_at)) if row.undone_at else "since"
        return f"undone at {when} (the model still thinks it is there): {result.summary}"
    if result is not None and not result.ok and result.error_code and row.status != "rejected":
        return f"{result.error_code}: {bare_summary(result.summary, result, result.error_code)}"
    if row.summary:
        return bare_summary(row.summary, result, None)
    return " ".join(part for part in (row.action, row.path) if part)


def summary_lines(
    text: str, width: int, console: Console, limit: int = SUMMARY_LINES
) -> tuple[str, ...]:
    """`text` wrapped to `width` columns, at most `limit` lines, the last ending in "…" when
    cut. Pure but for the console, which only measures."""
    lines = [
        line.plain.rstrip()
        for line in Text(printable(text)).wrap(console, max(width, 8), overflow="fold")
    ]
    if len(lines) > limit:
        lines = lines[:limit]
        last = lines[-1]
        lines[-1] = (last[: max(width - 1, 0)] if len(last) >= width else last) + "…"
    return tuple(lines) or ("",)


class CommandTable(DataTable[object]):
    DEFAULT_CSS = "CommandTable { scrollbar-gutter: stable; }"

    class TopWanted(Message):
        """Home, or Up / PageUp on the first row: the person wants the message's first line, which
        the first row's block (selected, it scrolls the message to itself) may be far below."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self._cells: dict[str, RowCells] = {}  # row key -> what it shows
        self._rows: list[Row] = []
        self._layout: Layout | None = None
        self._wrapped: dict[tuple[str, int], tuple[str, ...]] = {}

    @property
    def column_names(self) -> list[str]:
        return [str(key.value) for key in self.columns]

    def reset(self) -> None:
        """Empty, for another message: its ids and actions decide the widths afresh."""
        self.clear(columns=True)
        self._cells, self._rows, self._layout = {}, [], None

    def action_scroll_home(self) -> None:
        super().action_scroll_home()
        if self.row_count:
            self.move_cursor(row=0)
        self.post_message(self.TopWanted())  # after the row's highlight, which scrolls to its block

    def action_cursor_up(self) -> None:
        at_top = not self.row_count or self.cursor_row == 0
        super().action_cursor_up()
        if at_top:
            self.post_message(self.TopWanted())

    def action_page_up(self) -> None:
        at_top = not self.row_count or self.cursor_row == 0
        super().action_page_up()
        if at_top:
            self.post_message(self.TopWanted())

    def selected_line(self) -> int | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def cell_text(self, row: int, column: str) -> str:
        """The text of one cell as it is drawn (its lines joined by spaces), by column name."""
        value = self.get_row_at(row)[self.column_names.index(column)]
        return " ".join(str(value).split("\n"))

    def on_resize(self, event: events.Resize) -> None:
        if self._rows and self._layout_for(self._rows) != self._layout:
            self.sync(self._rows)

    def _layout_for(self, rows: list[Row]) -> Layout:
        def clamp(values: list[int], bounds: tuple[int, int]) -> int:
            return min(max([bounds[0], *values]), bounds[1])

        id_width = clamp([len(printable(row.command_id or "?")) for row in rows], ID_WIDTHS)
        action_width = clamp([len(row.action or "") for row in rows], ACTION_WIDTHS)
        room = (
            self.scrollable_content_region.width
            - (STATUS_WIDTH + PADDING)
            - (id_width + PADDING)
            - PADDING
        )
        if room - (action_width + PADDING) < SUMMARY_ROOM:
            action_width = 0
        return Layout(
            id_width=id_width,
            action_width=action_width,
            summary_width=max(room - (action_width + PADDING if action_width else 0), 12),
        )

    def _add_columns(self) -> None:
        assert self._layout is not None
        layout = self._layout
        self.add_column("status", width=STATUS_WIDTH, key="status")
        self.add_column("id", width=layout.id_width, key="id")
        if layout.action_width:
            self.add_column("action", width=layout.action_width, key="action")
        self.add_column("summary", width=layout.summary_width, key="summary")

    def _cells_of(self, row: Row) -> RowCells:
        assert self._layout is not None
        summary, width = summary_of(row), self._layout.summary_width
        lines = self._wrapped.get((summary, width))
        if lines is None:  # every refresh asks again for every row: wrap each summary once
            if len(self._wrapped) > WRAPPED_KEPT:
                self._wrapped.clear()
            lines = self._wrapped[(summary, width)] = summary_lines(
                summary, width, self.app.console
            )
        return RowCells(
            status=row.status,
            command_id=printable(row.command_id or "?"),
            action=printable(row.action or ""),
            summary=lines,
        )

    def _display(self, cells: RowCells) -> list[Text]:
        drawn = [
            status_cell(cells.status),
            Text(cells.command_id, no_wrap=True, overflow="ellipsis"),
        ]
        if self._layout and self._layout.action_width:
            drawn.append(Text(cells.action, style="dim", no_wrap=True, overflow="ellipsis"))
        text = Text(
            "\n".join(cells.summary),
            style="dim" if cells.status == "duplicate" else "",
            no_wrap=True,
            overflow="ellipsis",
        )
        code = _CODE_RE.match(text.plain) if cells.status in FAILED else None
        if code:
            text.stylize("bold red", 0, code.end())
        drawn.append(text)
        return drawn

    def sync(self, rows: list[Row], *, tail: bool = False) -> None:
        """Show these rows, in this order. The cursor stays on its row; with `tail` (a message still
        running), a cursor on the last row (or none) moves on to the new last row."""
        selected = self.selected_line()
        at_end = selected is None or (bool(self._cells) and str(selected) == list(self._cells)[-1])
        layout = self._layout_for(rows)
        if layout != self._layout:
            self.clear(columns=True)
            self._cells, self._layout = {}, layout
            self._add_columns()
        self._rows = rows
        wanted = {str(row.line): self._cells_of(row) for row in rows}
        self._show(wanted)
        target = None
        if tail and at_end and rows:
            target = rows[-1].line
        elif selected is not None and str(selected) in wanted:
            target = selected
        if target is not None and self.row_count:
            index = self.get_row_index(str(target))
            if index != self.cursor_row:
                self.move_cursor(row=index)

    def _show(self, wanted: dict[str, RowCells]) -> None:
        """Bring the table's rows to `wanted`: the rows shown already updated where they changed
        (all drawn again when their order changed or many did), the new ones added."""
        keys = list(wanted)
        same_order = keys[: len(self._cells)] == list(self._cells)
        changed = (
            [key for key in keys[: len(self._cells)] if self._cells[key] != wanted[key]]
            if same_order
            else []
        )
        if not same_order or len(changed) > REBUILD_ABOVE:
            self.clear()
            self._cells = {}
        else:
            for key in changed:
                self._update_row(key, wanted[key])
        for key in keys[len(self._cells) :]:
            self.add_row(*self._display(wanted[key]), key=key, height=len(wanted[key].summary))
            self._cells[key] = wanted[key]

    def _update_row(self, key: str, cells: RowCells) -> None:
        # A summary that now wraps to another number of lines changes the row's height: it is set
        # before the cells are updated, and an update that re-measures makes the table take it in.
        row = self.rows[RowKey(key)]
        grown = row.height != len(cells.summary)
        row.height = len(cells.summary)
        for name, value in zip(self.column_names, self._display(cells), strict=True):
            self.update_cell(key, name, value, update_width=grown)
        self._cells[key] = cells
