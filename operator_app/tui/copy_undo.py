"""The two actions that reach outside the message view: copy (results or the system prompt: OSC 52
on the UI thread, then the system clipboard and a saved file from a worker) and undo (the journal
is read and the change reversed on workers; the confirmation in between is a dialog). A mixin of
OperatorApp, and the one that changes its OwnCopies and UndoState (app_state.py)."""

from __future__ import annotations

from pathlib import Path

from textual import work

from .. import settings
from ..engine.safety.journal import Journal
from ..engine.state.session import StateUnusable
from ..protocol.results import render_results
from .clipboard import deliver, where_saved
from .display import plural
from .host import AppHost
from .messages import CopyDone, UndoChecked, UndoDone
from .runner import EngineRunner
from .screens.copy_fallback import CopyFallbackScreen
from .screens.undo_confirm import UndoConfirmScreen
from .state import UNDONE, MessageState
from .status_text import why_not


class CopyUndoMixin(AppHost):
    # --- copy ------------------------------------------------------------------------------

    def action_copy_results(self) -> None:
        self.copy_results_of(self.book.current())

    def copy_results_of(self, state: MessageState | None, *, auto: bool = False) -> None:
        """Copy the result blocks of `state`'s message; `auto`: because its last result came in
        with auto-copy on (a message with no result then copies nothing, silently)."""
        runner = self.opened.runner
        results = (
            runner.session.results_of(state.number)
            if state is not None and runner is not None
            else []
        )
        if state is None or runner is None or not results:
            if not auto:
                self.notify(
                    why_not("copy_results", state, following=False, follow_name=None),
                    severity="warning",
                )
            return
        what = f"{plural(len(results), 'result block')} of message {state.number}" + (
            "" if state.finished else " so far"
        )
        self._copy(
            render_results(results),
            what,
            runner.session.state_dir / "copies" / f"message-{state.number}.txt",
            note="" if state.finished else "the message is still open",
            auto=auto,
        )
        undone = [row.command_id or "?" for row in state.ordered_rows() if row.status == UNDONE]
        if undone:
            self.notify(
                f"{', '.join(undone)} {'was' if len(undone) == 1 else 'were'} undone since: "
                "the copied results still say the change was made. Tell the model it was undone.",
                severity="warning",
                timeout=15,
            )

    def action_copy_prompt(self) -> None:
        """The system prompt of the dialect chosen in the palette (OPERATOR_CMD unless String)."""
        runner = self.opened.runner
        folder = runner.session.state_dir if runner else settings.config_dir()
        if settings.prompt_dialect() == "string":
            from ..protocol.chanflow.spec import string_prompt

            text, what, name = string_prompt(), "the String system prompt", "string-prompt.txt"
        else:
            from ..protocol.spec import system_prompt

            text, what, name = system_prompt(), "the system prompt", "system-prompt.txt"
        self._copy(text, what, folder / "copies" / name)

    def _copy(
        self, text: str, what: str, save_to: Path, *, note: str = "", auto: bool = False
    ) -> None:
        self.copies.texts.add(text.strip())
        self.copy_to_clipboard(text)  # the terminal's clipboard (OSC 52); also sets app.clipboard
        self.deliver_copy(text, what, save_to, note, auto)

    @work(thread=True, exit_on_error=False, group="copy")
    def deliver_copy(self, text: str, what: str, save_to: Path, note: str, auto: bool) -> None:
        self.post_message(CopyDone(what, text, deliver(text, save_to), note=note, auto=auto))

    def on_copy_done(self, message: CopyDone) -> None:
        outcome = message.outcome
        size = "; ".join(part for part in (f"{outcome.chars:,} characters", message.note) if part)
        saved = f" Saved in {where_saved(outcome.saved_to)}." if outcome.saved_to else ""
        how = (
            f"the clipboard ({outcome.tool}) and the terminal's"
            if outcome.tool
            else "the terminal's clipboard (OSC 52)"
        )
        copied = "Copied automatically" if message.auto else "Copied"
        self.notify(
            f"{copied} {message.what} ({size}) to {how}.{saved}",
            title="Auto-copy (turn it off in the command palette)" if message.auto else "Copied",
        )
        self.status(f"{copied} {message.what} ({size}): paste it into the chat.")
        if (
            outcome.tool is None
            and not settings.terminal_copy_trusted()
            and len(self.screen_stack) == 1
        ):
            self.push_screen(
                CopyFallbackScreen(message.text, message.what, outcome.saved_to),
                lambda trusted: settings.trust_terminal_copy() if trusted else None,
            )

    # --- undo ------------------------------------------------------------------------------

    def check_undo(self, ask: bool = False) -> None:
        runner = self.opened.runner
        if runner is not None:
            self._read_journal(runner, ask)

    @work(thread=True, exit_on_error=False, group="journal")
    def _read_journal(self, runner: EngineRunner, ask: bool) -> None:
        from ..engine.changes.undo import undoable

        try:
            journal = Journal(runner.session.state_dir)
            entries = undoable(runner.workspace, journal)
            undone = {
                command_id: entry.undone_at or entry.time
                for command_id, entry in journal.undone_by_command().items()
            }
        except (OSError, StateUnusable) as exc:
            self.post_message(UndoDone(f"Cannot read the undo journal: {exc}", False))
            return
        checked = UndoChecked(entries, ask, undone)
        checked.origin = runner
        self.post_message(checked)

    def on_undo_checked(self, message: UndoChecked) -> None:
        runner = self.opened.runner
        if message.origin is not runner or runner is None:
            return
        entries, known = message.entries, self.undo_state
        known.runner, known.can_undo, known.undone = runner, bool(entries), message.undone
        if any([state.mark_undone(message.undone) for state in self.book.states.values()]):
            self.request_refresh()
        self._refresh_footer()
        if not message.ask:
            return
        if not entries:
            self.notify(
                why_not("undo", None, following=False, follow_name=None), severity="warning"
            )
        elif len(self.screen_stack) == 1:  # a consent dialog came up meanwhile: it goes first

            def answered(yes: bool | None) -> None:
                if yes:
                    self.undo_last(runner, entries[0].seq)  # the change the dialog names

            self.push_screen(UndoConfirmScreen(entries[0], len(entries) - 1), answered)

    def action_undo(self) -> None:
        if not self._busy_with_a_write("undo"):
            self.check_undo(ask=True)

    @work(thread=True, exit_on_error=False, group="undo")
    def undo_last(self, runner: EngineRunner, confirmed: int) -> None:
        from ..engine.changes.outcomes import UndoRefused
        from ..engine.changes.undo import undo_last

        try:
            with (
                runner.session.lock()
            ):  # `confirmed`: the change the dialog named, not whatever is newest now
                done = undo_last(runner.workspace, runner.session.state_dir, 1, newest=confirmed)
            self.post_message(
                UndoDone("; ".join(o.summary for o in done) or "Nothing to undo.", True)
            )
        except (UndoRefused, StateUnusable) as exc:
            self.post_message(UndoDone(f"Undo refused: {exc}", False))

    def on_undo_done(self, message: UndoDone) -> None:
        self.notify(
            message.text,
            title="Undo",
            severity="information" if message.ok else "error",
            timeout=10,
        )
        self.status(
            message.text
            + (". The model still thinks the change is there: tell it." if message.ok else "")
        )
        self.check_undo()
