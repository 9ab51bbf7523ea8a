"""exec's consent on the terminal: each write's diff shown on /dev/tty, escaped so nothing in it
can drive the terminal, and the answer read from there (stdin may be the message)."""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Any

from ..engine import split_lines

_PROMPT_DIFF_LINES = 60


def terminal_decider() -> Any:
    """Ask on the controlling terminal for each write (used when no --approve was given).

    /dev/tty is opened twice, for reading and for writing: a text stream cannot be opened "r+"
    on it (not seekable), which once made every answer a silent no. What is shown is escaped:
    a diff holding ESC sequences or a carriage return could otherwise redraw the screen and hide
    the very line the person is asked to approve.
    """
    try:
        answers = open("/dev/tty", encoding="utf-8", errors="replace")  # noqa: SIM115 - kept open for the run
    except OSError:
        return None
    try:
        prompt = open("/dev/tty", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError:
        answers.close()
        return None
    approve_rest = False

    def show(plan: Any, limit: int | None) -> None:
        _show(prompt, plan, limit)

    def decide(plan: Any, outlook: Any) -> bool:
        nonlocal approve_rest
        if plan.kind == "read":  # a read of a secret-looking file: never one of "all the rest"
            show(plan, None)
            return _read_allowed(prompt, answers)
        if approve_rest and not plan.needs_own_yes:
            return True
        if outlook.total > 1:
            prompt.write(f"\nwrite {outlook.position} of {outlook.total} in this message")
        # A diff of thousands of lines would scroll the question (and the header) out of sight.
        show(plan, _PROMPT_DIFF_LINES)
        question = "Run this command?" if plan.run is not None else "Apply this change?"
        rest = "[a]ll the rest's writes" if plan.run is not None else "[a]ll the rest"
        while True:
            prompt.write(f"{question} [y]es / [n]o / {rest} / [d]iff in full: ")
            prompt.flush()
            line = answers.readline()
            if not line:  # the terminal went away: nothing is applied without a yes
                return False
            answer = line.strip().lower()
            if answer in ("d", "diff"):
                show(plan, None)
                continue
            if answer in ("a", "all"):
                _commands_still_ask(prompt, outlook)
            if answer in ("y", "yes", "a", "all", "n", "no"):
                # Kept once given: a command asked about after it (needs_own_yes) answers only
                # for itself, as in the TUI.
                approve_rest = approve_rest or answer in ("a", "all")
                return answer in ("y", "yes", "a", "all")
            # A typo must not decide a write either way: ask again.
            prompt.write(f"Please answer y, n, a or d (got {terminal_safe(answer)!r}).\n")

    return decide


def _show(prompt: Any, plan: Any, limit: int | None) -> None:
    """What is asked about: the command to run, the write's diff, or why a read asks."""
    lines = [terminal_safe(line) for line in split_lines(plan.diff or "") or [""]]
    said: list[str] = []
    if plan.run is not None:
        run = plan.run
        prompt.write(
            f"\n{terminal_safe(plan.action)} wants to run, in {terminal_safe(run.cwd)} "
            f"(time limit {run.timeout_s} s, network {'on' if run.network else 'off'}, "
            + (
                "sandboxed"
                if run.sandboxed
                else f"NOT SANDBOXED ({terminal_safe(run.unsandboxed_why)}): it changes the tree "
                "directly"
            )
            + "):\n"
        )
        lines, said = _script_rows(plan.run.script, _columns(prompt))
    else:
        counts = "" if plan.kind == "read" else f"  +{plan.added} -{plan.removed}"
        prompt.write(f"\n{terminal_safe(plan.action)} {terminal_safe(plan.where)}{counts}\n")
    for note in plan.notes:
        prompt.write(f"note: {terminal_safe(note)}\n")
    prompt.write("\n".join(lines[:limit]) + "\n")
    if limit is not None and len(lines) > limit:
        prompt.write(
            f"... {len(lines) - limit} more diff lines not shown; answer d to see the whole diff\n"
        )
    for note in said:  # just above the question
        prompt.write(f"note: {note}\n")


def _columns(prompt: Any) -> int:
    try:
        return max(os.get_terminal_size(prompt.fileno()).columns, 24)
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


def _read_allowed(prompt: Any, answers: Any) -> bool:
    """A read of a file that looks like a secret (its plan says why it asks): y or n, nothing
    else; the terminal gone is a no."""
    while True:
        prompt.write("Let the model read it? [y]es / [n]o: ")
        prompt.flush()
        line = answers.readline()
        answer = line.strip().lower()
        if not line or answer in ("y", "yes", "n", "no", ""):
            return answer in ("y", "yes")
        prompt.write(f"Please answer y or n (got {terminal_safe(answer)!r}).\n")


def _commands_still_ask(prompt: Any, outlook: Any) -> None:
    """`a` applies the rest of the message's writes, never a command (WritePlan.needs_own_yes):
    said when the rest holds one, or may (the TUI's dialog says the same)."""
    commands = [write.command for write in outlook.rest if write.runs]
    if commands:
        prompt.write(
            f"The rest of this message also has {len(commands)} command(s): "
            + "; ".join(terminal_safe(command or "") for command in commands[:5])
            + ". a does not run them: each asks you when it comes.\n"
        )
    elif outlook.open_ended:
        prompt.write("A command that comes later in this message asks you first.\n")


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
