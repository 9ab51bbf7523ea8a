"""The sub-commands that work on what a session already holds: `results` prints a message's
result blocks again (completing first any write an earlier run died in the middle of), and `undo`
reverts the changes the journal recorded, or lists them."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from typing import Any

from .envelope import EXIT_NOTHING, EXIT_OK, CommandFailed, ErrorDetail
from .exec_command import result_json, waiting_write
from .inputs import chosen_workspace, open_session, open_workspace
from .parser import UsageError


def cmd_results(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..engine import recovery_notices

    workspace = open_workspace(chosen_workspace(args, warnings))
    session = open_session(workspace, args.state_dir, nothing="results")
    busy, recovered = _recover_unless_busy(workspace, session, warnings)
    number = args.message or session.last_message_number()
    waits = {int(wait.get("message", 0)): wait for wait in session.waits()}
    for waiting, wait in sorted(waits.items()):
        # The other process let go of the session while it asks the person: nothing is busy, but
        # that message is not done, and its write is not an interrupted one either.
        warnings.append(
            f"message {waiting} waits in another Operator process (pid {wait.get('pid')}) for the "
            f"person's answer to {waiting_write(wait)}; its results so far are recorded, the rest "
            "will follow"
        )
    if any(message != number for message, _ in recovered):
        warnings += recovery_notices([(m, r) for m, r in recovered if m != number])
    results = session.results_of(number) if number else []
    if not number or not any(m.number == number for m in session.messages()):
        raise CommandFailed(
            EXIT_NOTHING,
            ErrorDetail(
                "NO_RESULTS",
                f"this session has no message {number or ''}".strip(),
                suggestion="run operator-app exec first",
            ),
        )
    if not results:
        raise _no_results(session, number, busy, waits)
    return _printed(session, number, results, warnings)


def _recover_unless_busy(
    workspace: Any, session: Any, warnings: list[str]
) -> tuple[bool, list[tuple[int, Any]]]:
    """Whether another process is working in the session; when none is, the results of the
    writes the last run died in the middle of (completed first, under the session's lock)."""
    from ..engine import StateUnusable, recover_interrupted_writes

    with contextlib.ExitStack() as held:
        try:
            held.enter_context(session.lock(timeout=1.0))
        except StateUnusable:
            # A live process holds the session (working; a wait for consent lets go of it): its
            # writes are not interrupted ones, and the results recorded so far can be printed all
            # the same.
            warnings.append(
                "another Operator process is working in this session; its current message may have "
                "more results to come"
            )
            return True, []
        if session.unresolved_intents():
            return False, recover_interrupted_writes(workspace, session)
    return False, []


def _no_results(session: Any, number: int, busy: bool, waits: dict[int, Any]) -> CommandFailed:
    """A message with no results yet, and why: an empty stdout with exit 0 would read as
    "nothing to copy back" when the commands in fact never ran (the app stopped at the first
    consent)."""
    from ..engine import unanswered_blocks

    text = session.message_text(number) or ""
    found = unanswered_blocks(text, number, session.used_ids(), interrupted=True)
    blocks = sum(1 for block in found if block.repeat is None)
    if busy:
        detail = "no results yet: another Operator process is still working on it"
    elif number in waits:
        detail = (
            f"no results yet: its {waiting_write(waits[number])} waits for the person's answer in "
            "another Operator process"
        )
    elif blocks:
        detail = f"no results: Operator stopped before any of its {blocks} commands ran"
    elif not found:
        detail = "no results: it held no block for Operator"
    else:
        detail = "no results: every command in it repeated one an earlier message ran"
    return CommandFailed(
        EXIT_NOTHING,
        ErrorDetail(
            "NO_RESULTS",
            f"message {number} has {detail}",
            suggestion="run the message again (operator-app exec, or paste it into the TUI)"
            if blocks
            else "--message N prints an earlier message's results",
        ),
    )


def _printed(
    session: Any, number: int, results: list[Any], warnings: list[str]
) -> tuple[int, Any, str]:
    """The message's result blocks, and a warning for each change undone since the model was
    told of it (the blocks say what the model was told; the undo is said on stderr and in
    --json)."""
    from ..engine import Journal
    from ..protocol import render_results

    text = render_results(results)
    undone = Journal(session.state_dir).undone_by_command()
    warnings += [
        f"{r.id} ({r.action} {r.path}) was undone at {_when(undone[r.id].undone_at)}: the model "
        "still thinks the change is there; tell it"
        for r in results
        if r.ok and r.id in undone
    ]
    shown = [{**result_json(r), "undone": r.ok and r.id in undone} for r in results]
    return EXIT_OK, {"message": number, "results": shown, "copy_text": text}, text


def cmd_undo(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..engine import Journal, UndoRefused, undo_last, undoable

    if args.steps < 1:
        raise UsageError("--steps must be 1 or more")
    workspace = open_workspace(chosen_workspace(args, warnings))
    session = open_session(workspace, args.state_dir, nothing="undo")
    if args.list:
        journal = Journal(session.state_dir)
        entries, undone = undoable(workspace, journal), list(journal.undone_by_command().values())
        lines = [
            (e.seq, f"{e.seq}: {e.action} {e.where} ({e.command_id}, {_when(e.time)})")
            for e in entries
        ]
        lines += [
            (
                e.seq,
                f"{e.seq}: {e.action} {e.where} ({e.command_id}, {_when(e.time)}) undone at "
                f"{_when(e.undone_at)}",
            )
            for e in undone
        ]
        text = "".join(line + "\n" for _, line in sorted(lines, reverse=True))
        return (
            EXIT_OK,
            {
                "changes": [e.record() for e in entries],
                "undone": [{**e.record(), "undone_at": e.undone_at} for e in undone],
            },
            text,
        )
    with session.lock():
        if session.unresolved_intents():
            # A write the last run died in the middle of is completed first: a move or delete it
            # made is not undoable until then, and an older change would be undone in its place.
            from ..engine import recover_interrupted_writes, recovery_notices

            warnings += recovery_notices(recover_interrupted_writes(workspace, session))
        try:
            done = undo_last(workspace, session.state_dir, args.steps)
        except UndoRefused as exc:
            for outcome in getattr(exc, "done", []):
                print(outcome.summary, file=sys.stderr)
            raise CommandFailed(
                EXIT_NOTHING,
                ErrorDetail(
                    "UNDO_REFUSED",
                    str(exc),
                    phase="execution",
                    suggestion="look at the file; undo only reverts what Operator wrote",
                ),
            ) from None
    if not done:
        raise CommandFailed(
            EXIT_NOTHING,
            ErrorDetail(
                "NOTHING_TO_UNDO",
                "there is no change to undo in this workspace's journal",
                suggestion=(
                    "check --workspace and --state-dir name the session that made the change "
                    "(undo --list shows them)"
                ),
            ),
        )
    text = "".join(outcome.summary + "\n" for outcome in done)
    return EXIT_OK, {"undone": [o.summary for o in done]}, text


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp)) if stamp else "an unknown time"
