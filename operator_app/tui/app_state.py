"""The TUI app's state, one small object per concern, each declared here once. The app creates
them (app.py) and hands each to the controller that owns it and to those that read it; each object
is changed by its owner only: its docstring's "Changed by:" line names the module, and
tests/tui/test_state_owners.py holds the code to that. No Textual here."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

if TYPE_CHECKING:
    from ..bridge.server import BridgeServer
    from ..bridge.service import Bridge, Tab
    from ..engine import CommandOutput
    from .clipboard import ClipboardSource
    from .messages import ConsentAsked
    from .runner import EngineRunner
    from .screens.confirm import ConfirmScreen
    from .state import MessageState


class AppOptions(Struct, frozen=True, kw_only=True):
    """What the app was started with (launch.py's options). Changed by: nothing (frozen)."""

    workspace: Path | None  # the workspace to open; None: the remembered one, or ask
    state_dir: Path | None  # --state-dir: the session of the first workspace opened
    follow: Path | None  # --follow FILE
    watch_clipboard: bool
    clipboard_source: ClipboardSource
    poll_interval: float  # seconds between two looks at the followed file
    clipboard_interval: float  # seconds between two looks at the clipboard
    bridge: bool  # start the bridge at once
    bridge_port: int | None  # --bridge-port (0 in tests: any free port); None: the remembered one


class OpenWorkspace(Struct, kw_only=True):
    """The workspace open and the runner of its session. Changed by: workspace_session.py."""

    runner: EngineRunner | None = None
    state_owner: Path | None = None  # the workspace --state-dir belongs to, once one is open
    first_message: str | None = None  # --message: started once the first workspace is open


class MessageBook:
    """Every message of the open session as the TUI knows it, and the one shown. Changed by: its
    own methods (a session opened or read back: workspace_session.py; a message began:
    message_flow.py; a message shown: panes.py)."""

    def __init__(self) -> None:
        self.states: dict[int, MessageState] = {}
        self.view_number: int | None = None

    def current(self) -> MessageState | None:
        return self.states.get(self.view_number) if self.view_number is not None else None

    def neighbour(self, step: int) -> int | None:
        """The message `step` places from the shown one, in session order (None past an end)."""
        numbers = sorted(self.states)
        if self.view_number not in numbers:
            return None
        index = numbers.index(self.view_number) + step
        return numbers[index] if 0 <= index < len(numbers) else None

    def clear(self) -> None:
        """Another session is open: nothing of the previous one stays."""
        self.states, self.view_number = {}, None

    def began(self, state: MessageState) -> None:
        self.states[state.number] = state

    def read_back(self, loaded: dict[int, MessageState]) -> bool:
        """Add the messages read from the session folder; the newest is shown unless a message
        began while the folder was read (it is newer than them, and stays shown). True then."""
        live = self.states
        self.states = {**loaded, **live}
        if not live:
            self.view_number = max(self.states, default=None)
        return bool(live)

    def show(self, number: int | None) -> bool:
        """Show message `number`; False (nothing changes) when there is no such message."""
        if number is None or number not in self.states:
            return False
        self.view_number = number
        return True


class Following(Struct, kw_only=True):
    """The file --follow tails. Changed by: message_flow.py (and the follow worker it starts,
    which clears `end_requested` once it has ended the message)."""

    open_message: int | None = None  # the followed message still open
    end_requested: threading.Event = field(default_factory=threading.Event)  # e was pressed


class OwnCopies(Struct):
    """The texts Operator put on the clipboard itself: the clipboard watcher does not take them
    for the model's answers. Changed by: copies.py."""

    texts: set[str] = field(default_factory=set)

    def is_own(self, text: str) -> bool:
        return text.strip() in self.texts


class UndoState(Struct):
    """What the undo journal said when last read, and for which runner: what another runner's
    journal said (the workspace before) is not this workspace's. Changed by: undo.py."""

    runner: EngineRunner | None = None
    can_undo: bool = False
    undone: dict[str, float] = field(default_factory=dict)  # command id -> when it was undone

    def can_undo_in(self, runner: EngineRunner | None) -> bool:
        return runner is not None and runner is self.runner and self.can_undo

    def undone_in(self, runner: EngineRunner | None) -> dict[str, float]:
        return self.undone if runner is not None and runner is self.runner else {}


class WaitingWrite(Struct):
    """The write waiting for the person, and the question asked before quitting on it. Changed
    by: waiting_write.py."""

    write: ConsentAsked | None = None  # its consent dialog is open, or was put off (escape)
    quit_question: ConfirmScreen | None = None

    def command_in(self, number: int) -> str | None:
        """The id of the write that waits, when it is one of message `number`'s."""
        write = self.write
        return write.plan.command_id if write is not None and write.number == number else None


class RunningCommand(Struct):
    """The command the model's message runs now, as its last output event told (with the way to
    stop it), and the question asked before quitting on it. Changed by: running_command.py."""

    output: CommandOutput | None = None
    number: int | None = None  # its message
    quit_question: ConfirmScreen | None = None


class BridgeState(Struct):
    """The browser bridge while it runs, and the question about the answers it holds. Changed by:
    bridge_control.py."""

    server: BridgeServer | None = None
    # "N answers ended while Operator was not listening — run them?"
    held_question: ConfirmScreen | None = None
    held_asked: int = 0  # how many answers that question is about
    tab: Tab | None = None  # the chat tab last reported, for what changed in its health
    # The bridge turned off in the middle of answers: they stay open for the next one (b).
    paused: Bridge | None = None

    def paired(self) -> bool:
        """Whether the bridge runs with a browser paired."""
        server = self.server
        return server is not None and bool(server.bridge.pairing.pairings)

    def fed_by(self) -> Bridge | None:
        """The bridge that feeds messages now: the running one, or one turned off mid-answer."""
        server = self.server
        return server.bridge if server is not None else self.paused

    def streams(self, number: int) -> bool:
        """Whether message `number` is still being fed by the browser (a bridge turned off in
        the middle of it still counts: the rest comes when it is back)."""
        bridge = self.fed_by()
        return bridge is not None and bridge.open_message(number) is not None
