"""exec's consent on the terminal, asked as the TUI asks: each write's diff, or a command's script
with its folder and limits, shown on /dev/tty (escaped, so nothing in it can drive the terminal)
and answered with one key, no Enter (keys.py). A command's change-set is asked about after the
command's exit status and last lines of output are shown, as the TUI's details pane shows them
before its dialog: the engine announces the end (CommandOutput with `done`) before it asks."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Any

from ..engine import split_lines
from .keys import Keys, open_keys

_PROMPT_DIFF_LINES = 60  # a diff of thousands of lines would scroll the question out of sight
_TAIL_LINES = 15  # of a command's output, shown when it ends


class TerminalConsent:
    """The decider exec hands the engine (`decide`) and the listener that hears a command end
    (`heard`), sharing the terminal and the "all the rest" answer."""

    def __init__(self, keys: Keys, root: Path) -> None:
        self.keys = keys
        self.out = keys.out
        self.root = root  # the workspace: `r` always allows a command here
        self.approve_rest = False
        self._running: set[str] = set()  # the commands said to be running

    # --- what the engine calls ----------------------------------------------------------------

    def heard(self, event: Any) -> None:
        """A command's output (engine CommandOutput): said once when it starts, and how it ended
        with the last lines of its output when it ends."""
        from ..engine import CommandOutput

        if not isinstance(event, CommandOutput):
            return
        if not event.done:
            if event.command_id not in self._running:
                self._running.add(event.command_id)
                self.write(f"{terminal_safe(event.command_id)} is running...\n")
            return
        self._running.discard(event.command_id)
        ended = (
            f"exit {event.exit}"
            if event.exit is not None
            else "no exit status (it was stopped, ran out of time, or did not start)"
        )
        lines = split_lines(event.text.rstrip("\n")) if event.text else []
        said = f"{event.lines} line{'s' if event.lines != 1 else ''} of output"
        if not lines:
            self.write(
                f"{terminal_safe(event.command_id)} ended: {ended} after "
                f"{event.seconds:.1f} s; no output.\n"
            )
            return
        tail = lines[-_TAIL_LINES:]
        which = "its last lines" if event.lines > len(tail) else "all of it"
        self.write(
            f"{terminal_safe(event.command_id)} ended: {ended} after {event.seconds:.1f} s; "
            f"{said}, {which}:\n" + "".join(f"  | {terminal_safe(line)}\n" for line in tail)
        )

    def decide(self, plan: Any, outlook: Any) -> Any:
        if plan.kind == "read":  # a read of a secret-looking file: never one of "all the rest"
            self._show(plan, None)
            return self.keys.ask("Let the model read it? [y]es / [n]o: ", "yn") == "y"
        if self.approve_rest and not plan.needs_own_yes:
            return True
        if plan.run is not None:
            return self._command(plan, outlook)
        return self._write(plan, outlook)

    # --- a write, or a command's change-set ---------------------------------------------------

    def _write(self, plan: Any, outlook: Any) -> bool:
        if plan.kind == "changeset":
            self.write(
                f"\nThe changes of {terminal_safe(plan.command_id)} "
                f"({terminal_safe(plan.changes.describe() if plan.changes else plan.summary)}), "
                "to apply or not:\n"
            )
        elif outlook.total > 1:
            self.write(f"\nwrite {outlook.position} of {outlook.total} in this message")
        cut = self._show(plan, _PROMPT_DIFF_LINES)
        question = "Apply its changes?" if plan.kind == "changeset" else "Apply this change?"
        keys = "yna" + ("d" if cut else "")
        while True:
            answer = self.keys.ask(
                f"{question} [y]es / [n]o / [a]ll the rest"
                + (" / [d]iff in full" if cut else "")
                + ": ",
                keys,
            )
            if answer == "d":
                self._show(plan, None)
                continue
            if answer == "a":
                self._commands_still_ask(outlook)
            # Kept once given: a command or a change-set asked after it (needs_own_yes) answers
            # only for itself, as in the TUI.
            self.approve_rest = self.approve_rest or answer == "a"
            return answer in ("y", "a")

    # --- a command ----------------------------------------------------------------------------

    def _command(self, plan: Any, outlook: Any) -> Any:
        from ..engine import RunGrant

        run = plan.run
        network = bool(run.network)
        where = f" (change {outlook.position} of {outlook.total} in this message)"
        limit: int | None = _PROMPT_DIFF_LINES
        while True:
            cut = self._show_command(plan, network, limit, where if outlook.total > 1 else "")
            answer = self._ask_command(run, network, cut)
            if answer == "w":
                network = not network
                continue
            if answer == "d":
                limit = None
                continue
            if answer == "a":
                self._commands_still_ask(outlook)
            if answer == "r":
                from .. import settings

                settings.allow_command(self.root, run.script, network=network)
                self.write("Always allowed here from now on (the TUI's palette revokes it).\n")
            if answer == "n":
                return False
            self.approve_rest = self.approve_rest or answer == "a"
            return RunGrant(network=True) if network and not run.network else True

    def _ask_command(self, run: Any, network: bool, cut: bool) -> str:
        """The command's question and its keys: `a` and `r` only for a sandboxed command, `w` only
        where this run has no network already (--network or the settings gave it), `d` only
        when the script was cut."""
        offered = [("y", "[y]es"), ("n", "[n]o")]
        if run.sandboxed:
            offered += [("a", "[a]ll the rest's writes"), ("r", "[r]un and always allow it here")]
        if not run.network:
            offered.append(("w", "[w] network " + ("off" if network else "on")))
        if cut:
            offered.append(("d", "[d] whole script"))
        keys = "".join(key for key, _ in offered)
        question = "Run this command? " + " / ".join(words for _, words in offered) + ": "
        return self.keys.ask(question, keys)

    def _show_command(self, plan: Any, network: bool, limit: int | None, where: str) -> bool:
        """The command as the TUI's dialog shows it: who wants to run what, where, with which
        limits; the script, cut at `limit` lines. True when it was cut."""
        run = plan.run
        folder = "the workspace root" if run.cwd == "." else f"{run.cwd}/"
        lines = split_lines(run.script.rstrip("\n")) or [""]
        what = f"this {len(lines)}-line script" if len(lines) > 1 else "this command"
        sandbox = (
            "sandboxed: it sees your files through an overlay and cannot change them; what it "
            "changed is shown to you afterwards, to apply or not"
            if run.sandboxed
            else f"NOT SANDBOXED: {run.unsandboxed_why}; it changes your files directly, with no "
            "review and no undo"
        )
        self.write(
            f"\n{terminal_safe(plan.action)} ({terminal_safe(plan.command_id)}) wants to run "
            f"{what} in {terminal_safe(folder)}{where}\n"
            f"time limit {run.timeout_s} s, network {'on' if network else 'off'}; "
            f"{terminal_safe(sandbox)}\n"
        )
        if run.sandboxed:
            for gap in run.sandbox_gaps:
                self.write(f"note: the sandbox here has a gap: {terminal_safe(gap)}\n")
        for note in plan.notes:
            self.write(f"note: {terminal_safe(note)}\n")
        rows, said = _script_rows(run.script.rstrip("\n"), _columns(self.out))
        shown = rows if limit is None else rows[:limit]
        self.write("".join(f"{row}\n" for row in shown))
        if len(shown) < len(rows):
            self.write(f"... {len(rows) - len(shown)} more rows; press d to see the whole script\n")
        for note in said:  # just above the question
            self.write(f"note: {note}\n")
        return len(shown) < len(rows)

    # --- shared -------------------------------------------------------------------------------

    def _show(self, plan: Any, limit: int | None) -> bool:
        """A write's (or a change-set's) header and diff, or why a read asks; the diff cut at
        `limit` lines. True when it was cut."""
        lines = [terminal_safe(line) for line in split_lines(plan.diff or "") or [""]]
        counts = "" if plan.kind == "read" else f"  +{plan.added} -{plan.removed}"
        if plan.kind != "changeset":
            self.write(f"\n{terminal_safe(plan.action)} {terminal_safe(plan.where)}{counts}\n")
        for note in plan.notes:
            self.write(f"note: {terminal_safe(note)}\n")
        self.write("\n".join(lines[:limit]) + "\n")
        if limit is not None and len(lines) > limit:
            self.write(
                f"... {len(lines) - limit} more diff lines not shown; press d to see the whole "
                "diff\n"
            )
            return True
        return False

    def _commands_still_ask(self, outlook: Any) -> None:
        """`a` applies the rest of the message's writes, never a command nor what one changed
        (WritePlan.needs_own_yes): said when the rest holds one, or may (the TUI says the same)."""
        commands = [write.command for write in outlook.rest if write.runs]
        if commands:
            self.write(
                f"The rest of this message also has {len(commands)} command(s): "
                + "; ".join(terminal_safe(command or "") for command in commands[:5])
                + ". a does not run them: each asks you when it comes.\n"
            )
        elif outlook.open_ended:
            self.write("A command that comes later in this message asks you first.\n")

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


def terminal_consent(root: Path) -> TerminalConsent | None:
    """Consent asked on the controlling terminal (exec without --approve, stdin a terminal);
    None when there is no terminal to ask on."""
    keys = open_keys()
    if keys is None:
        return None
    return TerminalConsent(keys, root)


def _columns(out: Any) -> int:
    try:
        return max(os.get_terminal_size(out.fileno()).columns, 24)
    except (OSError, ValueError, AttributeError):
        return 80


def _cells(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _chop(text: str, width: int) -> list[str]:
    """`text` in pieces of at most `width` columns, every character kept."""
    pieces, piece, used = [], "", 0
    for char in text:
        cells = _cells(char)
        if used + cells > width and piece:
            pieces.append(piece)
            piece, used = "", 0
        piece, used = piece + char, used + cells
    return [*pieces, piece]


def _script_rows(script: str, columns: int) -> tuple[list[str], list[str]]:
    """A command's script as the terminal shows it (issue 35: a line past the prompt's room showed
    as its start): every line whole, wrapped at the terminal's width with its continued rows
    marked, every character that does not show written as an escape; and the notes that say so."""
    from ..protocol import escape_hidden

    rows: list[str] = []
    wide: list[int] = []
    hidden: list[int] = []
    room = columns - 4  # "  $ " and "  ↪ "
    for number, line in enumerate(script.split("\n"), 1):
        shown, has_hidden = escape_hidden(line.expandtabs(4))
        if has_hidden:
            hidden.append(number)
        pieces = _chop(shown, room)
        if len(pieces) > 1:
            wide.append(number)
        rows += [("  $ " if i == 0 else "  ↪ ") + piece for i, piece in enumerate(pieces)]
    said = []
    if wide:
        said.append(
            f"{_lines(wide, 'is', 'are')} wider than this terminal ({columns} columns): "
            "shown whole, wrapped (↪ marks the rows a line goes on in)"
        )
    if hidden:
        said.append(
            f"{_lines(hidden, 'holds', 'hold')} characters that do not show (control, "
            "bidirectional or zero-width): written as escapes (\\u202e); the script runs with "
            "them as they are"
        )
    return rows, said


def _lines(numbers: list[int], one: str, more: str) -> str:
    """ "line 3 holds", "lines 1, 4 hold": the lines a note is about, with its verb."""
    named = ", ".join(str(n) for n in numbers[:6]) + (
        f" and {len(numbers) - 6} more" if len(numbers) > 6 else ""
    )
    return f"line {named} {one}" if len(numbers) == 1 else f"lines {named} {more}"


# Bidirectional overrides and isolates: invisible, they reorder how a line is drawn ("Trojan
# Source"), so a change could read as harmless at the prompt.
_BIDI_RE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """One line of text as the terminal should draw it: control characters (tab aside) and
    bidirectional overrides written as escapes, so nothing in it can move the cursor or recolour,
    clear or reorder what the person reads. The controls are protocol/escapes.py's rule; the
    overrides are this prompt's own addition."""
    from ..protocol import escape_controls

    text = escape_controls(text)
    return (
        _BIDI_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _BIDI_RE.search(text) else text
    )
