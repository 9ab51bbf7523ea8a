"""What the app's mixins (workspace_session, message_flow, waiting_write, copy_undo and
bridge_control) may use of the app they are mixed into: the state they share and the methods one
of them calls on another or on OperatorApp, declared once. It exists for the type checker only:
at run time a mixin's base is `object`, and OperatorApp provides all of this."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading
    from pathlib import Path

    from textual.app import App

    from ..bridge.server import BridgeServer
    from ..engine.boundary.workspace import Workspace
    from ..engine.changes.plan import WritePlan
    from .clipboard import ClipboardSource
    from .messages import ConsentAsked
    from .outlook import WriteOutlook
    from .runner import EngineRunner
    from .screens.confirm import ConfirmScreen
    from .state import MessageState
    from .widgets.bridge_badge import BridgeBadge
    from .widgets.command_table import CommandTable
    from .widgets.welcome import WelcomePanel

    class AppHost(App[None]):
        # The session and what is shown of it.
        runner: EngineRunner | None
        states: dict[int, MessageState]
        view_number: int | None
        welcome: WelcomePanel
        table: CommandTable
        # Where messages come from.
        _state_override: Path | None
        _state_owner: Path | None
        _follow_path: Path | None
        _followed: int | None
        _end_follow: threading.Event
        _initial_message: str | None
        _clipboard_source: ClipboardSource
        _poll_interval: float
        _clipboard_interval: float
        _tail_next_refresh: bool
        # Copies, undo and the write that waits.
        _own_copies: set[str]
        _can_undo: bool
        _undone: dict[str, float]  # command id -> when the change it made was undone
        _waiting: (
            ConsentAsked | None
        )  # the write whose consent dialog is open or was put off (escape)
        _quit_question: ConfirmScreen | None
        # The browser bridge.
        bridge: BridgeServer | None
        bridge_badge: BridgeBadge  # held, not queried: a dialog may be the active screen
        _bridge_port: (
            int | None
        )  # --bridge-port (0 in tests: any free port); None: the remembered one
        _held_question: (
            ConfirmScreen | None
        )  # "N answers ended while Operator was not listening — run them?"

        @property
        def workspace(self) -> Workspace | None: ...
        @property
        def bridge_on(self) -> bool: ...
        def current(self) -> MessageState | None: ...
        def status(self, text: str) -> None: ...
        def refresh_view(self, reset: bool = False) -> None: ...
        def show_message(self, number: int | None) -> None: ...
        def request_refresh(self) -> None: ...
        def check_undo(self, ask: bool = False) -> None: ...
        def start_message(self, text: str, source: str) -> None: ...
        def copy_results_of(self, state: MessageState | None, *, auto: bool = False) -> None: ...
        def bridge_workspace_changed(self) -> None: ...
        def _ask_consent(self, plan: WritePlan, number: int, outlook: WriteOutlook) -> str: ...
        def _busy_with_a_write(self, what: str) -> bool: ...
        def _refresh_footer(self) -> None: ...
        def _stopping(self) -> bool: ...
        async def _leave(self) -> None: ...
else:
    AppHost = object
