"""The consent dialog of one write: action, path, +N -M, and the diff, syntax-highlighted and
scrollable (a delete shows what goes to the trash). It answers "yes", "no" or "all" (approve the
rest of this message); escape is "no". Nothing is written until the engine hears "yes", and a key
pressed before the dialog was on screen (a second y meant for the previous dialog) answers nothing."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...engine.plan import WritePlan
from ..widgets.lines_view import CodeColours, LinesView, StyledLine, diff_lines, plain_lines

WHAT = {"create": "creates", "modify": "changes", "delete": "moves to the trash"}


def describe(plan: WritePlan) -> Text:
    what = WHAT.get(plan.kind, plan.kind)
    if plan.kind == "delete" and plan.is_dir:
        # A folder has no line counts to show: "+0 -0" would read as "nothing happens".
        files = f"{plan.file_count} file{'s' if plan.file_count != 1 else ''}"
        return Text.assemble((f"{plan.action} ", "bold"), f"{what} the folder ", (f"{plan.target.rel}/", "bold cyan"),
                             " with ", (files, "bold red"), (f"   id {plan.command_id}", "dim"))
    return Text.assemble((f"{plan.action} ", "bold"), f"{what} ", (plan.target.rel, "bold cyan"), "   ",
                         (f"+{plan.added}", "bold green"), " ", (f"-{plan.removed}", "bold red"),
                         (f"   id {plan.command_id}", "dim"))


def diff_view(plan: WritePlan) -> list[StyledLine]:
    diff = plan.diff or "(no textual change)"
    if not diff.startswith("---"):  # a folder delete or a binary file: a description, not a diff
        return plain_lines(diff, "del" if plan.kind == "delete" else "")
    return diff_lines(diff, CodeColours.for_file(plan.target.rel))


class ConsentScreen(ModalScreen[str]):
    BINDINGS = [
        Binding("y", "answer('yes')", "Apply"),
        Binding("n", "answer('no')", "Reject"),
        Binding("a", "answer('all')", "Apply the rest of this message"),
        Binding("escape", "answer('no')", "Reject", show=False),
    ]

    def __init__(self, plan: WritePlan, message_number: int | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.message_number = message_number
        self._opened_at = float("inf")  # until mounted, no key is an answer

    @property
    def ready(self) -> bool:
        """Mounted: from now on a key pressed is an answer to this dialog."""
        return self._opened_at != float("inf")

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="consent-box") as box:
            where = f"message {self.message_number}: " if self.message_number else ""
            box.border_title = f"{where}a write waits for you"
            yield Static(describe(plan), id="consent-title")
            for note in plan.notes:
                yield Static(Text(f"note: {note}", style="yellow"))
            yield LinesView(diff_view(plan), id="consent-diff")
            yield Static(Text.from_markup(
                "[b]y[/b] apply   [b]n[/b] reject   [b]a[/b] apply this and the rest of this message"
                "   (nothing is written before you answer)"), id="consent-keys")
        yield Footer()

    def on_mount(self, event: events.Mount) -> None:
        self._opened_at = event.time  # the clock key events are stamped with when they are read
        self.query_one("#consent-diff").focus()  # arrows and page keys scroll the diff

    def on_key(self, event: events.Key) -> None:
        if event.time < self._opened_at:
            # Typed before this dialog existed, so not an answer to it: a double-pressed y would
            # otherwise apply the next write unseen.
            event.stop()
            event.prevent_default()

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
