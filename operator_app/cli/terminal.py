"""exec's consent on the terminal: each write's diff shown on /dev/tty, escaped so nothing in it
can drive the terminal, and the answer read from there (stdin may be the message)."""

from __future__ import annotations

import re
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
        while True:
            prompt.write(f"{question} [y]es / [n]o / [a]ll the rest / [d]iff in full: ")
            prompt.flush()
            line = answers.readline()
            if not line:  # the terminal went away: nothing is applied without a yes
                return False
            answer = line.strip().lower()
            if answer in ("d", "diff"):
                show(plan, None)
                continue
            if answer in ("a", "all") and not _commands_confirmed(prompt, answers, outlook):
                continue
            if answer in ("y", "yes", "a", "all", "n", "no"):
                approve_rest = answer in ("a", "all")
                return answer in ("y", "yes") or approve_rest
            # A typo must not decide a write either way: ask again.
            prompt.write(f"Please answer y, n, a or d (got {terminal_safe(answer)!r}).\n")

    return decide


def _show(prompt: Any, plan: Any, limit: int | None) -> None:
    """What is asked about: the command to run, the write's diff, or why a read asks."""
    lines = [terminal_safe(line) for line in split_lines(plan.diff or "") or [""]]
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
        lines = ["  $ " + line for line in lines]
        if run.sandboxed:
            for gap in run.sandbox_gaps:
                prompt.write(f"note: the sandbox here has a gap: {terminal_safe(gap)}\n")
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


def _commands_confirmed(prompt: Any, answers: Any, outlook: Any) -> bool:
    """`a` would also run commands of the message unseen: asked once more (y goes on)."""
    commands = [write.command for write in outlook.rest if write.runs]
    if not commands:
        return True
    prompt.write(
        f"The rest of this message also runs {len(commands)} command(s), unseen: "
        + "; ".join(terminal_safe(command or "") for command in commands[:5])
        + "\nRun and apply them all? [y]es / [n]o: "
    )
    prompt.flush()
    return answers.readline().strip().lower() in ("y", "yes")


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
