"""What every dialog asking about a waiting plan shares (a write's, a command's, a secret read's):
the plan and where it stands in its message, no key taken as an answer before the dialog is on
screen (a second y meant for the previous dialog answers nothing), the scrollable view focused,
the outlook followed while the message still arrives (more writes came, or it ended, so `a`
answers what is shown), and the second look before `a` applies what the person has not seen.
Each dialog says what it shows and which answers it gives; this frame holds none of that."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.screen import ModalScreen
from textual.timer import Timer

from ...engine import WriteOutlook, WritePlan
from .confirm import ConfirmScreen

LOOK_AGAIN_S = 1.0  # how often a dialog opened while its message arrives looks at it again


class PlanDialog(ModalScreen[str]):
    """A dialog whose answer (a string the waiting write's controller knows) decides `plan`.
    Its view to scroll has the id `consent-diff`."""

    def __init__(
        self,
        plan: WritePlan,
        message_number: int | None = None,
        outlook: WriteOutlook | None = None,
        *,
        before: str = "",
    ) -> None:
        super().__init__()
        self.plan = plan
        self.message_number = message_number
        self.outlook = outlook or WriteOutlook(1, 1, (), False)
        # What the message answered before this (the table the dialog covers lists it): "" or
        # "Answered before it: 3 reads (3 ✓ ok); ..." (status_text.answered_before_text).
        self.before = before
        self._opened_at = float("inf")  # until mounted, no key is an answer
        self._looking: Timer | None = None

    @property
    def ready(self) -> bool:
        """Mounted: from now on a key pressed is an answer to this dialog."""
        return self._opened_at != float("inf")

    @property
    def follows_outlook(self) -> bool:
        """Whether what this dialog says of the rest of its message follows it while it arrives
        (a secret read's question says nothing of the rest)."""
        return True

    def on_mount(self, event: events.Mount) -> None:
        self._opened_at = event.time  # the clock key events are stamped with when they are read
        self.query_one("#consent-diff").focus()  # arrows and page keys scroll the view
        if self.outlook.now is not None and self.follows_outlook:
            self._looking = self.set_interval(LOOK_AGAIN_S, self._look_again)

    def on_key(self, event: events.Key) -> None:
        if event.time < self._opened_at:
            # Typed before this dialog existed, so not an answer to it: a double-pressed y would
            # otherwise apply the next write unseen.
            event.stop()
            event.prevent_default()

    def _look_again(self) -> None:
        now = self.outlook.now() if self.outlook.now is not None else self.outlook
        if now != self.outlook:
            self.outlook = now
            self.show_outlook(now)
        if now.now is None and self._looking is not None:
            self._looking.stop()

    def show_outlook(self, outlook: WriteOutlook) -> None:
        """Say again what the dialog says of the rest of its message, which changed."""

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)

    def ask_before_all(self, title: str, body: Text, *, yes: str, no: str) -> None:
        """`a` with something among the rest the person has not seen: asked once more, and
        answered "all" only on yes."""

        def answered(sure: bool | None) -> None:
            if sure:
                self.dismiss("all")

        self.app.push_screen(ConfirmScreen(title, body, yes=yes, no=no), answered)
