"""The welcome panel shown while the session has no message yet: the loop in four steps."""

from __future__ import annotations

from textual.widgets import Static

WELCOME = """[b]Welcome to Operator.[/b] The loop, in four steps:
  1. Press [b]p[/b] to copy the system prompt, and paste it into your chat with the model.
  2. Ask the model for what you want; it answers with OPERATOR_CMD blocks.
  3. Paste its whole answer here. Reads run at once; each write shows its diff and waits for [b]y[/b] / [b]n[/b].
  4. Press [b]c[/b] to copy the results, and paste them back into the chat.
Press [b]?[/b] for all keys."""


class WelcomePanel(Static):
    def __init__(self) -> None:
        super().__init__(WELCOME, id="welcome")
