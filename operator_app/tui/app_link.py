"""What a controller may ask of the app, and nothing more: the controllers (workspace_session.py,
message_flow.py, waiting_write.py, copies.py, undo.py, bridge_control.py, panes.py) are plain
objects the app creates and routes to (app.py); this is their whole view of it. OperatorApp
provides it (the type checker holds it to that where the app hands itself to a controller).

Threads: a controller's worker (a method whose docstring begins "On a worker", run by `in_thread`
or by the engine) calls only `post_message`, `on_ui_thread` and `stopping` here; everything else,
the panes and every widget belong to the UI thread (tests/tui/test_state_owners.py checks it)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import Widget

Answer = TypeVar("Answer")


class AppLink(Protocol):
    # --- Textual's own, as App has them ---------------------------------------------------

    sub_title: str  # the header's second line: the open workspace

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    @property
    def screen(self) -> Screen[object]: ...
    @property
    def focused(self) -> Widget | None: ...
    @property
    def is_running(self) -> bool: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None: ...
    def post_message(self, message: Message) -> bool:
        """Thread-safe: how a worker tells the app what happened (the app routes it)."""
        ...

    def copy_to_clipboard(self, text: str) -> None:
        """The terminal's clipboard (OSC 52)."""
        ...

    # --- the app's own ----------------------------------------------------------------------

    def dialog(
        self, screen: Screen[Answer], answered: ScreenResultCallbackType[Answer] | None = None
    ) -> None:
        """Open `screen` over the others; `answered` gets what it is dismissed with."""
        ...

    def in_thread(self, work: Callable[[], object], *, group: str) -> None:
        """Run `work` on a thread worker of `group`: it posts messages, it touches no widget."""
        ...

    def in_loop(self, work: Coroutine[Any, Any, None], *, group: str) -> None:
        """Run `work` on the app's event loop; a newer one of `group` cancels the one running."""
        ...

    def on_ui_thread(self, work: Callable[[], object]) -> None:
        """From a worker: run `work` on the UI thread and wait for it."""
        ...

    def after_redraw(self, work: Callable[[], object]) -> None:
        """Run `work` once the screen was redrawn with what changed until now."""
        ...

    def later(self, delay: float, work: Callable[[], object]) -> None:
        """Run `work` on the UI thread in `delay` seconds."""
        ...

    def explain(self, action: str) -> None:
        """Say why the key of `action` does nothing now (its entry in keys.py)."""
        ...

    def refresh_keys(self) -> None:
        """What the keys depend on may have changed: redraw the footer if a key's state did."""
        ...

    def stopping(self) -> bool:
        """The app is closing (a worker waiting for the person gives up)."""
        ...

    async def leave(self) -> None:
        """Close the app (the bridge stopped first)."""
        ...
