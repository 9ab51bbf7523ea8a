"""The consent dialog of one write: which write of its message it is, action, path, +N -M, what
`a` would apply after it, and the diff, syntax-highlighted and scrollable (a delete shows what goes
to the trash, a copy or move what goes where and the diff of a file it replaces). It answers
"yes", "no", "all" (approve the rest of this message's writes, asking once more when that includes
a delete or a file the dialog did not show; a command is never among them: each asks for itself)
or "later" (escape: the write keeps waiting). Nothing is written until the engine hears "yes", and
a key pressed before the dialog was on screen (a second y meant for the previous dialog) answers
nothing."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Static

from ...engine import WriteOutlook, WritePlan
from ..display import plural
from ..keys import CONSENT_KEYS, SECRET_READ_KEYS
from ..widgets.lines_view import CodeColours, LinesView, StyledLine, diff_lines, plain_lines
from .help import KeysScreen
from .plan_dialog import PlanDialog

WHAT = {
    "create": "creates",
    "modify": "changes",
    "delete": "moves to the trash",
    "copy": "copies",
    "move": "moves",
    "changeset": "applies what the command changed in",
}


def describe(plan: WritePlan) -> Text:
    if plan.kind == "read":  # a read of a secret-looking file (engine/changes/secret_read.py)
        return Text.assemble(
            (f"{plan.action} ", "bold"),
            "wants to read ",
            (plan.target.rel, "bold cyan"),
            ", which looks like a secret",
            (f"   id {plan.command_id}", "dim"),
        )
    what = "renames" if plan.action == "fs.rename" else WHAT.get(plan.kind, plan.kind)
    if plan.changes is not None:  # what a command changed: its files, with a diff each below
        return Text.assemble(
            (f"{plan.action} ", "bold"),
            "ran; apply what it changed? ",
            (plan.changes.describe(), "bold cyan"),
            "   ",
            (f"+{plan.added}", "bold green"),
            " ",
            (f"-{plan.removed}", "bold red"),
            (f"   id {plan.command_id}", "dim"),
        )
    if plan.target_to is not None:
        slash = "/" if plan.is_dir else ""
        title = Text.assemble(
            (f"{plan.action} ", "bold"),
            f"{what} ",
            (f"{plan.target.rel}{slash}", "bold cyan"),
            " to ",
            (f"{plan.target_to.rel}{slash}", "bold cyan"),
        )
        if plan.to_hash is not None:  # a file there is replaced: the diff below is of that file
            title.append_text(
                Text.assemble(
                    ", replacing the file there ",
                    (f"+{plan.added}", "bold green"),
                    " ",
                    (f"-{plan.removed}", "bold red"),
                )
            )
        return title.append(f"   id {plan.command_id}", "dim")
    if plan.kind == "delete" and plan.is_dir:
        # A folder has no line counts to show: "+0 -0" would read as "nothing happens".
        files = f"{plan.file_count} file{'s' if plan.file_count != 1 else ''}"
        return Text.assemble(
            (f"{plan.action} ", "bold"),
            f"{what} the folder ",
            (f"{plan.target.rel}/", "bold cyan"),
            " with ",
            (files, "bold red"),
            (f"   id {plan.command_id}", "dim"),
        )
    return Text.assemble(
        (f"{plan.action} ", "bold"),
        f"{what} ",
        (plan.target.rel, "bold cyan"),
        "   ",
        (f"+{plan.added}", "bold green"),
        " ",
        (f"-{plan.removed}", "bold red"),
        (f"   id {plan.command_id}", "dim"),
    )


def diff_view(plan: WritePlan) -> list[StyledLine]:
    diff = plan.diff or "(no textual change)"
    if plan.target_to is not None:
        # What goes where, then (over an existing file) the diff of the file it replaces.
        head, found, rest = diff.partition("\n--- ")
        lines = plain_lines(head)
        return lines + (
            diff_lines("--- " + rest, CodeColours.for_file(plan.target_to.rel)) if found else []
        )
    if not diff.startswith("---"):  # a folder delete or a binary file: a description, not a diff
        return plain_lines(diff, "del" if plan.kind == "delete" else "")
    return diff_lines(diff, CodeColours.for_file(plan.target.rel))


REST_SHOWN = 6  # writes listed by name under the title; more are counted


COMMANDS_ASK = 'Commands are never run by "a": each asks you when it comes.'


def rest_text(outlook: WriteOutlook, shown_path: str) -> Text:
    """What `a` applies after this write: each remaining write's action and path, deletes marked;
    and the commands among them, which `a` does not run (each asks for itself)."""
    writes = len(outlook.rest) - len(outlook.commands)
    if not outlook.rest:
        if outlook.open_ended:
            return Text(
                'The message is still arriving: "a" also applies the writes that arrive after '
                "this one (a command that arrives asks you first).",
                style="yellow",
            )
        return Text("Nothing else in this message waits for your yes.", style="dim")
    # The key is quoted: "Then a applies" reads as an article.
    text = Text(
        f'"a" also applies {plural(writes, "more write")} of this message:\n'
        if writes
        else 'Nothing more in this message is applied by "a":\n'
    )
    width = max(len(write.action) for write in outlook.rest[:REST_SHOWN])
    for write in outlook.rest[:REST_SHOWN]:
        if write.runs:
            text.append(f"  {write.action:<{width}}  ", style="bold yellow")
            text.append(f"asks you first: runs {write.command} (in {write.path})\n", style="yellow")
            continue
        text.append(f"  {write.action:<{width}}  ", style="bold red" if write.deletes else "bold")
        if write.deletes:
            path_style = "bold red"
        elif write.where != shown_path:
            path_style = "cyan"
        else:
            path_style = ""
        text.append(write.where, style=path_style)
        text.append("   moves it to the trash\n" if write.deletes else "\n", style="red")
    if len(outlook.rest) > REST_SHOWN:
        text.append(f"  ... and {len(outlook.rest) - REST_SHOWN} more\n", style="dim")
    if outlook.commands:
        text.append(COMMANDS_ASK + "\n", style="yellow")
    if outlook.open_ended:
        text.append(
            'The message is still arriving: "a" also applies the writes that arrive after these '
            "(a command that arrives asks you first).\n",
            style="yellow",
        )
    text.rstrip()
    return text


def second_look(
    outlook: WriteOutlook, shown_path: str, lead: str = '"a" applies this and '
) -> Text:
    """The question `a` asks when it would apply a delete, or a file the dialog did not show."""
    unseen = outlook.unseen(shown_path)
    writes = len(outlook.rest) - len(outlook.commands)
    text = Text.assemble(
        lead,
        (plural(writes, "more write"), "bold"),
        " without showing their diffs.\n",
    )
    deletes = [write for write in unseen if write.deletes]
    others = sorted({write.where for write in unseen if not write.deletes})
    if deletes:
        text.append("It moves to the trash: ", style="bold red")
        text.append(", ".join(write.path for write in deletes) + "\n", style="bold red")
    if others:
        text.append("It changes files not shown here: ")
        text.append(
            ", ".join(others[:REST_SHOWN])
            + (f" and {len(others) - REST_SHOWN} more" if len(others) > REST_SHOWN else "")
            + "\n",
            style="cyan",
        )
    if outlook.open_ended:
        text.append(
            "The message is still arriving: writes that arrive later are applied too, unseen.\n",
            style="yellow",
        )
    if outlook.commands or outlook.open_ended:
        text.append(COMMANDS_ASK + "\n", style="yellow")
    text.append("Apply them all?")
    return text


def box_title(outlook: WriteOutlook, message_number: int | None, kind: str = "write") -> str:
    where = f"message {message_number}: " if message_number else ""
    if kind == "read":
        return f"{where}a read of a secret-looking file waits for you"
    if outlook.total > 1:
        which = f"write {outlook.position} of {outlook.total}"
    elif kind == "changeset":
        return f"{where}a command's changes wait for you"
    else:
        which = "a write"
    return f"{where}{which} in this message waits for you"


READ_KEYS = Text.from_markup(
    "[b]y[/b] let it read   [b]n[/b] decline   [b]esc[/b] decide later   [b]?[/b] keys"
    "   (nothing is read before you answer)"
)
READ_REST = Text(
    "y: the model gets the file's content, and the chat's provider with it. n: the model is "
    "told you declined, and nothing is read.",
    style="yellow",
)


def keys_text(outlook: WriteOutlook) -> Text:
    rest = "this and the rest" if outlook.rest or outlook.open_ended else "this (the last one)"
    return Text.from_markup(
        f"[b]y[/b] apply   [b]n[/b] reject   [b]a[/b] apply {rest}   "
        "[b]esc[/b] decide later   [b]?[/b] keys"
        "   (nothing is written before you answer)"
    )


class ConsentScreen(PlanDialog):
    """Answers "yes", "no", "all", or "later" (escape: the write keeps waiting; the app can show
    this dialog again)."""

    BINDINGS = [
        Binding("y", "answer('yes')", "Apply"),
        Binding("n", "answer('no')", "Reject"),
        Binding("a", "apply_rest", "Apply the rest"),
        Binding("escape", "answer('later')", "Decide later"),
        Binding("question_mark", "keys", "Keys"),
    ]

    @property
    def follows_outlook(self) -> bool:
        return self.plan.kind != "read"

    def compose(self) -> ComposeResult:
        plan, outlook = self.plan, self.outlook
        reads = plan.kind == "read"
        with Vertical(id="consent-box") as box:
            box.border_title = box_title(outlook, self.message_number, plan.kind)
            yield Static(describe(plan), id="consent-title")
            for note in plan.notes:
                yield Static(Text(f"note: {note}", style="yellow"))
            if self.before:
                yield Static(Text(self.before, style="dim"), id="consent-before")
            yield Static(
                READ_REST if reads else rest_text(outlook, plan.target.rel), id="consent-rest"
            )
            yield LinesView(diff_view(plan), id="consent-diff")
            yield Static(READ_KEYS if reads else keys_text(outlook), id="consent-keys")
        yield Footer()

    def show_outlook(self, outlook: WriteOutlook) -> None:
        self.query_one("#consent-box").border_title = box_title(
            outlook, self.message_number, self.plan.kind
        )
        self.query_one("#consent-rest", Static).update(rest_text(outlook, self.plan.target.rel))
        self.query_one("#consent-keys", Static).update(keys_text(outlook))

    def action_apply_rest(self) -> None:
        if not self.outlook.asks_again(self.plan.target.rel):
            self.dismiss("all")
            return
        self.ask_before_all(
            "apply the rest unseen?",
            second_look(self.outlook, self.plan.target.rel),
            yes="apply them all",
            no="back to this write",
        )

    def action_keys(self) -> None:
        self.app.push_screen(KeysScreen("keys of the consent dialog", CONSENT_KEYS))


class SecretReadScreen(ConsentScreen, inherit_bindings=False):
    """A read of a file that looks like a secret (a plan of kind "read"): y lets the model read
    it, n declines; never one of "the rest", which are writes."""

    BINDINGS = [
        Binding("y", "answer('yes')", "Let it read"),
        Binding("n", "answer('no')", "Decline"),
        Binding("escape", "answer('later')", "Decide later"),
        Binding("question_mark", "keys", "Keys"),
    ]

    def action_keys(self) -> None:
        self.app.push_screen(KeysScreen("keys of the question before a read", SECRET_READ_KEYS))
