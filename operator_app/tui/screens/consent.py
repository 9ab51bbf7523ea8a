"""The consent dialog of one write: action, path, +N -M, and the diff, syntax-highlighted and
scrollable. It answers "yes", "no" or "all" (approve the rest of this message)."""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...engine.plan import WritePlan


class ConsentScreen(ModalScreen[str]):
    BINDINGS = [
        Binding("y", "answer('yes')", "Apply"),
        Binding("n", "answer('no')", "Reject"),
        Binding("a", "answer('all')", "Apply all in this message"),
        Binding("escape", "answer('no')", "Reject", show=False),
    ]

    def __init__(self, plan: WritePlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        title = Text.assemble((f"{plan.action} ", "bold"), (plan.target.rel, "bold cyan"), "  ",
                              (f"+{plan.added}", "green"), " ", (f"-{plan.removed}", "red"),
                              f"   ({plan.command_id}, {plan.kind})")
        with Vertical(id="consent-box"):
            yield Static(title, id="consent-title")
            for note in plan.notes:
                yield Static(Text(f"note: {note}", style="yellow"))
            with VerticalScroll(id="consent-diff"):
                yield Static(self._diff_view(), id="consent-diff-text")
            yield Static(Text.from_markup("[b]y[/b] apply   [b]n[/b] reject   [b]a[/b] apply the rest of this message"),
                         id="consent-keys")
        yield Footer()

    def _diff_view(self) -> Syntax | Text:
        if self.plan.kind == "delete" and not self.plan.diff.startswith("---"):
            return Text(self.plan.diff, style="red")
        return Syntax(self.plan.diff or "(no textual change)", "diff", theme="ansi_dark", word_wrap=False)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
