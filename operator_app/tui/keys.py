"""The keys of the main screen, one declaration each: the binding and its footer word, the help
screen's line and the command palette's entry, whether the key applies now (a function of the
app's state, app_state.py) and, when it does not, what pressing it says. The app's bindings, its
`check_action`, a dimmed key's explanation, the help screen and the palette all read this table,
so they cannot disagree. Adding a key is one entry here and its action, `action_<name>`, on the
controller that owns what the key changes (the app routes it there; see app.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct
from textual.binding import Binding

if TYPE_CHECKING:
    from .app_state import (
        AppOptions,
        BridgeState,
        Following,
        MessageBook,
        OpenWorkspace,
        RunningCommand,
        UndoState,
        WaitingWrite,
    )
    from .state import MessageState

# What `check_action` answers for a key: Textual's three states, named.
APPLIES = True  # in the footer, and it runs
NOT_NOW: None = None  # in the footer dimmed: it applies, just not now; pressed, it says why
HIDDEN = False  # not in the footer, nor in the palette; pressed, it says why


class Now(Struct, frozen=True, kw_only=True):
    """What a key's availability and its reason read: the app's state objects (read only: keys.py
    changes nothing) and whether the main screen is in front (no dialog over it)."""

    options: AppOptions
    opened: OpenWorkspace
    book: MessageBook
    following: Following
    undo: UndoState
    waiting: WaitingWrite
    bridge: BridgeState
    running: RunningCommand
    alone: bool

    @property
    def shown(self) -> MessageState | None:
        return self.book.current()

    def streams_shown(self) -> bool:
        """Whether the shown message is still being fed by the browser bridge."""
        shown = self.shown
        return shown is not None and self.bridge.streams(shown.number)


def applies_always(now: Now) -> bool | None:
    return APPLIES


def no_reason(now: Now) -> str:
    return "Not available now."


class Key(Struct, frozen=True, kw_only=True):
    key: str  # Textual key name
    display: str  # as the help screen and the footer show it
    action: str  # `action_<action>` on the controller that owns it
    label: str  # command palette title
    help: str  # help screen and command palette description
    short: str  # the footer's word: all of them fit an 80-column terminal
    group: str | None = None  # keys of one group share one footer word ("[] Msg")
    applies: Callable[[Now], bool | None] = applies_always  # APPLIES, NOT_NOW or HIDDEN
    why_not: Callable[[Now], str] = no_reason  # what pressing it says while it does not apply
    # Pressed while it does not apply, its action runs anyway and says itself what it found:
    # its availability was read on a worker and may be stale (u reads the journal afresh).
    runs_anyway: bool = False
    # In the footer while it applies (a key seldom needed stays out, for the 80 columns).
    footer: bool = True


def _copy_why_not(now: Now) -> str:
    state = now.shown
    if state is None:
        return "Nothing to copy yet: paste the model's answer first."
    if not state.finished:
        return f"Message {state.number} has no result yet: c copies as soon as one is there."
    if state.rows:  # after a restart: the app stopped before any of them ran
        return (
            f"Message {state.number} has no result to copy: Operator stopped before any of its "
            "commands ran; paste the message again to run them."
        )
    return f"Message {state.number} has no result to copy: it held no block for Operator."


def _end_applies(now: Now) -> bool | None:
    if now.streams_shown():
        return APPLIES
    # Hidden unless a file is followed (then dimmed while nothing streams from it): the bridge's
    # messages show it only while one streams, or the footer overflows 80 columns.
    if now.options.follow is None:
        return HIDDEN
    return APPLIES if now.following.open_message is not None else NOT_NOW


def _end_why_not(now: Now) -> str:
    follow = now.options.follow
    if follow is None:
        return (
            "e ends a message while it streams in, from the browser bridge (b) or a file "
            "(--follow FILE); the one shown is not streaming."
        )
    return f"No message from {follow.name} is open: the next text written to it starts one."


def _undo_applies(now: Now) -> bool | None:
    # Hidden while a write waits (its message holds the session), so d has the room.
    if now.waiting.write is not None:
        return HIDDEN
    return APPLIES if now.undo.can_undo_in(now.opened.runner) else NOT_NOW


def _step_applies(step: int) -> Callable[[Now], bool | None]:
    return lambda now: APPLIES if now.book.neighbour(step) is not None else NOT_NOW


def _step_why_not(end: str) -> Callable[[Now], str]:
    return lambda now: (
        f"This is the {end} message of the session." if now.shown else "No message yet."
    )


MAIN_KEYS: tuple[Key, ...] = (
    Key(
        key="c",
        display="c",
        action="copy_results",
        label="Copy results",
        help="copy the result blocks of the shown message, exactly what `operator-app exec` prints",
        short="Copy",
        applies=lambda now: APPLIES if now.shown and now.shown.results else NOT_NOW,
        why_not=_copy_why_not,
    ),
    Key(
        key="p",
        display="p",
        action="copy_prompt",
        label="Copy prompt",
        help="copy the system prompt (`operator-app spec`; the palette switches its dialect) to "
        "paste into the chat",
        short="Prompt",
    ),
    Key(
        key="u",
        display="u",
        action="undo",
        label="Undo",
        help="undo the last change Operator made in this workspace (asks first)",
        short="Undo",
        applies=_undo_applies,
        why_not=lambda now: (
            "Nothing to undo in this workspace: no change Operator made is left to reverse."
        ),
        runs_anyway=True,
    ),
    Key(
        key="w",
        display="w",
        action="pick_workspace",
        label="Workspace",
        help="choose another workspace folder (its own session)",
        short="Folder",
    ),
    Key(
        key="left_square_bracket",
        display="[",
        action="previous_message",
        label="Prev message",
        help="show the previous message of the session",
        short="Prev",
        group="Msg",
        applies=_step_applies(-1),
        why_not=_step_why_not("first"),
    ),
    Key(
        key="right_square_bracket",
        display="]",
        action="next_message",
        label="Next message",
        help="show the next message of the session",
        short="Next",
        group="Msg",
        applies=_step_applies(1),
        why_not=_step_why_not("latest"),
    ),
    Key(
        key="b",
        display="b",
        action="toggle_bridge",
        label="Bridge on/off",
        help=(
            "start or stop the browser bridge: chat answers stream in, results go back to the "
            "chat's input box"
        ),
        short="Bridge",
    ),
    Key(
        key="k",
        display="k",
        action="pair_another_browser",
        label="Pair another browser",
        help="show a code that pairs a second browser while the paired one stays paired",
        short="Pair+",
        # Only with a browser paired (b pairs the first); not in the footer.
        applies=lambda now: APPLIES if now.bridge.paired() else HIDDEN,
        why_not=lambda now: (
            "k pairs a browser beside the paired one: turn the bridge on (b) with a browser "
            "paired first; the palette's 'Pair a browser' pairs the first one."
        ),
        footer=False,
    ),
    Key(
        key="e",
        display="e",
        action="end_follow",
        label="End message",
        help="end the message streaming in (--follow, or the bridge's, shown): an open block fails",
        short="End",
        applies=_end_applies,
        why_not=_end_why_not,
    ),
    Key(
        key="d",
        display="d",
        action="decide",
        label="Decide write",
        help="show again the consent dialog of the write that waits for you (escape closed it)",
        short="Decide",
        # Hidden unless a write waits, and while a dialog is in front (its own keys then).
        applies=lambda now: now.waiting.write is not None and now.alone,
        why_not=lambda now: (
            "No write waits for you: d brings back a consent dialog that escape put off."
        ),
    ),
    Key(
        key="x",
        display="x",
        action="stop_command",
        label="Stop command",
        help="stop the command that runs now (its output streams into the details pane "
        "meanwhile); its changes are discarded",
        short="Stop",
        # Shown only while a command runs.
        applies=lambda now: now.running.output is not None,
        why_not=lambda now: "No command runs now: x stops one while its output streams in.",
    ),
    Key(
        key="question_mark",
        display="?",
        action="help",
        label="Help",
        help="list the keys and the actions the model can send",
        short="Help",
    ),
)

# Keys that are not bindings of the main screen, for the help screen only.
OTHER_KEYS: tuple[tuple[str, str], ...] = (
    ("paste", "a bracketed paste anywhere on the main screen is a new message"),
    ("up / down", "select a command: its details, output or diff show below the table"),
    ("home", "show the message from its first line (so do up and page up on the first command)"),
    ("tab", "move between the message, the commands and the details"),
    (
        "y / n / a",
        "in the consent dialog: apply / reject / apply the rest of this message's writes "
        "(a command always asks for itself; ? there: its keys)",
    ),
    (
        "y / n / a / w / r",
        "in a command's dialog: run / decline / run the rest / the network for this one / run "
        "and always allow it here (? there: its keys). While it runs, its output streams into "
        "the details pane (scroll up to read; at the end it follows again) and x stops it; when "
        "it ends, what it changed in your files is shown in the consent dialog, to apply or not",
    ),
    ("enter", "on a write or command that waits: show its dialog again"),
    (
        "ctrl+p",
        "command palette: every action, 'go to message N', the prompt's dialect (which system "
        "prompt p copies: OPERATOR_CMD's or String's), auto-copy on or off, the commands always "
        "allowed (to revoke them), pairing a browser, and the theme (the dialect, auto-copy and "
        "theme remembered)",
    ),
    ("ctrl+q", "quit (asks first while a write waits for you or a command runs)"),
)

# The consent dialog's keys, for its `?` help and the README.
CONSENT_KEYS: tuple[tuple[str, str], ...] = (
    ("y", "apply this write"),
    ("n", "reject it: nothing changes, and the model is told you declined"),
    (
        "a",
        "apply this write and the rest of this message's writes; asks once more when a delete, "
        "or a file other than the one shown, is among them, or when the message is still "
        "arriving. A command is never covered by a: each asks you when it comes, and so does "
        "what it changed",
    ),
    (
        "escape",
        "decide later: the dialog closes and the write keeps waiting (the rest of its message "
        "with it); d, or enter on its row, shows it again",
    ),
    ("up / down / page up / page down / home / end", "scroll the diff"),
    ("left / right", "scroll the diff sideways (its +/- column stays)"),
    ("?", "these keys"),
    ("ctrl+q", "quit, after asking: the write stays undecided, neither applied nor rejected"),
)


# The keys of a command's dialog (shell.run, a bash topic's script).
COMMAND_KEYS: tuple[tuple[str, str], ...] = (
    ("y", "run it: sandboxed, what it changed is shown to you afterwards, to apply or not"),
    ("n", "decline: nothing runs, and the model is told you declined"),
    (
        "a",
        "run this and apply the rest of this message's writes (sandboxed commands only); asks "
        "once more as a write's a does. The other commands of the message, and what this one "
        "changed, still ask you each",
    ),
    ("w", "let this one command use the network (on/off; the header says which)"),
    (
        "r",
        "run it, and always allow this exact command in this workspace, without asking (its "
        'network as the dialog shows it); the palette\'s "Commands always allowed" revokes it',
    ),
    (
        "escape",
        "decide later: the command keeps waiting (the rest of its message with it); d, or enter "
        "on its row, shows it again",
    ),
    ("up / down / page up / page down / home / end", "scroll the script"),
    ("?", "these keys"),
)


# The keys of the question before a read of a file that looks like a secret.
SECRET_READ_KEYS: tuple[tuple[str, str], ...] = (
    ("y", "let the model read the file: its content goes to the model, and the chat's provider"),
    ("n", "decline: nothing is read, and the model is told you declined"),
    ("escape", "decide later: the read keeps waiting (the rest of its message with it)"),
    ("up / down / page up / page down", "scroll what the question says"),
    ("?", "these keys"),
)


KEY_OF_ACTION: dict[str, Key] = {key.action: key for key in MAIN_KEYS}


def main_bindings() -> list[Binding]:
    groups = {k.group: Binding.Group(k.group, compact=True) for k in MAIN_KEYS if k.group}
    return [
        Binding(
            k.key,
            k.action,
            k.short,
            key_display=k.display,
            tooltip=k.help,
            group=groups[k.group] if k.group else None,
            show=k.footer,
        )
        for k in MAIN_KEYS
    ]
