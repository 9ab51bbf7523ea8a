"""The repeat rule (docs/design.md), through the real `operator-app exec`. A String block is never
skipped because an earlier message began the same way: its reads run; a change in a message
with the same text as an earlier one runs only once the person saw that in the dialog (exec's
terminal prompt says so; --approve all asks no one, so it does not run). OPERATOR_CMD: an
identical duplicate within one message is ignored (one result); across messages it is answered
"already ran in message N", with how to run it again."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path
from typing import Any

from tests.cli.test_terminal_consent import PROMPT, Terminal
from tests.support.blocks import block
from tests.support.cases import APP
from tests.support.string_exec import Workspace, chan


def test_a_read_sent_again_in_a_later_message_runs_again(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.md": "one\n"})
    first = w.exec(chan("/open a.md"))
    assert first.one["ok"] and first.one["details"].endswith("one")
    w.put("a.md", "two\n")
    # The same text again, then more: the message begins exactly like message 1.
    again = w.exec(chan("/open a.md") + "Now the session.\n" + chan("/info"))
    opened = again.results[0]
    assert opened["ok"] and opened["details"].endswith("two"), opened  # read now, not then
    assert "repeat" not in again.text(0) and opened["id"] != first.one["id"]
    # The very same text once more: a read always runs.
    w.put("a.md", "three\n")
    third = w.exec(chan("/open a.md"))
    assert third.one["details"].endswith("three") and "repeat" not in third.text()


def test_refresh_and_undo_sent_again_in_later_turns_run(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.md": "one\n"})
    assert w.exec("Opening.\n" + chan("/open a.md")).one["ok"]
    assert w.exec("Writing.\n" + chan("/write a.md\nTWO")).one["ok"]
    undone = w.exec("Undo that.\n" + chan("/undo"))
    assert undone.one["ok"] and w.read("a.md") == "one\n"
    assert w.exec("Writing again.\n" + chan("/write a.md\nTHREE")).one["ok"]
    undone = w.exec("Undo that one too.\n" + chan("/undo"))
    assert undone.one["ok"] and w.read("a.md") == "one\n", undone.one
    w.put("a.md", "by hand\n")
    refreshed = w.exec("Look again.\n" + chan("/refresh"))
    assert refreshed.one["details"].endswith("by hand")
    refreshed = w.exec("Look again.\n" + chan("/refresh"))  # the same text: reads always run
    assert refreshed.one["ok"] and "repeat" not in refreshed.text()


def test_a_change_in_a_message_like_an_earlier_one_is_not_run_unasked(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"log.md": "start\n"})
    message = "Adding a line.\n" + chan("/append log.md\nonce") + chan("/open log.md")
    assert [r["ok"] for r in w.exec(message).results] == [True, True]
    again = w.exec(message)
    result, opened = again.results
    # Not "the person said no": no one was asked about the repeat, and the model is told how to
    # run it again on purpose in one round trip. What comes after it runs: the same message run
    # again would be a repeat again, so nothing may wait for that.
    assert result["error_code"] == "NOT_APPROVED" and not result["ok"]
    assert "same text as message 1, whose /append was applied" in result["summary"]
    assert (
        "--approve all does not give; nothing changed; the blocks after it ran"
        in (result["summary"])
    )
    advice = again.text()
    assert "send it in a new message with words of your own before the block" in advice
    assert "to change the file" not in advice
    assert opened["ok"] and opened["details"].endswith("once")
    assert w.read("log.md") == "start\nonce\n"  # appended once


def _read_until_count(term: Terminal, wanted: bytes, times: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while term.seen.count(wanted) < times:
        left = deadline - time.monotonic()
        assert left > 0, f"{wanted!r} not shown {times} times; the terminal shows {term.seen!r}"
        ready, _, _ = select.select([term.master], [], [], left)
        if ready:
            chunk = os.read(term.master, 65536)
            assert chunk, f"the terminal closed; it showed {term.seen!r}"
            term.seen += chunk


def _terminal(w: Workspace, message: str) -> Terminal:
    w.sent += 1
    path = w.tmp / f"message-{w.sent}.txt"
    path.write_text(message, encoding="utf-8")
    return Terminal([APP, "exec", "--workspace", str(w.ws), "--state-dir", str(w.state), str(path)])


def test_the_terminal_prompt_says_the_message_repeats_one_and_asks_each_change(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"log.md": "start\n", "b.md": "b\n"})
    message = "Two changes.\n" + chan("/append log.md\nonce") + chan("/append b.md\nmore")
    assert [r["ok"] for r in w.exec(message).results] == [True, True]
    term = _terminal(w, message)
    shown = term.read_until(PROMPT)
    assert (
        b"note: this message has the same text as message 1, whose /append was applied; "
        b"approve only if it should run again" in shown
    )
    term.answer("a")  # "all the rest" does not approve a repeated message's next change
    _read_until_count(term, PROMPT, 2)
    assert b"/append b.md" in term.seen.rsplit(PROMPT, 2)[1]
    term.answer("n")
    code, out, err = term.finish()
    assert code == 0, err
    assert w.read("log.md") == "start\nonce\nonce\n" and w.read("b.md") == "b\nmore\n"
    assert "REJECTED" in out


def test_an_identical_operator_cmd_duplicate_in_one_message_has_one_result(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"a.txt": "x\n"})
    twice = block("w1", "fs.write", path="a.txt", content="y") * 2
    run = w.exec(twice + block("r1", "fs.stat", path="a.txt"))
    assert [r["id"] for r in run.results] == ["w1", "r1"]
    assert any("line 8: id w1 repeats the block at line 1" in warning for warning in run.warnings)
    assert run.copy_text.count("OPERATOR_RESULT\nid: w1\n") == 1


def test_a_reused_id_within_a_message_is_refused_even_after_a_declined_write(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"a.txt": "x\n"})
    message = block("w1", "fs.write", path="a.txt", content="y") + block(
        "w1", "fs.write", path="a.txt", content="z"
    )
    declined, other = w.exec(message, approve="none").results
    assert declined["error_code"] == "ERR_REJECTED"
    assert other["error_code"] == "ERR_DUPLICATE_ID" and "w1-2" in other["summary"]
    assert w.read("a.txt") == "x\n"


def test_a_command_of_an_earlier_message_says_how_to_run_it_again(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.txt": "x\n"})
    message = block("w1", "fs.write", path="a.txt", content="y")
    assert w.exec(message).one["ok"]
    w.put("a.txt", "by hand\n")
    again = w.exec(message).one
    assert again["summary"].startswith("already ran in message 1: ")
    assert again["summary"].endswith("(not run again; to run it again, send it with a new id)")
    assert w.read("a.txt") == "by hand\n"


# -- commands (issue 24's bash topics and shell.run) under the repeat rule ----------------------


def test_a_repeated_messages_script_never_reruns_unasked(tmp_path: Path) -> None:
    from tests.cli.test_shell import sandbox_or_skip

    sandbox_or_skip()
    w = Workspace(tmp_path, {"log.md": "start\n"})
    message = "Logging.\n" + chan("echo once >> log.md", "bash:dev")
    first = w.exec(message).one
    assert first["ok"] and w.read("log.md") == "start\nonce\n", first
    again = w.exec(message).one  # the same text as message 1: --approve all asks no one
    assert again["error_code"] == "NOT_APPROVED" and not again["ok"]
    assert "same text as message 1, whose bash was applied" in again["summary"]
    assert "to run this script again on purpose" in f"{again['summary']}{again['details']}"
    assert w.read("log.md") == "start\nonce\n"
    rerun = w.exec("Once more, after the fix.\n" + chan("echo once >> log.md", "bash:dev")).one
    assert rerun["ok"] and w.read("log.md") == "start\nonce\nonce\n"  # as it advised
    # OPERATOR_CMD: the same block again is "already ran", never run; a new id runs it.
    command = block("c1", "shell.run", command="echo twice >> log.md")
    assert w.exec(command).one["ok"] and w.read("log.md").endswith("twice\n")
    repeated = w.exec(command).one
    assert repeated["summary"].startswith("already ran in message 4: ")
    assert w.read("log.md") == "start\nonce\nonce\ntwice\n"


def test_a_repeated_messages_script_is_asked_alone_even_when_always_allowed(
    tmp_path: Path,
) -> None:
    from operator_app.engine import Engine, Session, ShellPolicy
    from operator_app.engine import Workspace as Folder
    from tests.cli.test_shell import sandbox_or_skip

    sandbox_or_skip()
    w = Workspace(tmp_path, {"log.md": "start\n"})
    asked: list[Any] = []

    def decide(plan: Any, outlook: Any) -> bool:
        asked.append(plan)
        return True

    script = "echo once >> log.md"
    engine = Engine(
        Folder(w.ws),
        Session(w.state),
        decide=decide,
        shell=ShellPolicy(always_allowed=lambda text: text.strip() == script),
    )
    message = "Logging.\n" + chan(script, "bash:dev")
    assert engine.run_text(message).results[0].ok
    assert [plan.kind for plan in asked] == ["changeset"]  # always allowed: the run unasked
    (again,) = engine.run_text(message).results
    run_plan = next(plan for plan in asked[1:] if plan.kind == "run")
    assert run_plan.asked_alone and run_plan.needs_own_yes
    assert run_plan.notes[0] == (
        "this message has the same text as message 1, whose bash was applied; approve only if "
        "it should run again"
    )
    assert again.ok and w.read("log.md") == "start\nonce\nonce\n"  # the person said yes


def test_a_page_message_delivered_again_never_reruns_its_script(tmp_path: Path) -> None:
    from operator_app.engine import Engine, Session, approve_all
    from operator_app.engine import Workspace as Folder
    from tests.cli.test_shell import sandbox_or_skip

    sandbox_or_skip()
    w = Workspace(tmp_path, {"log.md": "start\n"})
    engine = Engine(Folder(w.ws), Session(w.state), decide=approve_all)
    message = "Logging.\n" + chan("echo once >> log.md", "bash:dev")
    (first,) = engine.run_text(message, origin="chat.example/c/1#3").results
    # The bridge delivers the same page message again (it grew, or after a restart).
    (again,) = engine.run_text(message + "Done.\n", origin="chat.example/c/1#3").results
    assert first.ok and again.repeat_of == 1 and again.id == first.id
    assert "nothing was run again" in (again.details or "")
    assert w.read("log.md") == "start\nonce\n"
