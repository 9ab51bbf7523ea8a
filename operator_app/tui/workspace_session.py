"""The workspace and its session: choosing one (the picker), opening it (a new EngineRunner and
session, the bridge told), and reading the session back (recovering a write an earlier run died
in, then every message with its results). A controller (app_link.py), and the one that changes
the OpenWorkspace (app_state.py)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from .. import settings
from ..engine import Session, StateUnusable, Workspace, WorkspaceUnusable, default_state_dir
from .display import pretty_path
from .messages import HistoryLoaded, WorkFailed
from .runner import EngineRunner
from .screens.picker import PickerScreen
from .state import load_history
from .status_text import resumed_text

if TYPE_CHECKING:
    from .app_link import AppLink
    from .app_state import AppOptions, MessageBook, OpenWorkspace, UndoState
    from .bridge_control import BridgeControl
    from .message_flow import MessageFlow
    from .panes import Panes
    from .undo import UndoControl
    from .waiting_write import WaitingWriteControl


class WorkspaceSession:
    def __init__(
        self,
        app: AppLink,
        panes: Panes,
        options: AppOptions,
        book: MessageBook,
        opened: OpenWorkspace,
        undo_state: UndoState,
        *,
        waiting_write: WaitingWriteControl,
        bridge_control: BridgeControl,
        undo_control: UndoControl,
        message_flow: MessageFlow,
    ) -> None:
        self.app, self.panes, self.options, self.book = app, panes, options, book
        self.opened, self.undo_state = opened, undo_state
        self.waiting_write, self.bridge_control = waiting_write, bridge_control
        self.undo_control, self.message_flow = undo_control, message_flow

    @property
    def workspace(self) -> Workspace | None:
        runner = self.opened.runner
        return runner.workspace if runner is not None else None

    def begin(self) -> None:
        """At start: the workspace given, or the one used last, or the picker."""
        start = self.options.workspace or settings.last_workspace()
        if start is None:
            self.panes.status("Choose the workspace folder to begin.")
            self._pick_workspace(Path.cwd(), first_use=True)
        else:
            self.open_workspace(start)

    def _workspace_chosen(self, path: Path | None) -> None:
        if path is not None and (self.workspace is None or path != self.workspace.root):
            # A write put off while the picker was open holds this workspace's session.
            if not self.waiting_write.busy("choose another workspace"):
                self.open_workspace(path)
        elif self.opened.runner is None:
            self.panes.status("No workspace chosen: press w to choose one.")

    def _state_dir_for(self, root: Path) -> Path | None:
        # --state-dir names the session of the workspace the app starts in, given or picked first;
        # another workspace chosen later gets its own default folder (a session per workspace).
        owner = self.opened.state_owner
        if self.options.state_dir is None or (owner is not None and owner != root):
            return None
        return self.options.state_dir

    def open_workspace(self, path: Path) -> None:
        try:
            workspace = Workspace(path)
            state_dir = self._state_dir_for(workspace.root)
            session = Session(
                state_dir or default_state_dir(workspace.root), workspace_root=workspace.root
            )
        except (WorkspaceUnusable, StateUnusable) as exc:
            self.app.notify(str(exc), severity="error", timeout=10)
            self._pick_workspace(Path.cwd(), first_use=self.opened.runner is None)
            return
        opened = self.opened
        if state_dir is not None:
            opened.state_owner = workspace.root
        if opened.runner is not None:
            self.bridge_control.workspace_changed()
        runner = opened.runner = EngineRunner(
            workspace, session, self.app.post_message, self.waiting_write.ask_consent
        )
        settings.remember_workspace(workspace.root)
        self.app.sub_title = pretty_path(workspace.root)
        # What undo knows stays with the previous runner (UndoState is per runner).
        self.book.clear()
        self.panes.refresh_view(reset=True)
        self.panes.status("Reading the session...")
        self.app.in_thread(lambda: self._load_session(runner), group="session")
        self.undo_control.check()
        if opened.first_message is not None:
            text, opened.first_message = opened.first_message, None
            self.message_flow.start_message(text, "message file")

    def _load_session(self, runner: EngineRunner) -> None:
        """On a worker."""
        try:
            with (
                runner.session.lock()
            ):  # a write the app died in the middle of gets its result first
                if runner.session.unresolved_intents():
                    from ..engine import recover_interrupted_writes, recovery_notices

                    recovered = recover_interrupted_writes(runner.workspace, runner.session)
                    for notice in recovery_notices(
                        recovered, "show it with [ and ], then c copies its results"
                    ):
                        self.app.on_ui_thread(partial(self._warn, notice))
            loaded = HistoryLoaded(load_history(runner.session))
        except Exception as exc:
            self.app.post_message(
                WorkFailed(f"Cannot read the session in {runner.session.state_dir}: {exc}")
            )
            loaded = HistoryLoaded({})
        loaded.origin = runner
        self.app.post_message(loaded)

    def _warn(self, notice: str) -> None:
        self.app.notify(notice, severity="warning", timeout=30)

    def history_loaded(self, message: HistoryLoaded) -> None:
        runner = self.opened.runner
        if message.origin is not runner:
            return
        undone = self.undo_state.undone_in(runner)
        for state in message.states.values():
            state.mark_undone(undone)
        if self.book.read_back(message.states):
            # The shown message stays as it is: only "N of M" in its title changes.
            self.panes.refresh_view()
            return
        states = self.book.states
        self.panes.show_welcome(not states)
        self.panes.refresh_view(reset=True)
        if states:
            interrupted = sum(1 for state in states.values() if state.interrupted)
            self.panes.status(resumed_text(len(states), interrupted))
        elif self.options.follow is not None:
            self.panes.status(
                f"Following {self.options.follow.name}: a message starts when text is written to "
                "it. A paste works too."
            )
        else:
            self.panes.status("Paste the model's answer anywhere on this screen.")

    def action_pick_workspace(self) -> None:
        if self.waiting_write.busy("choose another workspace"):
            return
        start = self.workspace.root if self.workspace else Path.cwd()
        self._pick_workspace(start)

    def _pick_workspace(self, start: Path, first_use: bool = False) -> None:
        def state_dir_of(root: Path) -> Path:
            return self._state_dir_for(root.resolve()) or default_state_dir(root.resolve())

        self.app.dialog(
            PickerScreen(
                start,
                first_use,
                recent=settings.recent_workspaces(),
                state_dir_of=state_dir_of,
                current=self.workspace.root if self.workspace else None,
            ),
            self._workspace_chosen,
        )
