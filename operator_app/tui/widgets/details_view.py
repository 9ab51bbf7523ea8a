"""The details of the selected command: its decoded output, its error, or the diff of a write.
`detail_lines` is the pure part (a row in, styled lines out); the view draws only what is on
screen, so a 200 KB read shows as fast as a one-line stat. Very long outputs are cut for display
only; the copy is never cut."""

from __future__ import annotations

import json
import time

from ...protocol import CommandResult
from ..state import UNDONE, Row
from .lines_view import CodeColours, LinesView, StyledLine, diff_lines, plain_lines, wrapped

SHOWN_CHARS = 400_000


def _cut(text: str) -> tuple[str, str | None]:
    if len(text) <= SHOWN_CHARS:
        return text, None
    return text[
        :SHOWN_CHARS
    ], f"[... {len(text) - SHOWN_CHARS:,} more characters not shown here; the copy has them all]"


def _body(text: str, style: str = "", *, diff_of: str | None = None) -> list[StyledLine]:
    shown, note = _cut(text)
    lines = (
        diff_lines(shown, CodeColours.for_file(diff_of))
        if diff_of is not None
        else plain_lines(shown, style)
    )
    return lines + ([StyledLine(note, "dim")] if note else [])


def detail_lines(row: Row | None, width: int = 80) -> list[StyledLine]:
    if row is None:
        return [StyledLine("Select a command to see its output or diff.", "dim")]
    lines = wrapped(
        f"{row.command_id or '?'}  {row.action or ''}  {row.path or ''}".rstrip(), "head", width
    )
    if row.result is None:
        lines += wrapped(f"{row.status}: {row.summary}".rstrip(": "), "warn", width)
        if row.live:  # a command running: its script, then its output so far, newest last
            if row.diff:
                lines += [StyledLine("")] + _body(row.diff, diff_of=row.path or "")
            return lines + [StyledLine("")] + _body(row.live)
    else:
        lines += _result_lines(row, row.result, width)
    if row.diff:
        lines += [StyledLine("")] + _body(row.diff, diff_of=row.path or "")
    return lines


def _result_lines(row: Row, result: CommandResult, width: int) -> list[StyledLine]:
    """A result's summary, what became of it since (undone, or a repeat's earlier result), and
    its details."""
    lines = wrapped(result.summary, "ok" if result.ok else "error", width)
    if row.status == UNDONE:
        when = time.strftime("%H:%M", time.localtime(row.undone_at)) if row.undone_at else "since"
        lines += wrapped(
            f"Undone at {when}: the file is back as it was before this change, but the model "
            "was told it was made. Tell it the change was undone.",
            "warn",
            width,
        )
    if row.status == "duplicate":
        lines += wrapped(
            "Not run again: the model sent this exact command before, and is given its "
            "earlier result again, marked as such (above).",
            "dim",
            width,
        )
    details = _indented(result.details or "")
    if details:
        lines += [StyledLine("")] + _body(details)
    return lines


def _indented(details: str) -> str:
    """Details that are JSON, indented to be read; others as they are."""
    if details.startswith(("{", "[")):
        try:
            return json.dumps(json.loads(details), indent=2, ensure_ascii=False)
        except ValueError:
            pass
    return details


class DetailsView(LinesView):
    _shown: tuple[object, ...] | None = None
    _row: Row | None = None
    # A running command's output is followed as it comes, like tail -f: its newest lines are the
    # ones that matter; once the person scrolls up to read, their place is kept until they scroll
    # back to the end. Kept as a state, not read off the offsets at each update: a scroll to the
    # end takes effect after the next refresh, and on a busy machine several updates come before
    # it, each of which would see the view short of the end and stop following (issue 36).
    _following = False
    _was_running = False

    def show(self, row: Row | None) -> None:
        width = self.text_width()
        key = (
            (id(row), row.status, row.summary, id(row.result), id(row.diff), width) if row else None
        )
        if key == self._shown and key is not None:
            return
        same_row = self._shown is not None and key is not None and self._shown[0] == key[0]
        running = row is not None and row.result is None and bool(row.live)
        # followed from when it starts running, or is shown anew, until the person scrolls up
        follow = running and (self._following or not (same_row and self._was_running))
        self._was_running = running
        self._shown, self._row = key, row
        self.set_lines(detail_lines(row, width), keep_scroll=same_row)
        if follow:
            self._following = True
            # At once, so what comes next finds the view at the end; and again after the layout,
            # which a scrollbar appearing can move by a line.
            self.scroll_end(animate=False, immediate=True)
            self.call_after_refresh(self._end_if_following)

    def _end_if_following(self) -> None:
        # Not Textual's deferred scroll_end: the person may scroll up before it lands, and their
        # place is kept then.
        if self._following:
            self.scroll_end(animate=False, immediate=True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value >= self.max_scroll_y - 1:
            self._following = True  # at the end (again): the newest lines are followed
        elif new_value < old_value:
            self._following = False  # the person scrolled up to read

    def on_resize(self) -> None:
        self.show(self._row)  # headings and summaries are wrapped to the width
