"""Which keys of the main screen apply now, and why one does nothing: `check_action` hides a key
from the footer (False) or dims it (None: it applies, just not now), and a dimmed key, pressed,
says why instead of leaving the person guessing. A mixin of OperatorApp; it only reads the app's
state (app_state.py)."""

from __future__ import annotations

from .host import AppHost
from .status_text import why_not


class KeyAvailabilityMixin(AppHost):
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        state = self.book.current()
        if action == "end_follow":
            if state is not None and self.bridge_streams(state.number):
                return True
            # Hidden unless a file is followed (then dimmed while nothing streams from it): the
            # bridge's messages show it only while one streams, or the footer overflows 80 columns.
            if self.options.follow is None:
                return False
            return True if self.following.open_message is not None else None
        if action == "copy_results":
            return True if state is not None and state.results else None
        if action in ("previous_message", "next_message"):
            return (
                True
                if self.book.neighbour(-1 if action == "previous_message" else 1) is not None
                else None
            )
        if action == "undo":
            # Hidden while a write waits (its message holds the session), so d has the room.
            if self.waiting.write is not None:
                return False
            return True if self.undo_state.can_undo_in(self.opened.runner) else None
        if action == "decide":
            return self.waiting.write is not None and len(self.screen_stack) == 1
        return True

    # A dimmed key's binding does not run; Textual then offers the key to these handlers, which
    # say why nothing happens instead of leaving the person guessing.
    def key_c(self) -> None:
        self._explain("copy_results")

    def key_u(self) -> None:
        if len(self.screen_stack) == 1:
            self.action_undo()  # reads the journal afresh: it says "nothing to undo" itself

    def key_e(self) -> None:
        self._explain("end_follow")

    def key_d(self) -> None:
        self._explain("decide")

    def key_left_square_bracket(self) -> None:
        self._explain("previous_message")

    def key_right_square_bracket(self) -> None:
        self._explain("next_message")

    def _explain(self, action: str) -> None:
        if len(self.screen_stack) == 1:
            follow = self.options.follow
            self.notify(
                why_not(
                    action,
                    self.book.current(),
                    following=follow is not None,
                    follow_name=follow.name if follow else None,
                ),
                severity="warning",
            )
