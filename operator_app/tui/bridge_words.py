"""What the TUI says about the browser bridge, in words a person reads at a glance: the question
about answers Operator did not hear being written, where results went, and the page's health as
the browser reports it. Text only: bridge_control.py decides when each is said."""

from __future__ import annotations

from rich.text import Text

from ..bridge.service import HeldAnswer, Tab
from .display import plural, printable

RUN_HELD = "Run the answers that ended while Operator was not listening"
BRIDGE_OFF = "Bridge off: paste the model's answers, or press b to turn the bridge on again."


def _it(count: int) -> str:
    return "it" if count == 1 else "them"


def happened(answers: list[HeldAnswer]) -> str:
    """What the answers did while Operator was not listening: "ended", "began" (the model still
    writes them all) or "came" (some of each)."""
    writing = sum(1 for answer in answers if answer.generating)
    if writing == 0:
        return "ended"
    return "began" if writing == len(answers) else "came"


def held_question(answers: list[HeldAnswer]) -> Text:
    """ "1 answer ended while Operator was not listening — run it?" and the answers, one a line.
    An answer the model still writes did not end: its line says so, and so does the headline."""
    count = len(answers)
    headline = (
        f"{plural(count, 'answer')} {happened(answers)} while Operator was not listening — "
        f"run {_it(count)}?"
    )
    lines = [Text(headline, style="bold")]
    for answer in answers:
        where = printable(answer.site) + (f": {printable(answer.title)}" if answer.title else "")
        state = ", the model still writes it" if answer.generating else ""
        lines.append(
            Text(
                f"  • {where} ({plural(answer.blocks, 'block')}, "
                f"{plural(len(answer.lines), 'line')}{state})"
            )
        )
    lines.append(
        Text(
            "Operator did not hear it being written (the bridge was off, Operator was closed, or "
            "the page was not watched yet), so it does not run by itself. Not now: the "
            f'palette\'s "{RUN_HELD}" runs {_it(count)} later, while the bridge is on.'
        )
    )
    return Text("\n").join(lines)


def delivered_note(number: int, count: int, sent: bool) -> str:
    what = plural(count, "result")
    if sent:
        return f"Message {number}: the browser sent {what} to the chat."
    verb = "is" if count == 1 else "are"
    return f"Message {number}: {what} {verb} in the chat's input box; send {_it(count)} there."


def health_note(before: Tab | None, now: Tab) -> str | None:
    """What the status line says of the page's health when it changes: a selector that finds
    nothing, the page read again (and whether a selector the person taught is what reads it), or
    nothing new."""
    if not now.adapter_ok and now.problem:
        if before is not None and not before.adapter_ok and before.problem == now.problem:
            return None
        return f"The browser says: {printable(now.problem)}"
    if before is not None and not before.adapter_ok and before.site == now.site:
        repaired = f" ({printable(now.repaired)})" if now.repaired else ""
        return f"The browser reads {printable(now.site)} again{repaired}."
    if now.repaired and (before is None or before.repaired != now.repaired):
        return f"The browser says: {printable(now.repaired)}."
    return None


def paused_note(writing: list[int]) -> str:
    """The bridge went off in the middle of answers: they wait for the rest of their text."""
    which = ", ".join(str(number) for number in writing)
    what = f"message {which} waits" if len(writing) == 1 else f"messages {which} wait"
    if not writing:
        what = "the answer being written waits"
    return (
        f"Bridge off: {what} for the rest of the answer, which runs on when the bridge is back "
        "(b); e ends it now."
    )
