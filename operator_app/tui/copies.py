"""Copies to the clipboard: a message's results (c, and auto-copy once its last result is in) and
the system prompt (p, of the dialect chosen in the palette). OSC 52 on the UI thread, then the
system clipboard and a saved file from a worker. A controller (app_link.py), and the one that
changes the OwnCopies (app_state.py): what Operator copied itself, which the clipboard watch does
not take for the model's answers."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from .. import settings
from ..protocol import Dialect, all_dialects, default_name, dialect_named, render_results
from .clipboard import deliver, where_saved
from .display import plural
from .messages import CopyDone
from .screens.copy_fallback import CopyFallbackScreen
from .state import UNDONE, MessageState

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import MessageBook, OpenWorkspace, OwnCopies
    from .panes import Panes


class CopyControl:
    def __init__(
        self,
        app: AppLink,
        panes: Panes,
        opened: OpenWorkspace,
        book: MessageBook,
        copies: OwnCopies,
    ) -> None:
        self.app, self.panes, self.opened = app, panes, opened
        self.book, self.copies = book, copies

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
                self.app.explain("copy_results")
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
            self.app.notify(
                f"{', '.join(undone)} {'was' if len(undone) == 1 else 'were'} undone since: "
                "the copied results still say the change was made. Tell the model it was undone.",
                severity="warning",
                timeout=15,
            )

    def action_copy_prompt(self) -> None:
        """The system prompt of the dialect chosen in the palette (OPERATOR_CMD unless String)."""
        runner = self.opened.runner
        folder = runner.session.state_dir if runner else settings.config_dir()
        dialect = prompt_dialect()
        what = f"the {dialect.title} system prompt"
        self._copy(dialect.prompt(), what, folder / "copies" / f"{dialect.name}-prompt.txt")

    def _copy(
        self, text: str, what: str, save_to: Path, *, note: str = "", auto: bool = False
    ) -> None:
        self.copies.texts.add(text.strip())
        self.app.copy_to_clipboard(text)  # the terminal's (OSC 52); also sets app.clipboard
        self.app.in_thread(partial(self._deliver, text, what, save_to, note, auto), group="copy")

    def _deliver(self, text: str, what: str, save_to: Path, note: str, auto: bool) -> None:
        """On a worker: the system clipboard and the saved file."""
        self.app.post_message(CopyDone(what, text, deliver(text, save_to), note=note, auto=auto))

    def copy_done(self, message: CopyDone) -> None:
        outcome = message.outcome
        size = "; ".join(part for part in (f"{outcome.chars:,} characters", message.note) if part)
        saved = f" Saved in {where_saved(outcome.saved_to)}." if outcome.saved_to else ""
        how = (
            f"the clipboard ({outcome.tool}) and the terminal's"
            if outcome.tool
            else "the terminal's clipboard (OSC 52)"
        )
        copied = "Copied automatically" if message.auto else "Copied"
        self.app.notify(
            f"{copied} {message.what} ({size}) to {how}.{saved}",
            title="Auto-copy (turn it off in the command palette)" if message.auto else "Copied",
        )
        self.panes.status(f"{copied} {message.what} ({size}): paste it into the chat.")
        if (
            outcome.tool is None
            and not settings.terminal_copy_trusted()
            and len(self.app.screen_stack) == 1
        ):
            self.app.dialog(
                CopyFallbackScreen(message.text, message.what, outcome.saved_to),
                lambda trusted: settings.trust_terminal_copy() if trusted else None,
            )

    # --- the palette's switches: what is copied, and when ------------------------------------

    def palette(self) -> Iterable[SystemCommand]:
        on = settings.auto_copy()
        yield SystemCommand(
            f"Auto-copy results: turn {'off' if on else 'on'}",
            "copy a message's result blocks as soon as its last result is in (remembered; "
            f"now {'on' if on else 'off'})",
            self.toggle_auto_copy,
        )
        chosen, following = prompt_dialect(), next_prompt_dialect()
        yield SystemCommand(
            f"Prompt dialect: switch p to {following.title}",
            "which system prompt p copies: "
            + ", or ".join(f"{d.title} ({d.block_form} blocks)" for d in all_dialects())
            + f" (remembered; now {chosen.title}); Operator runs them all",
            self.toggle_prompt_dialect,
        )

    def toggle_prompt_dialect(self) -> None:
        dialect = next_prompt_dialect()
        kept = settings.set_prompt_dialect(dialect.name)
        said = f"p now copies the {dialect.title} system prompt ({dialect.block_form} blocks)."
        self.app.notify(
            said if kept else said + " (Not remembered: the settings file cannot be written.)"
        )

    def toggle_auto_copy(self) -> None:
        on = not settings.auto_copy()
        kept = settings.set_auto_copy(on)
        said = (
            "Auto-copy is on: each message's result blocks are copied as soon as its last result "
            "is in."
            if on
            else "Auto-copy is off: press c to copy a message's results."
        )
        self.app.notify(
            said
            + ("" if kept else f" (Not remembered: {settings.settings_file()} cannot be written.)"),
            severity="information" if kept else "warning",
        )


def prompt_dialect() -> Dialect:
    """The dialect whose system prompt `p` copies (the settings name it; the table's default
    unless they name another that is known)."""
    chosen = settings.prompt_dialect()
    known = {dialect.name for dialect in all_dialects()}
    return dialect_named(chosen if chosen in known else default_name())


def next_prompt_dialect() -> Dialect:
    """The dialect after the chosen one, in the table's order (the palette's switch)."""
    dialects = all_dialects()
    return dialects[(dialects.index(prompt_dialect()) + 1) % len(dialects)]
