"""The welcome panel shown while the session has no message yet: the loop in four steps. A grid,
so a step that wraps on a narrow terminal stays aligned under its text."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

STEPS = (
    "Press [b]p[/b] to copy the system prompt, and paste it into your chat with the model.",
    "Ask the model for what you want; it answers with OPERATOR_CMD blocks.",
    (
        "Paste its whole answer here. Reads run at once; each write shows its diff and waits for "
        "[b]y[/b] / [b]n[/b]."
    ),
    "Press [b]c[/b] to copy the results, and paste them back into the chat.",
)


def welcome() -> Group:
    steps = Table.grid(padding=(0, 1))
    steps.add_column(justify="right")
    steps.add_column()
    for number, step in enumerate(STEPS, 1):
        steps.add_row(f"{number}.", Text.from_markup(step))
    return Group(
        Text.from_markup("[b]Welcome to Operator.[/b] The loop, in four steps:"),
        steps,
        Text.from_markup("Press [b]?[/b] for all keys."),
    )


class WelcomePanel(Static):
    def __init__(self) -> None:
        super().__init__(welcome(), id="welcome")
