"""A command's record (protocol/outcomes.py `RunOutcome`) in words, pure: its result's summary
and the header lines of its details ("# exit: 0 | cwd: src | 1.2 s", "# changes: ..."), as
OPERATOR_CMD gives them, and the facts both dialects tell the same way (where it ended, what
became of its changes, how its output was cut), which String's bash topic shows in its own form
(protocol/chanflow/bash.py). Also the error a command that did not finish is answered with."""

from __future__ import annotations

from .errors import ErrorCode, OperatorError
from .escapes import escape_name
from .outcomes import ChangesetOutcome, LeftOut, RunOutcome, RunOutput
from .results import count

ENTRIES_SHOWN = 40  # entries a command's result names (the person sees them all in the diff)
# Why an always-allowed command's changes were not applied when no one could be asked
# (engine/messages/not_approved.py).
NO_REVIEW = (
    "no person was asked to review them: Operator ran without a terminal and without --approve; "
    "they land when the person runs the command from a terminal, or with --approve all"
)
_CWD_UNKNOWN = {
    "stopped": "where it ended is not known: it was stopped",
    "no_trap": (
        "where it ended is not known: the script replaced its shell (exec) or its EXIT trap, "
        "which tells it"
    ),
}
_ENTRY_WORDS = {
    "created": " (created)",
    "changed": " (changed)",
    "deleted": " (deleted)",
    "folder made": "/ (folder made)",
    "folder removed": "/ (folder removed)",
}
_LEFT_OUT_TITLES = (
    ("ignored", "not applied (ignored paths)"),
    ("symlink", "not applied (symlinks)"),
    ("special", "not applied (special files)"),
)


def seconds(value: float) -> str:
    return f"{value:.1f} s"


def where_note(run: RunOutcome) -> str:
    """Why the folder the command ended in is not known ("" when it is)."""
    if run.cwd_unknown == "outside":
        return f"it ended outside the workspace ({run.outside})"
    return _CWD_UNKNOWN.get(run.cwd_unknown, "")


def run_header(run: RunOutcome) -> list[str]:
    """The header lines of the result's details, without their "# "."""
    exit_status = run.exit if run.exit is not None else "none"
    shown_cwd = run.ended_in if run.ended_in is not None else run.started_in
    header = [f"exit: {exit_status} | cwd: {shown_cwd} | {seconds(run.seconds)}"]
    note = where_note(run)
    if note:  # then the cwd above is where it started
        header.append(f"cwd: it started in {run.started_in}; {note}")
    return header + fact_lines(run)


def fact_lines(run: RunOutcome) -> list[str]:
    """What became of the command's changes and how its output was cut: the lines both dialects
    show after the exit status."""
    cut = output_line(run.output)
    return changes_lines(run) + ([cut] if cut else [])


def run_details(run: RunOutcome) -> str:
    """The result's details: the header lines, then the output as kept."""
    return "\n".join(f"# {line}" for line in run_header(run)) + "\n" + run.output.text


def run_summary(run: RunOutcome) -> str:
    """The summary of a command that finished (its exit status, whatever it was)."""
    if run.ended_in is not None:
        place = f"cwd {run.ended_in}"
    else:
        place = f"started in {run.started_in}; {where_note(run)}"
    summary = f"exit {run.exit} in {seconds(run.seconds)} ({place}); {changes_words(run)}"
    cut = run.changes.undo_cut
    return summary + (f"; {cut}" if cut else "")


def changes_words(run: RunOutcome) -> str:
    """What became of the changes, as the summary says it."""
    state = run.changes.state
    if state == "none":
        return "no file changes"
    if state == "direct":
        return "changes made directly (not sandboxed)"
    return "changes " + _changes_line(run.changes)


def changes_lines(run: RunOutcome) -> list[str]:
    """The "changes:" line and what goes with it (entries, what was left out, the undo note)."""
    changes = run.changes
    if changes.state == "discarded":
        return ["changes: discarded (the command did not finish)"]
    if changes.state == "direct":
        return ["changes: made directly in the tree (not sandboxed: not reviewed, not undoable)"]
    if run.end == "not_started":
        return []
    lines = [f"changes: {_changes_line(changes)}"]
    if changes.entries:
        lines.append(f"entries: {entries_text(changes)}")
    lines += [f"changes: {line}" for line in left_out_lines(changes.left_out)]
    return lines + ([changes.undo_cut] if changes.undo_cut else [])


def _changes_line(changes: ChangesetOutcome) -> str:
    """What follows "changes: " for a set the command finished with."""
    state, summary = changes.state, changes.summary
    if state == "applied":
        return f"applied: {summary}" + (f" ({changes.note})" if changes.note else "")
    if state == "declined":
        return f"not applied (the person declined them): {summary}"
    if state == "not_approved":
        return f"not applied ({NO_REVIEW}): {summary}"
    if state in ("conflict", "failed"):
        return f"not applied ({changes.reason})"
    return "none"


def entries_text(changes: ChangesetOutcome, most: int = ENTRIES_SHOWN) -> str:
    """ "src/app.py (changed), new.txt (created), build/ (folder made)": which entries, so the
    model knows what its command touched (the person sees the diff), the first `most` and how
    many more."""
    shown = [
        f"{escape_name(entry.path)}{_ENTRY_WORDS[entry.change]}" for entry in changes.entries[:most]
    ]
    more = len(changes.entries) - most
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def left_out_lines(left_out: tuple[LeftOut, ...]) -> list[str]:
    """One line per reason, folders with their counts: "not applied (ignored paths):
    .pytest_cache/ (3), src/__pycache__/ (2)"."""
    lines = []
    for why, title in _LEFT_OUT_TITLES:
        found = [left for left in left_out if left.why == why]
        if found:
            shown = ", ".join(
                f"{'./' if left.folder == '.' else left.folder + '/'} ({left.count})"
                for left in found[:8]
            )
            more = f" and {len(found) - 8} more folders" if len(found) > 8 else ""
            lines.append(f"{title}: {shown}{more}")
    return lines


def output_line(output: RunOutput) -> str:
    """How the output was cut, and where the whole is ("" when it is whole)."""
    if output.whole:
        return ""
    saved = (
        "all of it"
        if output.saved_bytes == output.bytes
        else f"its first {output.saved_bytes // 2**20} MB (of {output.bytes // 2**20} MB)"
    )
    return (
        f"output: {count(output.lines, 'line')} ({output.bytes:,} bytes), "
        f"{count(output.cut_lines, 'line')} ({output.cut_bytes:,} bytes) cut from the middle; "
        f"{saved}: {output.saved}"
    )


def run_failure(run: RunOutcome) -> OperatorError | None:
    """The error of a command that did not run to its own end; None for one that did."""
    if run.end == "not_started":
        lines = run.output.text.strip().splitlines() or ["no reason given"]
        return OperatorError(
            ErrorCode.ERR_SANDBOX_FAILED,
            "the sandbox could not be set up, so the command did not run: " + lines[-1],
        )
    if run.end == "timeout":
        return OperatorError(
            ErrorCode.ERR_COMMAND_TIMEOUT,
            f"the command ran past its {run.timeout_s} s limit and was stopped with its whole "
            "process group; its file changes were discarded; send a quicker command or a larger "
            "timeout_s (at most 600)",
        )
    if run.end in ("stopped", "signal"):
        by = "by the person" if run.end == "stopped" else f"by signal {run.signal}"
        return OperatorError(
            ErrorCode.ERR_COMMAND_KILLED,
            f"the command was stopped {by} after {seconds(run.seconds)}; its file changes were "
            "discarded; ask the person before running it again",
        )
    return None
