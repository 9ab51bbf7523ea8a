"""A command the model runs (engine/shell), while it runs: its output streams into its row and
the details pane (MessageState.apply), x stops it, and quitting asks first, then stops it; and
the palette's list of the commands always allowed in this workspace, to revoke them. A controller
(app_link.py), and the one that changes the RunningCommand (app_state.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import SystemCommand

from .screens.allowed_commands import AllowedCommandsScreen
from .screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from ..engine import CommandOutput
    from .app_link import AppLink
    from .app_state import OpenWorkspace, RunningCommand
    from .panes import Panes


class RunningCommandControl:
    def __init__(
        self, app: AppLink, panes: Panes, opened: OpenWorkspace, running: RunningCommand
    ) -> None:
        self.app, self.panes, self.opened, self.running = app, panes, opened, running

    def heard(self, number: int, event: CommandOutput) -> None:
        """A command's output so far (or its end)."""
        if self.running.output is None and not event.done:
            # It started: the question that stood on the status line ("y: run, n: decline") is
            # answered, and its keys do nothing now.
            self.panes.status(
                f"Message {number}: {event.command_id} runs; its output streams into the details "
                "pane; x stops it."
            )
        self.running.output = None if event.done else event
        self.running.number = number
        if event.done and self.running.quit_question is not None:
            self.running.quit_question.dismiss(True)  # it ended while the question was up
        self.app.refresh_keys()

    def action_stop_command(self) -> None:
        output = self.running.output
        if output is None:
            self.app.explain("stop_command")
            return
        output.stop()
        self.panes.status(
            f"Message {self.running.number}: stopping {output.command_id} (its whole process "
            "group; its changes are discarded)."
        )

    async def quit_first(self) -> bool:
        """Quitting while a command runs: asked first; on yes the command is stopped and the app
        leaves. True when this took the quit over (a command runs, or the question is up)."""
        output, asking = self.running.output, self.running.quit_question
        if asking is not None:  # ctrl+q again on the question: that is a yes
            asking.dismiss(True)
            return True
        if output is None:
            return False
        question = Text.assemble(
            (f"{output.command_id}", "bold"),
            f" has run {output.seconds:.0f} s and is still running. Quit anyway?\nIt is stopped "
            "(its whole process group), its changes are discarded, and the rest of message "
            f"{self.running.number} does not run.",
        )
        asking = self.running.quit_question = ConfirmScreen(
            "a command runs", question, yes="stop it and quit (ctrl+q again too)", no="stay"
        )

        async def answered(yes: bool | None) -> None:
            self.running.quit_question = None
            if yes:
                running = self.running.output
                if running is not None:
                    running.stop()
                await self.app.leave()

        self.app.dialog(asking, answered)
        return True

    def palette(self) -> Iterable[SystemCommand]:
        runner = self.opened.runner
        if runner is None:
            return
        root = runner.workspace.root
        yield SystemCommand(
            "Commands always allowed",
            "list the commands that run here without asking (r in a command's dialog), and "
            "revoke them",
            lambda: self.app.dialog(AllowedCommandsScreen(root)),
        )
