"""The message as pasted, with its OPERATOR_CMD blocks highlighted: valid ones in one colour,
invalid ones in another with their error written where they stand, a pending one marked."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...protocol.scanner import scan_message

SHOWN_CHARS = 60_000  # the view shows the tail of very large pastes; the engine scans them whole


def render_message(text: str, errors: dict[int, str], pending_line: int | None = None) -> Text:
    """`errors`: start line of a block -> its error code and summary, for invalid blocks."""
    if not text:
        return Text("No message yet: paste the model's answer anywhere on this screen.", style="dim")
    cut = max(0, len(text) - SHOWN_CHARS)
    shown_text = text[cut:]
    first_line = text.count("\n", 0, cut) + 1
    lines = shown_text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    scan = scan_message(text)
    spans: dict[int, tuple[int, str, str | None]] = {}  # start line -> (end line, style, error)
    for block in scan.blocks:
        end = block.end_line or (first_line + len(lines))
        error = errors.get(block.start_line)
        spans[block.start_line] = (end, "on #3a1f1f" if error else "on #1f2a3a", error)
    if pending_line is not None:
        spans.setdefault(pending_line, (first_line + len(lines), "on #3a3a1f", None))
    out = Text(no_wrap=True, overflow="ellipsis")  # long base64 lines must not break the line numbering
    if cut:
        out.append(f"[... {cut} earlier characters not shown ...]\n", style="dim")
    active: tuple[int, str, str | None] | None = None
    for offset, line in enumerate(lines):
        number = first_line + offset
        active = spans.get(number, active)
        out.append(f"{number:>5} ", style="dim")
        out.append(line + "\n", style=active[1] if active else "")
        if active and number == active[0]:
            if active[2]:
                out.append(f"      ^ {active[2]}\n", style="bold red")
            active = None
    if pending_line is not None:
        out.append("      ... pending: this block has no END_OPERATOR_CMD yet\n", style="bold yellow")
    return out


class MessageView(VerticalScroll):
    _shown: tuple[int, int, tuple[tuple[int, str], ...], int | None] | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(Text("No message yet.", style="dim"), id="message-text")

    def show(self, text: str, errors: dict[int, str], pending_line: int | None = None) -> None:
        key = (id(text), len(text), tuple(sorted(errors.items())), pending_line)
        if key == self._shown:
            return  # results of valid blocks do not change the message: no need to redraw it
        self._shown = key
        self.query_one("#message-text", Static).update(render_message(text, errors, pending_line))
