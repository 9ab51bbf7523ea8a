"""String blocks on the real engine, in real folders: what a single message cannot show. A file
changed behind a topic's back (CONFLICT), a block streamed in pieces, one too large to run, a
repeat after a restart, a declined change, an /undo asked about, a topic that outlives its
process and one /close ends, an Operator bug, and a String change the app died in the middle of,
told afterwards in String's own form."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.changes.plan import WritePlan
from operator_app.engine.executor import (
    AwaitingDecision,
    Engine,
    EngineEvent,
    approve_all,
    reject_all,
)
from operator_app.engine.state.session import Session
from operator_app.protocol import CommandResult, render_results
from operator_app.protocol.chanflow.reader import MAX_PAYLOAD_CHARS
from tests.support.blocks import block
from tests.support.cases import ROOT

S = "\U0001d49e"


def chan(topic: str, payload: str) -> str:
    return f"<{S}=string:{topic}>{payload}</{S}>\n"


class Folder:
    def __init__(self, tmp_path: Path, files: dict[str, str]) -> None:
        self.ws, self.state = tmp_path / "ws", tmp_path / "state"
        self.ws.mkdir()
        for rel, text in files.items():
            (self.ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.ws / rel).write_text(text)

    def engine(self, decide: Any = approve_all, listener: Any = None) -> Engine:
        return Engine(Workspace(self.ws), Session(self.state), decide=decide, listener=listener)

    def run(self, text: str, decide: Any = approve_all) -> list[CommandResult]:
        return self.engine(decide).run_text(text).results


def test_a_file_changed_since_the_topic_read_it_is_a_conflict(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.md": "one\ntwo\n"})
    (opened,) = folder.run(chan("t", "/open a.md"))
    assert opened.ok
    (folder.ws / "a.md").write_text("one\nTWO, by the person\n")
    (refused,) = folder.run(chan("t", "/replace a.md:L1\nfirst"))
    assert refused.error_code == "CONFLICT" and refused.status == "conflict"
    assert refused.details is not None
    assert refused.details.split("\n")[-1] == "use /refresh to reload, then retry"
    assert "expected: hash " in refused.details and "current: hash " in refused.details
    assert (folder.ws / "a.md").read_text() == "one\nTWO, by the person\n"
    refreshed, replaced = folder.run(chan("t", "/refresh") + chan("t", "/replace a.md:L1\nfirst"))
    assert refreshed.ok and replaced.ok, replaced.summary
    assert (folder.ws / "a.md").read_text() == "first\nTWO, by the person\n"
    # The topic's own change is what it last read: the next change needs no /refresh.
    (again,) = folder.run(chan("t", "/append a.md\nthird"))
    assert again.ok and (folder.ws / "a.md").read_text().endswith("third\n")


def test_a_streamed_block_runs_when_its_close_tag_arrives(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.md": "x\n"})
    engine = folder.engine()
    with engine.session.lock():
        run = engine.open_stream(source="test")
        assert run.feed(f"Writing now.\n<{S}=string:t>/write b.md\nline one\n") == []
        assert run.pending is not None and run.pending.start_line == 2
        assert not (folder.ws / "b.md").exists()
        (written,) = run.feed(f"line two\n</{S}>\nand more prose")
        assert written.ok and (folder.ws / "b.md").read_text() == "line one\nline two\n"
        assert run.pending is None
        run.end()


def test_a_block_over_the_payload_limit_is_refused_unrun(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {})
    engine = folder.engine()
    with engine.session.lock():
        run = engine.open_stream(source="test")
        run.feed(f"<{S}=string:t>/write huge.txt\n")
        for _ in range(MAX_PAYLOAD_CHARS // 200_000 + 1):
            run.feed("y" * 199_999 + "\n")
        (refused,) = run.feed(f"</{S}>")
        run.end()
    assert refused.error_code == "BLOCK_TOO_LARGE" and not (folder.ws / "huge.txt").exists()


def test_a_page_message_delivered_again_after_a_restart_gets_the_first_answer(
    tmp_path: Path,
) -> None:
    """The bridge delivers one page message as often as the page sends it: every delivery has
    the page's origin, and a block that ran is answered again, never run twice."""
    folder = Folder(tmp_path, {"log.md": "start\n"})
    message = "Adding a line.\n" + chan("t", "/append log.md\nonce")
    page = "page 3 of chat.example/c/1"
    (first,) = folder.engine().run_text(message, origin=page).results
    (again,) = folder.engine().run_text(message, origin=page).results  # as after a restart
    assert first.ok and again.ok and again.id == first.id
    assert again.repeat_of == 1 and again.details is not None
    assert again.details.startswith("(a repeat: this block already ran in message 1;")
    assert (folder.ws / "log.md").read_text() == "start\nonce\n"  # appended once


def test_a_declined_change_changes_nothing_and_may_be_sent_again(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.md": "old\n"})
    message = chan("t", "/write a.md\nnew")
    (declined,) = folder.run(message, decide=reject_all)
    assert declined.error_code == "REJECTED" and declined.status == "rejected"
    assert declined.summary == "\u2717 REJECTED: the person declined /write a.md; nothing changed"
    assert (folder.ws / "a.md").read_text() == "old\n"
    (applied,) = folder.run(message)
    assert applied.ok and (folder.ws / "a.md").read_text() == "new\n"


def test_an_undo_no_person_is_asked_about_is_not_approved_and_holds_back_the_rest(
    tmp_path: Path,
) -> None:
    """With no one to ask (exec without a terminal or --approve), /undo is NOT_APPROVED, not
    REJECTED, and the block after it waits: run again with approval, both run."""
    from operator_app.engine import no_person

    folder = Folder(tmp_path, {"a.md": "a\n"})
    assert all(r.ok for r in folder.run(chan("one", "/write a.md\nA")))
    message = "Take it back.\n" + chan("one", "/undo") + chan("one", "/open a.md")
    undo, held = folder.run(message, decide=no_person)
    assert undo.error_code == "NOT_APPROVED" and undo.status == "rejected"
    assert undo.summary == (
        "\u2717 NOT_APPROVED: /undo of ~/a.md was not applied: no person was asked; nothing changed"
    )
    assert held.error_code == "NOT_APPROVED" and held.summary.startswith(
        f"\u2717 NOT_APPROVED: not run: it comes after [{undo.id}] /undo, which waits"
    )
    assert (folder.ws / "a.md").read_text() == "A\n"
    undone, opened = folder.run(message)
    assert undone.ok and opened.ok and (folder.ws / "a.md").read_text() == "a\n"
    assert opened.details is not None and opened.details.endswith("a")


def test_undo_is_asked_about_and_takes_back_only_the_topics_change(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.md": "a\n", "b.md": "b\n"})
    assert all(
        r.ok for r in folder.run(chan("one", "/write a.md\nA") + chan("two", "/write b.md\nB"))
    )
    asked: list[WritePlan] = []

    def decide(plan: WritePlan, outlook: object = None) -> bool:
        asked.append(plan)
        return False

    (declined,) = folder.run(chan("one", "/undo"), decide=decide)
    assert declined.error_code == "REJECTED" and (folder.ws / "a.md").read_text() == "A\n"
    assert asked[0].action == "/undo" and "-A" in asked[0].diff and "+a" in asked[0].diff
    (undone,) = folder.run("Now really.\n" + chan("one", "/undo"))
    assert undone.summary == "\u2713 Undo: reverted ~/a.md (1 line)"
    assert (folder.ws / "a.md").read_text() == "a\n" and (folder.ws / "b.md").read_text() == "B\n"
    (nothing,) = folder.run("Again.\n" + chan("one", "/undo"))
    assert nothing.error_code == "NO_HISTORY"


def test_a_topic_outlives_its_process_until_close(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.md": "# A\n", "b.md": "# B\n"})
    folder.run(
        chan("keep", "/open a.md") + chan("keep", "/open b.md") + chan("keep", '/set {x} = "a.md"')
    )
    stored = json.loads((folder.state / "topics" / "keep.json").read_text())
    assert stored["current"]["rel"] == "b.md" and stored["variables"] == {"x": "a.md"}
    back, opened = folder.run("Later.\n" + chan("keep", "/back") + chan("keep", "/open {x}"))
    assert back.summary == "Back to a.md" and opened.ok
    (closed,) = folder.run(chan("keep", "/close"))
    assert closed.summary == "\u2713 Closed: a.md"
    assert not (folder.state / "topics" / "keep.json").exists()
    (gone,) = folder.run("After the close.\n" + chan("keep", "/open {x}"))
    assert gone.error_code == "UNDEFINED_VARIABLE"


def test_an_operator_bug_is_an_internal_error_and_loses_no_other_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.engine.chanflow import topic_types

    def broken(call: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setitem(topic_types._FILE_HANDLERS, "ls", broken)
    folder = Folder(tmp_path, {"a.md": "x\n"})
    failed, read = folder.run(chan("t", "/ls") + chan("t", "/open a.md"))
    assert failed.error_code == "INTERNAL" and "(RuntimeError in engine/" in failed.summary
    assert "boom" not in failed.summary + (failed.details or "")  # the text stays in the log
    assert "boom" in (folder.state / "internal-errors.log").read_text()
    assert read.ok


def test_both_dialects_are_asked_about_in_message_order(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {})
    events: list[EngineEvent] = []
    message = (
        block("w1", "fs.write", path="one.txt", content="first")
        + chan("t", "/write two.txt\nsecond")
        + block("w3", "fs.write", path="three.txt", content="third")
    )
    results = folder.engine(listener=events.append).run_text(message).results
    asked = [e.plan.target.rel for e in events if isinstance(e, AwaitingDecision)]
    assert asked == ["one.txt", "two.txt", "three.txt"] and all(r.ok for r in results)
    text = render_results(results)
    assert text.index("id: w1") < text.index(f"<{S}=string:file:t") < text.index("id: w3")


_DIE = """
import os, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from operator_app.engine.executor import Engine, approve_all
from operator_app.engine.state.session import Session
from operator_app.engine.boundary.workspace import Workspace
import importlib
module, name, after = sys.argv[4], sys.argv[5], sys.argv[6] == "after"
owner = importlib.import_module(module)
real = getattr(owner, name)
def die(*args, **kwargs):
    if after:
        real(*args, **kwargs)
    os._exit(9)
setattr(owner, name, die)
Engine(Workspace(sys.argv[2]), Session(Path(sys.argv[3])), decide=approve_all).run_text(sys.argv[7])
"""


@pytest.mark.parametrize(
    ("module", "name", "when", "landed"),
    [
        ("operator_app.engine.changes.content.commit", "install_temp", "before", False),
        ("operator_app.engine.safety.journal", "Journal.commit", "before", True),
    ],
)
def test_a_string_change_the_app_died_in_is_told_in_strings_form(
    tmp_path: Path, module: str, name: str, when: str, landed: bool
) -> None:
    folder = Folder(tmp_path, {"a.md": "old\n"})
    message = chan("t", "/write a.md\nnew")
    if "." in name:  # a method: patch it on its class
        cls, _, method = name.partition(".")
        module, name = f"{module}:{cls}", method
    _die_at(folder, module, name, when, message)
    results = folder.run("Next message.\n" + chan("t", "/info"))
    assert results[0].ok
    recovered = Session(folder.state).results_of(1)
    (result,) = recovered
    assert (
        result.dialect == "string"
        and result.frame["topic"] == "file:t"
        and result.frame["request"] == "/write a.md"
    )
    if landed:
        assert result.ok and result.summary.startswith("\u2713 Written: a.md")
        assert (folder.ws / "a.md").read_text() == "new\n"
        # The block ran: the same text as a new message is a look-alike of it, which runs only
        # once the person approved it knowing that (--approve all asks no one).
        (again,) = folder.run(message)
        assert again.error_code == "NOT_APPROVED" and "same text as message 1" in again.summary
        assert (folder.ws / "a.md").read_text() == "new\n"
    else:
        assert result.error_code == "WRITE_FAILED" and "it was not made" in result.summary
        assert (folder.ws / "a.md").read_text() == "old\n"
        (again,) = folder.run(message)  # it did not: sent again, it runs
        assert again.ok and again.repeat_of is None
    assert render_results([result]).startswith(f"<{S}=string:file:t time=")


def _die_at(folder: Folder, module: str, name: str, when: str, message: str) -> None:
    if ":" in module:
        module, cls = module.split(":")
        script = _DIE.replace(
            "owner = importlib.import_module(module)",
            f"owner = getattr(importlib.import_module(module), {cls!r})",
        )
    else:
        script = _DIE
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(ROOT),
            str(folder.ws),
            str(folder.state),
            module,
            name,
            when,
            message,
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 9, done.stderr


def test_an_undo_the_app_died_in_is_told_as_done(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.md": "old\n"})
    assert folder.run(chan("t", "/write a.md\nnew"))[0].ok
    _die_at(
        folder, "operator_app.engine.chanflow.undoing", "undo_entry", "after", chan("t", "/undo")
    )
    assert (folder.ws / "a.md").read_text() == "old\n"
    folder.run("Next.\n" + chan("t", "/info"))
    (result,) = Session(folder.state).results_of(2)
    assert result.ok and result.summary.startswith("\u2713 Undo: reverted ~/a.md")
