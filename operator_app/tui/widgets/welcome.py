"""The welcome panel shown while the session has no message yet: the loop in four steps, as it
goes with the browser bridge off (paste, copy back) or on (the answers stream in, the results go
back into the chat). A grid, so a step that wraps on a narrow terminal stays aligned under its
text."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

STEPS = (
    "Press [b]p[/b] to copy the system prompt, and paste it into your chat with the model.",
    "Ask the model for what you want; it answers with blocks of commands for Operator.",
    (
        "Paste its whole answer here. Reads run at once; each write shows its diff and waits for "
        "[b]y[/b] / [b]n[/b]."
    ),
    "Press [b]c[/b] to copy the results, and paste them back into the chat.",
)
BRIDGE_STEPS = (
    STEPS[0],
    "Ask the model in the chat: its answer streams in here while it is being written.",
    "Reads run at once; each write shows its diff here and waits for [b]y[/b] / [b]n[/b].",
    "The results go into the chat's input box: press Enter there to send them.",
)


def welcome(bridge: bool = False) -> Group:
    steps = Table.grid(padding=(0, 1))
    steps.add_column(justify="right")
    steps.add_column()
    for number, step in enumerate(BRIDGE_STEPS if bridge else STEPS, 1):
        steps.add_row(f"{number}.", Text.from_markup(step))
    if bridge:
        return Group(
            Text.from_markup(
                "[b]Welcome to Operator.[/b] The browser bridge is on; the loop, in four steps:"
            ),
            steps,
            Text.from_markup(
                "Press [b]b[/b] to turn the bridge off (then paste), [b]?[/b] for all keys."
            ),
        )
    return Group(
        Text.from_markup("[b]Welcome to Operator.[/b] The loop, in four steps:"),
        steps,
        Text.from_markup("Press [b]?[/b] for all keys."),
    )


class WelcomePanel(Static):
    def __init__(self) -> None:
        super().__init__(welcome(), id="welcome")

    def show_bridge(self, on: bool) -> None:
        """The steps as they go with the bridge on, or off."""
        self.update(welcome(bridge=on))
