"""What the main screen's panes show: the shown message of the book (app_state.py) drawn into the
message view, the command table and the details, with its title and the status line; one
coalesced redraw for many events; browsing with [ and ]; the welcome panel and the bridge's
badge. A controller (app_link.py): the app composes the widgets and hands them over once
mounted; the other controllers say what to show through this one, never through a widget."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import SystemCommand
from textual.widgets import Static

from .display import plural
from .status_text import browsing_text

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import MessageBook, OpenWorkspace, WaitingWrite
    from .state import Row
    from .widgets.bridge_badge import BridgeBadge
    from .widgets.command_table import CommandTable
    from .widgets.details_view import DetailsView
    from .widgets.message_view import MessageView
    from .widgets.status import StatusLine
    from .widgets.welcome import WelcomePanel

REFRESH_DELAY_S = 0.05  # a 100-block paste posts 200 events at once: redraw once for many of them


class Panes:
    # The widgets, held, not queried (App.query_one looks at the active screen, which may be a
    # dialog); handed over by `attach` once the app is mounted.
    message_view: MessageView
    message_title: Static
    table: CommandTable
    details: DetailsView
    status_line: StatusLine
    welcome: WelcomePanel
    bridge_badge: BridgeBadge

    def __init__(
        self, app: AppLink, book: MessageBook, opened: OpenWorkspace, waiting: WaitingWrite
    ) -> None:
        self.app, self.book, self.opened, self.waiting = app, book, opened, waiting
        self._refresh_scheduled = False
        self._tail_next_refresh = False

    def attach(
        self,
        *,
        message_view: MessageView,
        message_title: Static,
        table: CommandTable,
        details: DetailsView,
        status_line: StatusLine,
        welcome: WelcomePanel,
        bridge_badge: BridgeBadge,
    ) -> None:
        self.message_view, self.message_title = message_view, message_title
        self.table, self.details, self.status_line = table, details, status_line
        self.welcome, self.bridge_badge = welcome, bridge_badge

    # --- what the others say ---------------------------------------------------------------

    def status(self, text: str) -> None:
        self.status_line.say(text)

    def show_welcome(self, shown: bool) -> None:
        """The welcome panel stands where the message will be, until there is one."""
        self.welcome.display = shown

    def show_bridge_tip(self, on: bool) -> None:
        """The welcome panel's lines about the bridge: how to use it while it is on."""
        self.welcome.show_bridge(on)

    def show_badge(self, badge: Text) -> None:
        """The bridge's state in the header."""
        self.bridge_badge.update(badge)

    def selected_row(self) -> Row | None:
        state, line = self.book.current(), self.table.selected_line()
        return state.rows.get(line) if state is not None and line is not None else None

    def after_table_redraw(self, work: Callable[[], object]) -> None:
        """Run `work` once the table has its new cells and the screen was redrawn with them (the
        screen under a dialog is not redrawn until the dialog closes)."""
        self.table.call_next(self.app.after_redraw, work)

    # --- the redraw ------------------------------------------------------------------------

    @property
    def redraw_pending(self) -> bool:
        return self._refresh_scheduled

    def request_refresh(self, *, tail: bool = False) -> None:
        """Redraw soon, once for all the changes until then; `tail`: the table's cursor follows
        the last rows this redraw brings."""
        self._tail_next_refresh = self._tail_next_refresh or tail
        if not self._refresh_scheduled:
            self._refresh_scheduled = True
            self.app.later(REFRESH_DELAY_S, self._scheduled_refresh)

    def _scheduled_refresh(self) -> None:
        self._refresh_scheduled = False
        if not self.app.stopping():
            self.refresh_view()

    def refresh_view(self, reset: bool = False) -> None:
        state, table = self.book.current(), self.table
        if reset:
            table.reset()
        if state is None:
            self.message_title.update("Message")
            self.message_view.show("", {})
        else:
            numbers = sorted(self.book.states)
            where = f"{numbers.index(state.number) + 1} of {len(numbers)}, {state.source}"
            where += ", interrupted" if state.interrupted else ""
            title = f"Message {state.number} ({where})" + ("" if state.finished else " running")
            self.message_title.update(title)
            self.message_view.show(
                state.text,
                state.errors_by_line(),
                state.pending[0] if state.pending else None,
                state.warnings,
                spans=state.spans,
                message=(self.opened.runner, state.number),
            )
            tail = not state.finished or self._tail_next_refresh
            table.sync(state.ordered_rows(), tail=tail and not reset)
        self._tail_next_refresh = False
        self.show_selected()
        self.app.refresh_keys()

    def show_selected(self) -> None:
        self.details.show(self.selected_row())

    def row_highlighted(self) -> None:
        self.show_selected()
        line = self.table.selected_line()
        if line is not None:
            self.message_view.scroll_to_line(line)

    def top_wanted(self) -> None:
        self.message_view.scroll_to_top()

    # --- which message is shown ------------------------------------------------------------

    def show_message(self, number: int | None) -> None:
        if self.book.show(number):
            self.refresh_view(reset=True)

    def browse(self, number: int | None) -> None:
        """Show message `number` at the person's request, and say on the status line where they
        are."""
        self.show_message(number)
        state = self.book.current()
        if number is not None and state is not None and state.number == number:
            self.status(browsing_text(state, self.waiting.command_in(number)))

    def action_previous_message(self) -> None:
        self._step(-1, "previous_message")

    def action_next_message(self) -> None:
        self._step(1, "next_message")

    def _step(self, step: int, action: str) -> None:
        number = self.book.neighbour(step)
        if number is None:  # from the command palette, where a dimmed entry still runs
            self.app.explain(action)
        self.browse(number)

    def palette(self) -> Iterable[SystemCommand]:
        """ "Go to message N" for each message of the session."""
        for number, state in sorted(self.book.states.items()):
            yield SystemCommand(
                f"Go to message {number}",
                f"{state.source}: {plural(len(state.results), 'result')}",
                lambda number=number: self.browse(number),
                discover=False,
            )
