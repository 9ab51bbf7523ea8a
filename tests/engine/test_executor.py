"""The engine through its own API: message order, streaming, the session on disk, duplicates."""

from __future__ import annotations

from pathlib import Path

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.executor import (
    AwaitingDecision,
    BlockStarted,
    Engine,
    ResultReady,
    approve_all,
    reject_all,
)
from operator_app.engine.state.session import Session
from operator_app.protocol import render_results
from tests.support.blocks import b64, block


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.txt").write_text("one\ntwo\n")
    return root


def engine(ws: Path, state: Path, **kwargs: object) -> Engine:
    return Engine(Workspace(ws), Session(state), **kwargs)  # type: ignore[arg-type]


def test_results_come_in_message_order_and_a_write_holds_back_the_rest(
    ws: Path, tmp_path: Path
) -> None:
    events: list[object] = []
    message = (
        block("r1", "fs.readSlice", path="notes/a.txt")
        + block("w1", "fs.write", path="notes/a.txt", content_b64=b64("three\n"))
        + block("r2", "fs.readSlice", path="notes/a.txt")
    )
    run = engine(ws, tmp_path / "state", decide=approve_all, listener=events.append).run_text(
        message
    )
    assert [r.id for r in run.results] == ["r1", "w1", "r2"]
    assert all(r.ok for r in run.results), [r.summary for r in run.results]
    assert "1: three" in (run.results[2].details or "")
    kinds = [type(e).__name__ for e in events]
    # The write's decision comes before the verifying read even starts.
    assert (
        kinds.index("AwaitingDecision")
        < [i for i, e in enumerate(events) if isinstance(e, BlockStarted)][2]
    )
    assert any(isinstance(e, ResultReady) and e.result.id == "w1" for e in events)


def test_rejected_write_changes_nothing_and_says_so(ws: Path, tmp_path: Path) -> None:
    before = (ws / "notes" / "a.txt").read_bytes()
    run = engine(ws, tmp_path / "state", decide=reject_all).run_text(
        block("w1", "fs.write", path="notes/a.txt", content="x")
    )
    (result,) = run.results
    assert not result.ok and result.error_code == "ERR_REJECTED" and result.status == "rejected"
    assert (ws / "notes" / "a.txt").read_bytes() == before


def test_streamed_blocks_run_at_their_end_marker_and_pending_becomes_missing_end(
    ws: Path, tmp_path: Path
) -> None:
    run = engine(ws, tmp_path / "state").open_stream()
    first = block("r1", "fs.read", path="notes/a.txt")
    assert run.feed(first[:30]) == []
    done = run.feed(first[30:] + "OPERATOR_CMD\nversion: 1\nid: r2\n")
    assert [r.id for r in done] == ["r1"]
    assert run.pending is not None and run.pending.id_hint == "r2"
    last = run.end()
    assert [(r.id, r.error_code) for r in last] == [("r2", "ERR_MISSING_END_MARKER")]


def test_results_are_on_disk_before_they_are_returned_and_survive_a_restart(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    run = engine(ws, state).run_text(
        block("r1", "fs.read", path="notes/a.txt") + block("bad", "fs.reed", path="x")
    )
    reopened = Session(state)
    assert reopened.last_message_number() == run.number
    assert render_results(reopened.results_of(run.number)) == render_results(run.results)
    assert reopened.message_text(run.number) is not None


def test_identical_repeat_is_not_run_again_and_different_content_is_a_duplicate_id(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    message = block("w1", "fs.write", path="notes/new.txt", content="hello")
    first = engine(ws, state, decide=approve_all).run_text(message)
    assert first.results[0].ok
    (ws / "notes" / "new.txt").write_text("changed by hand\n")
    again = engine(ws, state, decide=approve_all).run_text(message)
    (answer,) = again.results
    assert answer.ok and len(again.duplicates) == 1
    assert answer.summary == (
        f"already ran in message {first.number}: {first.results[0].summary} (not run again; to run "
        "it again, send it with a new id)"
    )
    assert answer.repeat_of == first.number and answer.line == 1
    assert (ws / "notes" / "new.txt").read_text() == "changed by hand\n"  # not written twice
    other = engine(ws, state, decide=approve_all).run_text(
        block("w1", "fs.write", path="notes/new.txt", content="bye")
    )
    assert other.results[0].error_code == "ERR_DUPLICATE_ID"
    assert "w1-2" in other.results[0].summary


def test_invalid_blocks_do_not_burn_their_id(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    bad = engine(ws, state).run_text(block("r1", "fs.readSlice", path="notes/a.txt", lines="zero"))
    assert bad.results[0].error_code == "ERR_INVALID_READSLICE_PARAMS"
    fixed = engine(ws, state).run_text(block("r1", "fs.readSlice", path="notes/a.txt", lines="5"))
    assert fixed.results[0].ok


def test_block_without_readable_id_gets_a_generated_operator_error(
    ws: Path, tmp_path: Path
) -> None:
    run = engine(ws, tmp_path / "state").run_text(
        "OPERATOR_CMD\nversion: 1\naction: fs.read\nEND_OPERATOR_CMD\n"
    )
    (result,) = run.results
    assert result.action == "operator.error" and result.id == f"operator-error-{run.number}-1"
    assert '"related_id": null' in (result.details or "")


def test_a_decision_can_see_the_plan(ws: Path, tmp_path: Path) -> None:
    seen = []

    def decide(plan: object, outlook: object = None) -> bool:
        seen.append(plan)
        return True

    events: list[object] = []
    engine(ws, tmp_path / "state", decide=decide, listener=events.append).run_text(
        block("w1", "fs.write", path="notes/a.txt", content_b64=b64("one\nTWO\n"))
    )
    (plan,) = seen
    assert plan.added == 1 and plan.removed == 1 and "+TWO" in plan.diff  # type: ignore[attr-defined]
    assert any(isinstance(e, AwaitingDecision) for e in events)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROSE = st.sampled_from(
    [
        "Here is the plan.\n",
        "```\n",
        "\n",
        "I act through OPERATOR_CMD blocks.\n",
        "> quote\n",
        "\r\n",
    ]
)
BLOCKS = st.sampled_from(
    [
        ("fs.read", {"path": "notes/a.txt"}),
        ("fs.stat", {"path": "notes"}),
        ("fs.readSlice", {"path": "notes/a.txt", "lines": "0"}),
        ("fs.reed", {"path": "x"}),
        ("fs.list", {"path": "../.."}),
        ("operator.getCommentStyle", {"language": "ts"}),
    ]
)


@given(st.lists(st.tuples(PROSE, BLOCKS), min_size=1, max_size=12))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_every_complete_block_gets_exactly_one_result(
    ws: Path,
    tmp_path_factory: pytest.TempPathFactory,
    items: list[tuple[str, tuple[str, dict[str, str]]]],
) -> None:
    message = "".join(
        prose + block(f"id{n}", action, **fields)
        for n, (prose, (action, fields)) in enumerate(items)
    )
    run = engine(ws, tmp_path_factory.mktemp("state")).run_text(message)
    assert [r.id for r in run.results] == [f"id{n}" for n in range(len(items))]


def test_a_declined_write_does_not_burn_its_id(ws: Path, tmp_path: Path) -> None:
    """Nothing changed, so the same command is not a repeat: sent again it asks again."""
    state = tmp_path / "state"
    message = block("w1", "fs.write", path="notes/a.txt", content="three")
    declined = engine(ws, state, decide=reject_all).run_text(message)
    assert declined.results[0].error_code == "ERR_REJECTED"
    again = engine(ws, state, decide=approve_all).run_text(message)
    assert [r.ok for r in again.results] == [True] and not again.duplicates
    assert (ws / "notes" / "a.txt").read_text() == "three\n"
    third = engine(ws, state, decide=approve_all).run_text(
        message
    )  # applied once: now it is a repeat
    assert [r.summary.split(":")[0] for r in third.results] == [
        f"already ran in message {again.number}"
    ]


def test_a_streamed_message_longer_than_the_window_says_its_blocks_ran_as_they_came(
    ws: Path, tmp_path: Path
) -> None:
    run = engine(ws, tmp_path / "state").open_stream()
    first = run.feed(block("r1", "fs.read", path="notes/a.txt"))
    assert [r.id for r in first] == ["r1"]  # it ran before anyone could know the message's length
    for _ in range(25):
        run.feed("prose " * 1_500 + "\n")
    run.feed(block("r2", "fs.read", path="notes/a.txt"))
    run.end()
    assert [r.id for r in run.results] == ["r1", "r2"]
    assert any(
        "more than the last 200000 a whole message is scanned in; its blocks ran as they arrived"
        in w
        for w in run.warnings
    ), run.warnings


def test_a_streamed_message_within_the_window_gets_no_such_warning(
    ws: Path, tmp_path: Path
) -> None:
    run = engine(ws, tmp_path / "state").open_stream()
    run.feed(block("r1", "fs.read", path="notes/a.txt") + "prose\n" * 1000)
    run.end()
    assert run.warnings == []


def test_a_stream_that_opens_on_more_than_the_window_scans_only_its_last_200000_characters(
    ws: Path, tmp_path: Path
) -> None:
    """A followed file already written past the window when the stream opens: what is there is
    a message so far, scanned as a paste would be; blocks that come after run as they arrive."""
    early = block("w1", "fs.read", path="notes/a.txt")
    padding = ("z" * 99 + "\n") * 2_500
    run = engine(ws, tmp_path / "state").open_stream()
    first = run.feed(early + padding + block("w2", "fs.read", path="notes/a.txt"))
    assert [r.id for r in first] == ["w2"]
    assert any("only the last 200000 were scanned" in w for w in run.warnings), run.warnings
    assert [r.id for r in run.feed(block("w3", "fs.read", path="notes/a.txt"))] == ["w3"]
    run.end()
    assert [r.id for r in run.results] == ["w2", "w3"]


# -- a write after a failed write of the same entry -------------------------------------------

MISSING_ANCHOR = b64('{"version":1,"edits":[{"op":"insertAfter","anchor":"nope","text":"x"}]}')


def test_a_write_after_a_failed_write_of_its_file_is_not_run_and_others_are(
    ws: Path, tmp_path: Path
) -> None:
    import os

    os.symlink("notes", ws / "alias")  # another spelling of the same folder
    run = engine(ws, tmp_path / "state", decide=approve_all).run_text(
        block("e1", "fs.applyEdits", path="notes/a.txt", edits_b64=MISSING_ANCHOR)
        + block("w1", "fs.write", path="alias/a.txt", content="second")
        + block("m1", "fs.copy", path="notes/a.txt", path_to="notes/c.txt")
        + block("w2", "fs.write", path="notes/b.txt", content="unrelated")
        + block("r1", "fs.read", path="notes/a.txt")
    )
    assert [r.error_code for r in run.results] == [
        "ERR_ANCHOR_NOT_FOUND",
        "ERR_EARLIER_WRITE_FAILED",
        "ERR_EARLIER_WRITE_FAILED",
        None,
        None,
    ]
    assert "the earlier fs.applyEdits of notes/a.txt in this message, id e1 (line 1), failed" in (
        run.results[1].summary
    )
    assert (ws / "notes" / "a.txt").read_text() == "one\ntwo\n"
    assert not (ws / "notes" / "c.txt").exists()
    assert (ws / "notes" / "b.txt").read_text() == "unrelated"
    # Refused without running, so their ids stay free: sent again in a new message, they run.
    again = engine(ws, tmp_path / "state", decide=approve_all).run_text(
        block("w1", "fs.write", path="alias/a.txt", content="second")
    )
    assert again.results[0].ok and (ws / "notes" / "a.txt").read_text() == "second\n"


def test_the_refusal_holds_within_one_message_only(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    engine(ws, state, decide=reject_all).run_text(
        block("w1", "fs.write", path="notes/a.txt", content="declined")
    )
    later = engine(ws, state, decide=approve_all).run_text(
        block("w2", "fs.write", path="notes/a.txt", content="applied")
    )
    assert later.results[0].ok and (ws / "notes" / "a.txt").read_text() == "applied\n"


def test_a_repeat_of_a_failed_write_holds_back_the_writes_after_it(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    failing = block("e1", "fs.applyEdits", path="notes/a.txt", edits_b64=MISSING_ANCHOR)
    engine(ws, state, decide=approve_all).run_text(failing)
    run = engine(ws, state, decide=approve_all).run_text(
        failing + block("w1", "fs.write", path="notes/a.txt", content="after")
    )
    assert [r.error_code for r in run.results] == [
        "ERR_ANCHOR_NOT_FOUND",
        "ERR_EARLIER_WRITE_FAILED",
    ]
    assert run.results[0].summary.startswith("already ran in message 1: ERR_ANCHOR_NOT_FOUND")
