"""The session while a write waits for the person: the lock is let go of, so `operator-app exec`
and `results` in the same session go on at once instead of waiting 30 s and failing, and they
say which message waits; the lock is taken back before the write is committed. Read results are
recorded in batches before anything sees them, and what a process appends it never reads back."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.changes.plan import WritePlan
from operator_app.engine.executor import AwaitingDecision, Engine, EngineEvent, ResultReady
from operator_app.engine.state import session as session_module
from operator_app.engine.state.lock import SessionLock
from operator_app.engine.state.session import Session
from tests.support.blocks import block

APP = str(Path(sys.executable).with_name("operator-app"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_text("line\n")
    (root / "g.txt").write_text("other\n")
    return root


class HeldConsent:
    """A write's consent that waits, on the engine's thread, until the test answers."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.answer = threading.Event()

    def __call__(self, plan: WritePlan, outlook: object = None) -> bool:
        self.asked.set()
        assert self.answer.wait(60)
        return True


def run_in_thread(engine: Engine, text: str) -> tuple[threading.Thread, list[Any]]:
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(engine.run_text(text)), daemon=True)
    thread.start()
    return thread, done


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    # Well under the lock's 30 s: a session still held during the wait shows as a timeout here.
    return subprocess.run([APP, *args], input=stdin, capture_output=True, text=True, timeout=15)


def test_exec_and_results_go_on_while_a_write_waits_for_consent(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    consent = HeldConsent()
    engine = Engine(Workspace(ws), Session(state), decide=consent)
    thread, done = run_in_thread(
        engine,
        block("r1", "fs.stat", path="f.txt")
        + block("w1", "fs.write", path="f.txt", content="changed")
        + block("r2", "fs.read", path="f.txt"),
    )
    assert consent.asked.wait(30)
    try:
        other = cli(
            "exec",
            "--workspace",
            str(ws),
            "--state-dir",
            str(state),
            stdin=block("x1", "fs.read", path="g.txt"),
        )
        assert other.returncode == 0, other.stderr
        assert "id: x1\nok: true" in other.stdout
        assert (
            "message 1 of this session waits in another Operator process (pid "
            f"{os.getpid()}) for the person's answer to fs.write of f.txt (id w1); "
            "this message ran meanwhile"
        ) in other.stderr
        # What the waiting message has so far is printed, and it is called waiting, not stopped.
        results = cli(
            "results", "--workspace", str(ws), "--state-dir", str(state), "--message", "1"
        )
        assert results.returncode == 0, results.stderr
        assert "id: r1\nok: true" in results.stdout and "w1" not in results.stdout
        assert "message 1 waits in another Operator process" in results.stderr
    finally:
        consent.answer.set()
        thread.join(30)
    (run,) = done
    assert [(r.id, r.ok) for r in run.results] == [("r1", True), ("w1", True), ("r2", True)]
    assert (ws / "f.txt").read_text() == "changed\n"
    assert Session(state).waits() == []
    numbers = {r.id: n for n in (1, 2) for r in Session(state).results_of(n)}
    assert numbers == {"r1": 1, "x1": 2, "w1": 1, "r2": 1}


def test_a_message_whose_only_write_waits_has_no_results_yet_and_says_why(
    ws: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    consent = HeldConsent()
    thread, _ = run_in_thread(
        Engine(Workspace(ws), Session(state), decide=consent),
        block("w1", "fs.write", path="f.txt", content="changed"),
    )
    assert consent.asked.wait(30)
    try:
        results = cli("results", "--workspace", str(ws), "--state-dir", str(state), "--last")
    finally:
        consent.answer.set()
        thread.join(30)
    assert results.returncode == 6
    assert (
        "message 1 has no results yet: its fs.write of f.txt (id w1) waits for the person's "
        "answer in another Operator process"
    ) in results.stderr


def test_the_lock_is_taken_back_before_the_write_is_committed(ws: Path, tmp_path: Path) -> None:
    """Another holder between the answer and the commit: the write waits for it, and commits only
    once it is done (never while another process works in the session)."""
    state = tmp_path / "state"
    consent = HeldConsent()
    thread, done = run_in_thread(
        Engine(Workspace(ws), Session(state), decide=consent),
        block("w1", "fs.write", path="f.txt", content="changed"),
    )
    assert consent.asked.wait(30)
    other = Session(state)
    with other.lock(timeout=5):
        consent.answer.set()
        thread.join(0.5)
        assert thread.is_alive() and (ws / "f.txt").read_text() == "line\n"
    thread.join(30)
    assert [(r.id, r.ok) for r in done[0].results] == [("w1", True)]


def test_a_wait_left_by_a_process_that_died_is_not_reported(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "waiting").mkdir()
    (state / "waiting" / "4242-deadbeef.json").write_text(
        '{"message": 3, "id": "w9", "pid": 4242, "since": 1}'
    )
    lock = SessionLock(state)
    assert lock.waits() == []
    assert not (state / "waiting" / "4242-deadbeef.json").exists()
    with (
        lock.hold(),
        lock.waiting({"message": 5, "id": "w1", "action": "fs.write", "path": "a.txt"}),
    ):
        assert [(w["message"], w["id"], w["pid"]) for w in SessionLock(state).waits()] == [
            (5, "w1", os.getpid())
        ]
    assert lock.waits() == [] and os.listdir(state / "waiting") == []


# --- recording read results in batches ----------------------------------------------------


def test_read_results_are_recorded_before_they_are_shown_and_in_one_append(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    results_file = state / "session" / "results.jsonl"
    appends: list[int] = []
    real_append = session_module.append_jsonl

    def counted(path: Path, records: Any, **kwargs: Any) -> Any:
        if path == results_file:
            appends.append(1 if isinstance(records, dict) else len(records))
        return real_append(path, records, **kwargs)

    monkeypatch.setattr(session_module, "append_jsonl", counted)
    seen_on_disk: list[tuple[str, bool]] = []

    def listener(event: EngineEvent) -> None:
        if isinstance(event, ResultReady):
            seen_on_disk.append(
                (event.result.id, f'"id": "{event.result.id}"' in results_file.read_text())
            )
        elif isinstance(event, AwaitingDecision):
            seen_on_disk.append(
                ("asked", all(f'"id": "r{n}"' in results_file.read_text() for n in range(50)))
            )

    reads = "".join(block(f"r{n}", "fs.stat", path="f.txt") for n in range(50))
    more = "".join(block(f"s{n}", "fs.stat", path="g.txt") for n in range(50))
    run = Engine(
        Workspace(ws), Session(state), decide=lambda plan, outlook=None: True, listener=listener
    ).run_text(reads + block("w1", "fs.write", path="f.txt", content="changed") + more)
    assert len(run.results) == 101 and all(r.ok for r in run.results)
    assert all(on_disk for _, on_disk in seen_on_disk) and len(seen_on_disk) == 102
    # The 50 reads before the write in one append, the write's intent and its result, the 50
    # after in one.
    assert appends == [50, 1, 1, 50]
    stored = [r.id for r in Session(state).results_of(1)]
    assert stored == [f"r{n}" for n in range(50)] + ["w1"] + [f"s{n}" for n in range(50)]


def test_a_repeated_id_in_the_same_batch_is_seen_before_its_result_is_written(
    ws: Path, tmp_path: Path
) -> None:
    twice = (
        block("a", "fs.stat", path="f.txt")
        + block("a", "fs.stat", path="f.txt")
        + block("a", "fs.read", path="f.txt")
    )
    run = Engine(Workspace(ws), Session(tmp_path / "state")).run_text(twice)
    # The identical duplicate is ignored, as the protocol says: one result for the two.
    assert [(r.id, r.ok, r.error_code, r.line) for r in run.results] == [
        ("a", True, None, 1),
        ("a", False, "ERR_DUPLICATE_ID", 13),
    ]
    assert "the block at line 1 of this message" in run.results[1].summary
    assert [d.command_id for d in run.duplicates] == ["a"]
    assert any("line 7: id a repeats the block at line 1" in w for w in run.warnings)


def test_what_this_process_appended_is_never_read_back(ws: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    Engine(Workspace(ws), Session(state)).run_text(
        "".join(block(f"old{i}", "fs.stat", path="f.txt") for i in range(30))
    )
    session = Session(state)
    engine = Engine(Workspace(ws), session, decide=lambda plan, outlook=None: True)
    for round_no in range(3):
        engine.run_text(
            "".join(block(f"new{round_no}-{i}", "fs.stat", path="f.txt") for i in range(20))
            + block(f"w{round_no}", "fs.write", path="f.txt", content=f"v{round_no}")
        )
    assert (
        session.result_records_parsed == 30
    )  # the earlier process's records, once; none of its own
    assert len(session.used_ids()) == 30 + 3 * 21
