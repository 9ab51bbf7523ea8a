"""What the app's mixins (workspace_session, message_flow, waiting_write,
copy_undo and bridge_control) may use of the app they are mixed into: its state objects
(app_state.py, one per concern, each changed by one module), the widgets it holds, and the
methods one mixin calls on another or on OperatorApp, each declared here once. It exists for the
type checker only: at run time a mixin's base is `object`, and OperatorApp provides all of this."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from ..engine import Workspace
    from .app_state import (
        AppOptions,
        BridgeState,
        Following,
        MessageBook,
        OpenWorkspace,
        OwnCopies,
        UndoState,
        WaitingWrite,
    )
    from .bridge_control import BridgeControl
    from .copies import CopyControl
    from .undo import UndoControl
    from .waiting_write import WaitingWriteControl
    from .widgets.bridge_badge import BridgeBadge
    from .widgets.command_table import CommandTable
    from .widgets.welcome import WelcomePanel

    class AppHost(App[None]):
        # The state, one object per concern (created by OperatorApp.__init__).
        options: AppOptions
        opened: OpenWorkspace
        book: MessageBook
        following: Following
        copies: OwnCopies
        undo_state: UndoState
        waiting: WaitingWrite
        bridge_state: BridgeState
        # Widgets held, not queried: a dialog may be the active screen.
        welcome: WelcomePanel
        table: CommandTable
        bridge_badge: BridgeBadge
        # The controllers the mixins call.
        bridge_control: BridgeControl
        waiting_write: WaitingWriteControl
        copy_control: CopyControl
        undo_control: UndoControl

        @property
        def workspace(self) -> Workspace | None: ...
        @property
        def bridge_on(self) -> bool: ...
        def status(self, text: str) -> None: ...
        def refresh_view(self, reset: bool = False) -> None: ...
        def show_message(self, number: int | None) -> None: ...
        def request_refresh(self, *, tail: bool = False) -> None: ...
        def start_message(self, text: str, source: str) -> None: ...
        def explain(self, action: str) -> None: ...
        def refresh_keys(self) -> None: ...
        def stopping(self) -> bool: ...
        async def leave(self) -> None: ...
else:
    AppHost = object
