"""The keys of the main screen, declared once: the app's bindings, the footer labels, the help
screen and the command palette all read this table, so they cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, kw_only=True)
class Key:
    key: str  # Textual key name
    display: str  # as the help screen and the footer show it
    action: str
    label: str  # command palette title
    help: str  # help screen and command palette description
    short: str  # the footer's word: all of them fit an 80-column terminal
    group: str | None = None  # keys of one group share one footer word ("[] Msg")


MAIN_KEYS: tuple[Key, ...] = (
    Key(
        key="c",
        display="c",
        action="copy_results",
        label="Copy results",
        help="copy the result blocks of the shown message, exactly what `operator-app exec` prints",
        short="Copy",
    ),
    Key(
        key="p",
        display="p",
        action="copy_prompt",
        label="Copy prompt",
        help="copy the system prompt (`operator-app spec`; the palette switches it to String's) "
        "to paste into the chat",
        short="Prompt",
    ),
    Key(
        key="u",
        display="u",
        action="undo",
        label="Undo",
        help="undo the last change Operator made in this workspace (asks first)",
        short="Undo",
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
    ),
    Key(
        key="right_square_bracket",
        display="]",
        action="next_message",
        label="Next message",
        help="show the next message of the session",
        short="Next",
        group="Msg",
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
        key="e",
        display="e",
        action="end_follow",
        label="End message",
        help="end the message streaming in (--follow, or the bridge's, shown): an open block fails",
        short="End",
    ),
    Key(
        key="d",
        display="d",
        action="decide",
        label="Decide write",
        help="show again the consent dialog of the write that waits for you (escape closed it)",
        short="Decide",
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
        "in the consent dialog: apply / reject / apply the rest of this message "
        "(? there: its keys)",
    ),
    ("enter", "on a write that waits: show its consent dialog again"),
    (
        "ctrl+p",
        "command palette: every action, 'go to message N', auto-copy on or off, and the theme "
        "(both remembered)",
    ),
    ("ctrl+q", "quit (asks first while a write waits for you)"),
)

# The consent dialog's keys, for its `?` help and the README.
CONSENT_KEYS: tuple[tuple[str, str], ...] = (
    ("y", "apply this write"),
    ("n", "reject it: nothing changes, and the model is told you declined"),
    (
        "a",
        "apply this write and the rest of this message; asks once more when a delete, or a file "
        "other than the one shown, is among them, or when the message is still arriving",
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
        )
        for k in MAIN_KEYS
    ]
