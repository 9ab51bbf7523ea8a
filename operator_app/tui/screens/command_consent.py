"""The consent dialog of a command the model wants to run (shell.run, a bash topic's script): the
exact script coloured as shell, the folder it starts in, its time limit, whether it may use the
network (w turns it on for this command) and whether it is sandboxed (in red when it is not: it
would change the files directly, with no review and no undo). It answers "yes", "network" (yes,
with the network), "always" (yes, and always allow this exact command in this workspace), "no",
"all" (this and the rest of the message, asking once more first, since a command is a command)
or "later" (escape). A command without a sandbox is run only on `y` itself: `a` and `r` are
refused for it. `consent_screen` picks this dialog or the write's for a plan."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...engine import WriteOutlook, WritePlan
from ..widgets.lines_view import CodeColours, LinesView, StyledLine, diff_lines
from .confirm import ConfirmScreen
from .consent import ConsentScreen, rest_text, second_look

SHELL = CodeColours.for_file("script.sh")


def script_lines(script: str) -> list[StyledLine]:
    """The script as shell, each line coloured as bash code."""
    return diff_lines("\n".join(" " + line for line in script.split("\n")), SHELL)


def facts(plan: WritePlan, network: bool) -> Text:
    run = plan.run
    assert run is not None
    folder = "~/" if run.cwd == "." else f"~/{run.cwd}"
    text = Text.assemble(
        (f"{plan.action} ", "bold"),
        "wants to run this in ",
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


class CommandConsentScreen(ModalScreen[str]):
    BINDINGS = [
        Binding("y", "answer('yes')", "Run"),
        Binding("n", "answer('no')", "Decline"),
        Binding("a", "run_rest", "Run the rest"),
        Binding("w", "toggle_network", "Network"),
        Binding("r", "always", "Always allow"),
        Binding("escape", "answer('later')", "Decide later"),
    ]

    def __init__(
        self,
        plan: WritePlan,
        message_number: int | None = None,
        outlook: WriteOutlook | None = None,
    ) -> None:
        super().__init__()
        assert plan.run is not None
        self.plan = plan
        self.message_number = message_number
        self.outlook = outlook or WriteOutlook(1, 1, (), False)
        self.network = plan.run.network
        self._opened_at = float("inf")  # until mounted, no key is an answer

    @property
    def ready(self) -> bool:
        return self._opened_at != float("inf")

    def compose(self) -> ComposeResult:
        plan, outlook = self.plan, self.outlook
        with Vertical(id="consent-box") as box:
            where = f"message {self.message_number}: " if self.message_number else ""
            which = (
                f"change {outlook.position} of {outlook.total}"
                if outlook.total > 1
                else "a command"
            )
            box.border_title = f"{where}{which} waits for you: run this command?"
            yield Static(facts(plan, self.network), id="consent-title")
            for note in plan.notes:
                if not note.startswith("NOT sandboxed"):  # facts() says that one, in red
                    yield Static(Text(f"note: {note}", style="yellow"))
            yield Static(rest_text(outlook, plan.target.rel), id="consent-rest")
            yield LinesView(script_lines(plan.run.script if plan.run else ""), id="consent-diff")
            sandboxed = plan.run is not None and plan.run.sandboxed
            more = (
                "   [b]a[/b] run this and the rest   [b]r[/b] run, and always allow this command "
                "here"
                if sandboxed
                else ""
            )
            yield Static(
                Text.from_markup(
                    f"[b]y[/b] run   [b]n[/b] decline{more}   [b]w[/b] network on/off   "
                    "[b]esc[/b] decide later   (nothing runs before you answer)"
                ),
                id="consent-keys",
            )
        yield Footer()

    def on_mount(self, event: events.Mount) -> None:
        self._opened_at = event.time
        self.query_one("#consent-diff").focus()

    def on_key(self, event: events.Key) -> None:
        if event.time < self._opened_at:
            event.stop()  # typed before this dialog was on screen: not an answer to it
            event.prevent_default()

    def _sandboxed(self) -> bool:
        return self.plan.run is not None and self.plan.run.sandboxed

    def action_answer(self, answer: str) -> None:
        if answer == "yes" and self.network and not (self.plan.run and self.plan.run.network):
            answer = "network"
        self.dismiss(answer)

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

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss("all")

        # A command is never among what `a` applies unseen without this second look.
        self.app.push_screen(
            ConfirmScreen(
                "run this and the rest unseen?",
                second_look(self.outlook, self.plan.target.rel)
                if self.outlook.rest
                else Text("a runs this command and applies its changes unseen. Go ahead?"),
                yes="run and apply them all",
                no="back to this command",
            ),
            answered,
        )


def consent_screen(
    plan: WritePlan, number: int | None, outlook: WriteOutlook
) -> ConsentScreen | CommandConsentScreen:
    """The dialog of what waits: a command's, or a write's (a command's change-set is a write)."""
    if plan.run is not None:
        return CommandConsentScreen(plan, number, outlook)
    return ConsentScreen(plan, number, outlook)
