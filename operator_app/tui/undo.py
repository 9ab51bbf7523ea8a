"""Undo (u): the journal is read and the change reversed on workers, with the confirmation in
between a dialog; and what the journal says is kept up to date after every message, so the footer
dims u when nothing is left to undo and the rows of undone changes say so. A controller
(app_link.py), and the one that changes the UndoState (app_state.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine import Journal, StateUnusable
from .messages import UndoChecked, UndoDone
from .screens.undo_confirm import UndoConfirmScreen

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import MessageBook, OpenWorkspace, UndoState
    from .panes import Panes
    from .runner import EngineRunner
    from .waiting_write import WaitingWriteControl


class UndoControl:
    def __init__(
        self,
        app: AppLink,
        panes: Panes,
        opened: OpenWorkspace,
        book: MessageBook,
        known: UndoState,
        waiting_write: WaitingWriteControl,
    ) -> None:
        self.app, self.panes, self.opened, self.book = app, panes, opened, book
        self.known, self.waiting_write = known, waiting_write

    def action_undo(self) -> None:
        if not self.waiting_write.busy("undo"):
            self.check(ask=True)

    def check(self, ask: bool = False) -> None:
        """Read the journal again (on a worker); `ask`: then offer to undo its newest change."""
        runner = self.opened.runner
        if runner is not None:
            self.app.in_thread(lambda: self._read_journal(runner, ask), group="journal")

    def _read_journal(self, runner: EngineRunner, ask: bool) -> None:
        """On a worker."""
        from ..engine import undoable

        try:
            journal = Journal(runner.session.state_dir)
            entries = undoable(runner.workspace, journal)
            undone = {
                command_id: entry.undone_at or entry.time
                for command_id, entry in journal.undone_by_command().items()
            }
        except (OSError, StateUnusable) as exc:
            self.app.post_message(UndoDone(f"Cannot read the undo journal: {exc}", False))
            return
        checked = UndoChecked(entries, ask, undone)
        checked.origin = runner
        self.app.post_message(checked)

    def checked(self, message: UndoChecked) -> None:
        runner = self.opened.runner
        if message.origin is not runner or runner is None:
            return
        entries, known = message.entries, self.known
        known.runner, known.can_undo, known.undone = runner, bool(entries), message.undone
        if any([state.mark_undone(message.undone) for state in self.book.states.values()]):
            self.panes.request_refresh()
        self.app.refresh_keys()
        if not message.ask:
            return
        if not entries:
            self.app.explain("undo")
        elif len(self.app.screen_stack) == 1:  # a consent dialog came up meanwhile: it goes first

            def answered(yes: bool | None) -> None:
                if yes:  # the change the dialog names
                    self.app.in_thread(
                        lambda: self._undo_last(runner, entries[0].seq), group="undo"
                    )

            self.app.dialog(UndoConfirmScreen(entries[0], len(entries) - 1), answered)

    def _undo_last(self, runner: EngineRunner, confirmed: int) -> None:
        """On a worker."""
        from ..engine import UndoRefused, undo_last

        try:
            with (
                runner.session.lock()
            ):  # `confirmed`: the change the dialog named, not whatever is newest now
                done = undo_last(runner.workspace, runner.session.state_dir, 1, newest=confirmed)
            self.app.post_message(
                UndoDone("; ".join(o.summary for o in done) or "Nothing to undo.", True)
            )
        except (UndoRefused, StateUnusable) as exc:
            self.app.post_message(UndoDone(f"Undo refused: {exc}", False))

    def done(self, message: UndoDone) -> None:
        self.app.notify(
            message.text,
            title="Undo",
            severity="information" if message.ok else "error",
            timeout=10,
        )
        self.panes.status(
            message.text
            + (". The model still thinks the change is there: tell it." if message.ok else "")
        )
        self.check()
