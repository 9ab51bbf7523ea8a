"""A write that waits for the person: its consent dialog (asked from the engine's worker, which
blocks until the answer), putting the decision off with escape and bringing the dialog back (d,
or enter on its row), and what cannot happen meanwhile, since the waiting message is not done:
undo, another workspace, and quitting without being asked. A controller (app_link.py), and the one
that changes the WaitingWrite (app_state.py)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from rich.text import Text

from ..engine import WriteOutlook, WritePlan
from .messages import ConsentAsked
from .screens.command_consent import consent_screen
from .screens.confirm import ConfirmScreen
from .screens.plan_dialog import PlanDialog
from .state import WAITING
from .status_text import answered_before_text, what_waits

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import MessageBook, WaitingWrite
    from .panes import Panes


class WaitingWriteControl:
    def __init__(
        self, app: AppLink, panes: Panes, book: MessageBook, waiting: WaitingWrite
    ) -> None:
        self.app, self.panes, self.book, self.waiting = app, panes, book, waiting

    def ask_consent(self, plan: WritePlan, number: int, outlook: WriteOutlook) -> str:
        """On a worker (the engine's, which this blocks): show the dialog, wait for the answer."""
        answered, answer = threading.Event(), []

        def done(value: str | None) -> None:
            answer.append(value or "no")
            answered.set()

        if not self.app.post_message(ConsentAsked(plan, number, outlook, done)):
            return "quit"  # the app is gone
        while not answered.wait(0.1):
            if self.app.stopping():
                return "quit"  # not "no": the person did not decline, they left
        return answer[0]

    def consent_asked(self, message: ConsentAsked) -> None:
        if self.app.stopping():
            # No answer: the waiting worker sees the app going and leaves the message unended.
            return
        self.waiting.write = message
        self.panes.refresh_view()  # the table shows the write waiting before the dialog covers it
        # Opened once the table has its new cells and the screen was redrawn with them: the
        # screen under a dialog is not redrawn until the dialog closes.
        self.panes.after_table_redraw(lambda: self._show_consent(message))

    def _show_consent(self, message: ConsentAsked) -> None:
        def answered(value: str | None) -> None:
            if value == "later":  # escape: the write keeps waiting, and the message with it
                self.panes.status(
                    f"Message {message.number}: {message.plan.action} on {message.plan.where} "
                    "still waits for you: d (or enter on its row) shows it again; the rest of the "
                    "message waits with it."
                )
                self.app.refresh_keys()
                return
            self.waiting.write = None
            self.app.refresh_keys()
            message.answer(value)

        screens = self.app.screen_stack
        if self.waiting.write is not message or any(
            isinstance(screen, PlanDialog) for screen in screens
        ):
            return
        if len(screens) > 1:
            # The person is typing into something else (the palette, the picker, a question): a
            # dialog opened under their fingers would take the next y or a as its answer. A write
            # streamed in from the browser can arrive at any moment, so it waits to be called up.
            plan = message.plan
            what = what_waits(plan)
            self.app.notify(
                f"{what[0].upper()}{what[1:]} waits for you: {plan.action} on {plan.target.rel} "
                f"(message {message.number}). Close this, then press d to see it.",
                severity="warning",
                # Short: the status line keeps saying it, and a note still up when the person
                # presses d would cover the dialog's keys.
                timeout=8,
            )
            self.panes.status(
                f"Message {message.number}: {plan.action} on {plan.target.rel} waits for you: "
                "d shows it."
            )
            self.app.refresh_keys()
            return
        before = answered_before_text(self.book.states.get(message.number))
        self.app.dialog(
            consent_screen(message.plan, message.number, message.outlook, before), answered
        )

    def action_decide(self) -> None:
        waiting = self.waiting.write
        if waiting is None:
            self.app.notify("No write waits for you.", severity="warning")
            return
        if self.book.view_number != waiting.number:
            self.panes.show_message(waiting.number)
        self._show_consent(waiting)

    def busy(self, what: str) -> bool:
        """A write waits for the person: its message is not done until they decide (the session
        is let go of meanwhile, but this app's runner still works on that message), so `what`
        cannot happen now. Says so."""
        waiting = self.waiting.write
        if waiting is None:
            return False
        self.app.notify(
            f"{waiting.plan.command_id} of message {waiting.number} waits for you: "
            f"decide it first (d), then {what}.",
            severity="warning",
        )
        return True

    def row_chosen(self) -> None:
        """Enter on a row of the table: on the write that waits, its dialog again."""
        row = self.panes.selected_row()
        if row is not None and row.status == WAITING and self.waiting.write is not None:
            self.action_decide()

    async def quit(self) -> None:
        waiting, asking = self.waiting.write, self.waiting.quit_question
        if waiting is not None and asking is None:
            question = Text.assemble(
                (f"{waiting.plan.action} on {waiting.plan.where}", "bold"),
                f" ({waiting.plan.command_id}) waits "
                "for your answer. Quit anyway?\nIt stays undecided: neither applied nor rejected, "
                f"and the rest of message {waiting.number} does not run (after a restart its "
                "commands show as not run).",
            )
            asking = self.waiting.quit_question = ConfirmScreen(
                f"{what_waits(waiting.plan)} waits for you",
                question,
                yes="quit (ctrl+q again too)",
                no="stay",
            )

            async def answered(yes: bool | None) -> None:
                self.waiting.quit_question = None
                if yes:
                    await self.app.leave()

            self.app.dialog(asking, answered)
            return
        if asking is not None:  # ctrl+q again on the question: that is a yes
            asking.dismiss(True)
            return
        await self.app.leave()
