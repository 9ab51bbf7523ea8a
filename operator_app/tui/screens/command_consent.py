"""The consent dialog of a command the model wants to run (shell.run, a bash topic's script): the
exact script coloured as shell, the folder it starts in, its time limit, whether it may use the
network (w turns it on for this command) and whether it is sandboxed (in red when it is not: it
would change the files directly, with no review and no undo). It answers "yes", "network" (yes,
with the network), "always" (yes, and always allow this exact command in this workspace), "no",
"all" (run this, and apply the rest of the message's writes, asking once more as a write's dialog
does; the commands among them, and this one's change-set, still ask for themselves) or "later"
(escape). A command without a sandbox is run only on `y` itself: `a` and `r` are refused for it.
`consent_screen` picks this dialog or the write's for a plan."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Static

from ...engine import WriteOutlook, WritePlan
from ...protocol import dialect_of_action
from ..keys import COMMAND_KEYS
from ..widgets.script_view import ScriptView, ScriptWrapped, script_note
from .consent import ConsentScreen, SecretReadScreen, rest_text, second_look
from .help import KeysScreen
from .plan_dialog import PlanDialog


def facts(plan: WritePlan, network: bool) -> Text:
    run = plan.run
    assert run is not None
    # The folder as the results of the command's dialect name it, which the model reads too.
    dialect = dialect_of_action(plan.action)
    folder = dialect.folder(run.cwd) if dialect is not None else run.cwd
    lines = run.script.rstrip("\n").count("\n") + 1
    text = Text.assemble(
        (f"{plan.action} ", "bold"),
        "wants to run this " + (f"{lines}-line script" if lines > 1 else "command") + " in ",
        (folder, "bold cyan"),
        f"   time limit {run.timeout_s} s   network ",
        ("on" if network else "off", "bold yellow" if network else "bold"),
        "" if network or not run.sandboxed else " (w: allow it for this command)",
        (f"   id {plan.command_id}", "dim"),
        "\n",
    )
    if run.sandboxed:
        text.append_text(
            Text.assemble(
                ("sandboxed", "bold green"),
                ": it sees your files through an overlay and cannot change them; what it changed "
                "is shown to you afterwards, to apply or not.",
            )
        )
        for gap in run.sandbox_gaps:  # what this machine's sandbox lacks, said as plainly
            text.append_text(Text.assemble("\n", ("but ", "bold yellow"), (gap, "yellow")))
    else:
        text.append_text(
            Text.assemble(
                ("NOT SANDBOXED", "bold white on red"),
                (
                    f": {run.unsandboxed_why}. It changes your files directly: no review, no "
                    "undo. Only y runs it.",
                    "bold red",
                ),
            )
        )
    return text


class CommandConsentScreen(PlanDialog):
    BINDINGS = [
        Binding("y", "answer('yes')", "Run"),
        Binding("n", "answer('no')", "Decline"),
        Binding("a", "run_rest", "Run the rest"),
        Binding("w", "toggle_network", "Network"),
        Binding("r", "always", "Always allow"),
        Binding("escape", "answer('later')", "Decide later"),
        Binding("question_mark", "keys", "Keys"),
    ]

    def __init__(
        self,
        plan: WritePlan,
        message_number: int | None = None,
        outlook: WriteOutlook | None = None,
        *,
        before: str = "",
    ) -> None:
        super().__init__(plan, message_number, outlook, before=before)
        assert plan.run is not None
        self.network = plan.run.network

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="consent-box") as box:
            box.border_title = self._title(self.outlook)
            yield Static(facts(plan, self.network), id="consent-title")
            for note in plan.notes:  # not sandboxed: facts() says so, in red, from plan.run
                yield Static(Text(f"note: {note}", style="yellow"))
            if self.before:
                yield Static(Text(self.before, style="dim"), id="consent-before")
            yield Static(rest_text(self.outlook, plan.target.rel), id="consent-rest")
            # The whole script: wrapped, never cut, hidden characters escaped (issue 35).
            view = ScriptView(plan.run.script if plan.run else "", id="consent-diff")
            yield view
            said = script_note(view.shown, view.wrap_width)
            shown = Static(said, id="consent-script-note")
            shown.display = bool(said)
            yield shown
            more = (
                "   [b]a[/b] run this, apply the rest's writes (commands still ask)   "
                "[b]r[/b] run, and always allow this command here"
                if self._sandboxed()
                else ""
            )
            yield Static(
                Text.from_markup(
                    f"[b]y[/b] run   [b]n[/b] decline{more}   [b]w[/b] network on/off   "
                    "[b]esc[/b] decide later   [b]?[/b] keys   (nothing runs before you answer)"
                ),
                id="consent-keys",
            )
        yield Footer()

    def _title(self, outlook: WriteOutlook) -> str:
        where = f"message {self.message_number}: " if self.message_number else ""
        which = (
            f"change {outlook.position} of {outlook.total}" if outlook.total > 1 else "a command"
        )
        return f"{where}{which} waits for you: run this command?"

    def on_script_wrapped(self, event: ScriptWrapped) -> None:
        """Whether a line is wider than the view depends on the view: said again as it changes."""
        view = self.query_one(ScriptView)
        said = script_note(view.shown, event.width)
        shown = self.query_one("#consent-script-note", Static)
        shown.update(said)
        shown.display = bool(said)

    def show_outlook(self, outlook: WriteOutlook) -> None:
        self.query_one("#consent-box").border_title = self._title(outlook)
        self.query_one("#consent-rest", Static).update(rest_text(outlook, self.plan.target.rel))

    def _sandboxed(self) -> bool:
        return self.plan.run is not None and self.plan.run.sandboxed

    def action_answer(self, answer: str) -> None:
        if answer == "yes" and self.network and not (self.plan.run and self.plan.run.network):
            answer = "network"
        self.dismiss(answer)

    def action_keys(self) -> None:
        self.app.push_screen(KeysScreen("keys of a command's dialog", COMMAND_KEYS))

    def action_toggle_network(self) -> None:
        self.network = not self.network
        self.query_one("#consent-title", Static).update(facts(self.plan, self.network))

    def action_always(self) -> None:
        if not self._sandboxed():
            self.notify("A command without a sandbox runs only on y.", severity="warning")
            return
        self.dismiss("always" if not self.network else "always-network")

    def action_run_rest(self) -> None:
        if not self._sandboxed():
            self.notify("A command without a sandbox runs only on y.", severity="warning")
            return
        # `a` runs this command (the person reads it here) and applies the rest's writes; no
        # other command, and not this one's change-set: each asks for itself (issue 35).
        if not self.outlook.asks_again(self.plan.target.rel):
            self.dismiss("all")
            return
        self.ask_before_all(
            "run this and apply the rest unseen?",
            second_look(self.outlook, self.plan.target.rel, '"a" runs this command and applies '),
            yes="run this, apply them all",
            no="back to this command",
        )


def consent_screen(
    plan: WritePlan, number: int | None, outlook: WriteOutlook, before: str = ""
) -> PlanDialog:
    """The dialog of what waits: a command's, or a write's (a command's change-set is a write);
    `before` says what its message answered before it."""
    if plan.run is not None:
        return CommandConsentScreen(plan, number, outlook, before=before)
    if plan.kind == "read":  # a read of a secret-looking file
        return SecretReadScreen(plan, number, outlook, before=before)
    return ConsentScreen(plan, number, outlook, before=before)
