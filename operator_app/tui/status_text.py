"""What the status line says at each turn of the loop (why a key that does not apply now does
nothing is said by its entry in keys.py). Pure functions of the message state, so the wording is
tested without an app; every text says what happened and what the person can do next."""

from __future__ import annotations

from ..engine import WritePlan
from ..protocol import CommandResult, action_writes
from .display import plural
from .state import MessageState
from .widgets.command_table import STATUS_LOOKS


def finished_text(state: MessageState, to_browser: bool = False) -> str:
    results, repeats = state.results, state.duplicates()
    failed = sum(1 for result in results if not result.ok)
    if not results:
        text = f"Message {state.number} held no block for Operator: nothing ran."
    else:
        text = f"Message {state.number}: {plural(len(results), 'result')}"
        text += f" ({failed} not ok)" if failed else ""
        if repeats == len(results):
            earlier = ", ".join(str(number) for number in state.repeated_from())
            text += (
                f"; every command repeated one already run (message {earlier}): nothing ran "
                "again, and the results say so"
            )
        elif repeats:
            text += f", {plural(repeats, 'repeated command')} not run again"
        it = "it" if len(results) == 1 else "them"
        text += (
            f". The browser puts {it} into the chat's input box (c copies {it} too)."
            if to_browser
            else f". Press c to copy {it} back into the chat."
        )
    if state.warnings:  # whole, they would not fit the line: they head the message view
        text += f"  {plural(len(state.warnings), 'warning')}: see the top of the message."
    return text


def browsing_text(state: MessageState, waiting_id: str | None = None) -> str:
    """What the status line says of a message shown with [ or ]: nothing said about another
    message before stays on screen as if it were about this one."""
    if waiting_id is not None:
        return f"Message {state.number}: {waiting_id} waits for you; d shows its dialog again."
    if not state.finished:
        return f"Message {state.number} is still running; its results appear as they come."
    if state.interrupted:
        return (
            f"Message {state.number} stopped before its end: the commands marked 'not run' never "
            "ran; paste the message again to run them."
        )
    return finished_text(state)


def decided_text(number: int, result: CommandResult) -> str:
    """After the person answered the consent dialog of a write (the message may still be
    running)."""
    if result.ok:
        what = "applied"
    elif result.status == "rejected":
        what = "rejected, nothing changed"
    else:
        what = f"not applied ({result.error_code or 'failed'})"
    return f"Message {number}: {result.id} {what}. {result.summary}"


def streaming_text(state: MessageState, source_name: str, end_key: bool = True) -> str:
    return (
        f"Message {state.number} is streaming from {source_name}: each block runs as soon as its "
        "end arrives" + ("; e ends the message." if end_key else ".")
    )


def bridge_on_text(port: int | None, *, paired: bool) -> str:
    """Once the bridge listens: what comes in now, or, with no browser paired yet, how to pair one
    (the pairing dialog shows the code)."""
    if paired:
        return (
            f"Bridge on (127.0.0.1:{port}): answers in the paired browser's chat tabs stream in "
            "here; b stops it."
        )
    return (
        f"Bridge on (127.0.0.1:{port}): no browser is paired yet; type the code shown into the "
        "extension's popup to pair one; b stops it."
    )


def resumed_text(count: int, interrupted: int) -> str:
    text = f"Session resumed: {plural(count, 'message')}; [ and ] browse them."
    if interrupted:
        text += (
            f" {plural(interrupted, 'message')} stopped before "
            f"{'its' if interrupted == 1 else 'their'} end: the commands marked 'not run' never "
            "ran."
        )
    return text + " Paste the model's next answer anywhere."


def what_waits(plan: WritePlan) -> str:
    """What a consent dialog asks about, in a word or two: "a write", "a command", ..."""
    if plan.run is not None:
        return "a command"
    if plan.kind == "changeset":
        return "a command's changes"
    if plan.kind == "read":
        return "a secret-looking file's read"
    return "a write"


def waits_text(number: int, plan: WritePlan) -> str:
    """The status line while a question waits for the person: a write, a command, a read."""
    if plan.run is not None:
        return (
            f"Message {number}: {plan.action} wants to run {plan.run.first_line} "
            "(y: run, n: decline, esc: decide later)."
        )
    if plan.kind == "read":
        return (
            f"Message {number}: {plan.action} wants to read {plan.where}, which looks like a "
            "secret (y: let it read, n: decline, esc: decide later)."
        )
    return (
        f"Message {number}: {plan.action} on {plan.where} waits for you "
        "(y: apply, n: reject, a: apply the rest, esc: decide later)."
    )


def answered_before_text(state: MessageState | None) -> str:
    """What a write's (or a command's) dialog says of the commands of its message answered
    before it, which the dialog covers in the table: "Answered before it: 3 reads (3 ✓ ok); their
    results are in the table behind this dialog." Empty when none was."""
    if state is None:
        return ""
    done = [row for row in state.rows.values() if row.result is not None]
    if not done:
        return ""
    kinds: dict[str, int] = {}
    looks: dict[str, int] = {}
    for row in done:
        assert row.result is not None
        kind = "write" if action_writes(row.action) else "read"
        if "exit" in row.result.extra:  # a command's result has its exit
            kind = "command"
        kinds[kind] = kinds.get(kind, 0) + 1
        shown = STATUS_LOOKS.get(row.status)  # in the table's words
        look = f"{shown.icon} {shown.word}" if shown is not None else row.status
        looks[look] = looks.get(look, 0) + 1
    what = ", ".join(plural(n, kind) for kind, n in kinds.items())
    how = ", ".join(f"{n} {look}" for look, n in looks.items())
    it = "its result is" if len(done) == 1 else "their results are"
    return f"Answered before it: {what} ({how}); {it} in the table behind this dialog."
