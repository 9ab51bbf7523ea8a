"""The records the engine makes once, read where they are needed: the line-number rule takes a
change's moves and a command's change-set from the records (never from a diff's text), the diff's
own comparison gives those moves exactly, a command runs through the same dispatch as reads and
writes, and String's topic types are one table whose rows read each block once."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.chanflow import topic_types
from operator_app.engine.executor import _BY_KIND, Engine, approve_all
from operator_app.engine.messages.lines import MessageLines
from operator_app.engine.state.session import Session
from operator_app.engine.textops.diff import text_diff
from operator_app.protocol.chanflow.grammar import SERVED_TOPIC_TYPES
from operator_app.protocol.commands import ACTIONS
from operator_app.protocol.commands.base import CommandKind
from operator_app.protocol.commands.catalog import model_for
from operator_app.protocol.outcomes import (
    Change,
    ChangeOutcome,
    ChangesetOutcome,
    ChangesetState,
    RunOutcome,
    RunOutput,
    SetEntry,
)

S = "\U0001d49e"


def workspace(tmp_path: Path, text: str) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text(text)
    return Workspace(root)


def run_record(state: ChangesetState, *entries: SetEntry) -> RunOutcome:
    return RunOutcome(
        end="exit",
        exit=0,
        signal=None,
        seconds=0.1,
        timeout_s=120,
        started_in=".",
        ended_in=".",
        sandboxed=state != "direct",
        network=False,
        output=RunOutput(text="", lines=0, bytes=0, saved="/x.log", saved_bytes=0),
        changes=ChangesetOutcome(state=state, entries=entries),
    )


def test_the_line_rule_takes_a_changes_moves_from_its_record(tmp_path: Path) -> None:
    """Two lines inserted after line 2 (as the record says; there is no diff to read): an edit
    of line 5 as the message began is now line 7, and is refused with that range."""
    ws = workspace(tmp_path, "".join(f"{n}\n" for n in range(1, 11)))
    lines = MessageLines()
    lines.committed(
        ChangeOutcome(kind="modify", path="a.txt", real="a.txt", moves=(Change(2, 2, 2, 4),)),
        "w1",
    )
    moved = lines.moved(ws, "a.txt", 5, 5)
    assert moved is not None and moved.now == (7, 7) and moved.by == ("w1",)
    assert lines.moved(ws, "a.txt", 1, 2) is None  # above the change: untouched
    # A record that rewrote the file starts the count again, whatever its moves.
    whole = ChangeOutcome(kind="modify", path="a.txt", real="a.txt", rewrote=True)
    lines.committed(replace(whole, moves=(Change(0, 9, 0, 1),)), "w2")
    assert lines.moved(ws, "a.txt", 5, 5) is None


def test_the_line_rule_takes_a_commands_changes_from_its_record(tmp_path: Path) -> None:
    ws = workspace(tmp_path, "one\ntwo\n")
    lines = MessageLines()
    lines.ran(run_record("declined", SetEntry("a.txt", "changed")), "c1")
    assert lines.moved(ws, "a.txt", 1, 1) is None  # not applied: nothing moved
    lines.ran(run_record("applied", SetEntry("a.txt", "changed")), "c2")
    moved = lines.moved(ws, "a.txt", 1, 1)
    assert moved is not None and moved.by_command and moved.by == ("c2",)
    other = MessageLines()
    other.ran(run_record("direct"), "c3")  # no sandbox: any file may have changed
    moved = other.moved(ws, "a.txt", 2, 2)
    assert moved is not None and moved.by == ("c3",)


def _apply(old: list[str], new: list[str], moves: tuple[Change, ...]) -> list[str]:
    out, at = [], 0
    for change in moves:
        out += old[at : change.start] + new[change.new_start : change.new_end]
        at = change.end
    return out + old[at:]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=25),
    st.lists(st.sampled_from("abcdxy"), max_size=25),
    st.booleans(),
)
def test_the_diff_gives_its_moves_exactly(a: list[str], b: list[str], cut: bool) -> None:
    """The moves are the diff's own -/+ runs: applied to the old lines they give the new ones,
    and the diff text is what difflib writes for the same comparison."""
    old, new = "".join(x + "\n" for x in a), "".join(x + "\n" for x in b)
    if cut:
        new = new.removesuffix("\n")
    diff = text_diff(old, new, "f")
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    assert _apply(old_lines, new_lines, diff.moves) == new_lines
    assert diff.removed == sum(c.end - c.start for c in diff.moves)
    assert diff.added == sum(c.new_end - c.new_start for c in diff.moves)
    if old != new and old_lines[:1] != new_lines[:1]:  # no common first line: no offset
        body = difflib.unified_diff(old_lines, new_lines, n=3, lineterm="")
        expected = ["--- a/f", "+++ b/f", *(line.rstrip("\n") for line in list(body)[2:])]
        assert diff.text == "\n".join(expected) + "\n"


def test_runs_are_dispatched_beside_reads_and_writes() -> None:
    """One table in the engine, one row per kind of command, and each action is of one kind."""
    assert set(_BY_KIND) == set(get_args(CommandKind))
    kinds = {}
    for action in ACTIONS:
        model = model_for(action)
        assert model is not None
        kinds[action] = model.model_construct().kind
    assert kinds["shell.run"] == "run" and kinds["fs.read"] == "read"
    assert kinds["fs.write"] == kinds["fs.move"] == kinds["fs.deleteRegion"] == "write"
    assert set(kinds.values()) == {"read", "write", "run"}


def test_the_topic_types_table_serves_the_types_the_grammar_serves() -> None:
    assert set(topic_types.TOPIC_TYPES) == set(SERVED_TOPIC_TYPES)


def test_a_string_block_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However often a waiting write's outlook looks at the message's blocks, and whether the
    block is held back, flushed before or run, its payload is read once."""
    reads: list[str] = []
    file_type = topic_types.TOPIC_TYPES["file"]

    def counting(topic: str, payload: str) -> object:
        reads.append(payload)
        return file_type.read(topic, payload)

    monkeypatch.setitem(topic_types.TOPIC_TYPES, "file", replace(file_type, read=counting))
    root = tmp_path / "ws"
    root.mkdir()
    engine = Engine(Workspace(root), Session(tmp_path / "state"), decide=approve_all)
    message = "".join(f"<{S}=string:t>/write f{n}.txt\nline {n}</{S}>\n" for n in range(3))
    results = engine.run_text(message).results
    assert [result.ok for result in results] == [True, True, True]
    assert len(reads) == 3
