"""The real TUI with its real bridge, spoken to as the extension speaks (HTTP on loopback): an
answer streamed in runs its reads before it is finished, a write still waits for y in the
terminal, the results handed back are exactly what c copies, and nothing runs twice however often
the same answer is sent (a reload, a second tab, a restart of Operator)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from operator_app.bridge import service
from operator_app.tui.screens.confirm import ConfirmScreen
from operator_app.tui.screens.consent import ConsentScreen
from operator_app.tui.screens.pairing import PairingScreen
from tests.support.blocks import b64, block
from tests.support.bridge_http import Extension, bridged_app, paired_extension
from tests.support.pilot import SIZE, asks, notes, question, rows, wait_for
from tests.support.pilot import press_copy as copied

pytestmark = pytest.mark.asyncio

READ = block("r1", "fs.read", path="notes/plan.txt")
LIST = block("r2", "fs.list", path=".")
WRITE = block("w1", "fs.write", path="notes/plan.txt", content_b64=b64("Alpha\nBeta\nGamma\n"))
CHECK = block("v1", "fs.readSlice", path="notes/plan.txt")


async def test_reads_run_while_the_answer_is_still_streaming(workspace: Path, state: Path) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        text = "I'll look first.\n" + READ + LIST[:31]
        reply = await extension.message(text, generating=True)
        assert reply.json()["state"] == "streaming"
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok"), ("r2", "pending")])
        assert not app.current().finished
        assert (await extension.results())["state"] == "streaming"
        assert "streaming from the browser (ChatGPT)" in app.status_line.text
        await extension.message(text + LIST[31:] + "\nThat's all.", generating=False)
        result = await extension.settled()
        assert (result["state"], result["count"]) == ("ready", 2)
        assert rows(app) == [("r1", "ok"), ("r2", "ok")] and app.current().finished
        assert app.current().source == "bridge ChatGPT"


async def test_the_message_pane_shows_a_streamed_answer_once(workspace: Path, state: Path) -> None:
    """The Claude page's answer of issue 20: its start, a pause, the rest. The pane holds the text
    the session saved, line for line, and [ / ] show it the same."""
    start = "Hello.\n\n```text\nOPERATOR_CMD\nversion: 1\n"
    whole = start + "id: r2\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n```\n\nDone."
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(block("r1", "fs.stat", path="README.md"), position=0)
        await wait_for(pilot, lambda: app.current() is not None and app.current().finished)
        await extension.message(start, generating=True, position=1)
        await wait_for(pilot, lambda: len(app.states) == 2 and app.current().text.endswith(start))
        await pilot.pause(0.3)
        assert app.current().text == start
        await extension.message(whole, generating=False, position=1)
        await wait_for(pilot, lambda: app.current().finished and rows(app) == [("r2", "ok")])
        number = app.current().number
        assert app.runner.session.message_text(number) == whole
        assert app.current().text == whole

        def shown():
            return [line.text for line in app.message_view.lines if line.number is not None]

        await wait_for(pilot, lambda: len(shown()) >= len(whole.split("\n")))
        assert shown() == whole.split("\n")  # 10 lines, not 13
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: app.current().number != number)
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: app.current().number == number)
        assert shown() == whole.split("\n")


async def test_a_write_waits_for_the_terminal_and_the_results_are_exactly_what_c_copies(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(WRITE + CHECK)
        await wait_for(pilot, lambda: asks(app))
        waiting = await extension.results(wait=0.2)
        assert (waiting["state"], waiting["waiting_for"], waiting["copy_text"]) == (
            "waiting",
            "fs.write notes/plan.txt",
            "",
        )
        # Issue 35: "the results are in the input box" is refused while none are ready: the TUI
        # must not say a waiting message's results went to the chat.
        for number in (waiting["message"], None):
            reply = await extension.post(
                "/v1/delivered",
                {"conversation": "chat/1", "position": 0, "message": number, "sent": False},
            )
            assert reply.json() == {"ok": False}
        assert not any("input box" in n for n in notes(app))
        assert (await extension.results())["delivered"] is False
        # Nothing the browser says can answer the dialog: only the person here can.
        await extension.message(WRITE + CHECK, generating=False)
        assert (
            asks(app) and (workspace / "notes" / "plan.txt").read_text() != "Alpha\nBeta\nGamma\n"
        )
        poll = asyncio.ensure_future(extension.results(wait=10))
        await pilot.press("y")
        result = await poll
        if result["state"] == "waiting":  # news: no write waits any more (the read still runs)
            assert result["waiting_for"] is None
            result = await extension.settled()
        assert (result["state"], result["count"], result["waiting_for"]) == ("ready", 2, None)
        assert (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
        await wait_for(pilot, lambda: app.current().finished)
        assert result["copy_text"] == await copied(pilot, app)
        assert result["copy_text"].split("\n").count("OPERATOR_RESULT") == 2
        reply = await extension.post(
            "/v1/delivered",
            {"conversation": "chat/1", "position": 0, "message": result["message"], "sent": False},
        )
        assert reply.json() == {"ok": True}
        await wait_for(
            pilot, lambda: any("2 results are in the chat's input box" in n for n in notes(app))
        )
        assert (await extension.results())["delivered"] is True


async def test_a_declined_write_is_reported_back_as_rejected(workspace: Path, state: Path) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(WRITE)
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("n")
        result = await extension.settled()
        assert result["state"] == "ready" and "ERR_REJECTED" in result["copy_text"]


async def test_a_reload_or_a_second_tab_runs_nothing_twice(workspace: Path, state: Path) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        text = READ + LIST
        await extension.message(text[:40], generating=True)
        await extension.message(text, generating=False)
        first = await extension.settled()
        assert first["state"] == "ready"
        results_before = app.runner.session.results_of(first["message"])
        # The page reloads mid-way and sends what it shows, then all of it; a second tab on the
        # same conversation sends it too.
        for again in (text[:40], text, text):
            await extension.message(again, generating=again != text)
        second_tab = Extension(app.bridge.port, extension.token)
        await second_tab.message(text, generating=False, title="Fix the tests (2)")
        await pilot.pause(0.3)
        assert sorted(app.states) == [first["message"]]
        assert app.runner.session.results_of(first["message"]) == results_before
        assert (await extension.results())["message"] == first["message"]


async def test_after_a_restart_an_unchanged_answer_opens_nothing_and_its_results_are_still_owed(
    workspace: Path, state: Path
) -> None:
    text = READ + LIST
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(text)
        first = await extension.settled()
        assert first["count"] == 2
        await extension.answer(text, conversation="chat/2")
        delivered = await extension.settled(conversation="chat/2")
        await extension.post(
            "/v1/delivered",
            {"conversation": "chat/2", "position": 0, "message": delivered["message"]},
        )
    again = bridged_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        # The pairing is remembered: no code is asked for, the same token works.
        await wait_for(pilot, lambda: again.bridge is not None)
        assert again.bridge.pairing_code is None and len(again.screen_stack) == 1
        extension = Extension(again.bridge.port, extension.token)
        await wait_for(pilot, lambda: len(again.states) == 2)  # the session, read back
        # The open tabs send what they show, as they do after a restart: nothing new is opened.
        await extension.message(text, generating=False)
        await extension.message(text, generating=False, conversation="chat/2")
        owed = await extension.settled()
        assert (owed["state"], owed["message"], owed["copy_text"]) == (
            "ready",
            first["message"],
            first["copy_text"],
        )
        assert owed["delivered"] is False  # never put back into the chat: still owed
        went = await extension.results(conversation="chat/2")
        assert (went["state"], went["delivered"]) == ("ready", True)
        await pilot.pause(0.3)
        assert len(again.states) == 2 and len(again.runner.session.messages()) == 2


async def test_an_answer_cut_off_by_a_crash_gets_all_its_results_once_it_is_finished(
    workspace: Path, state: Path
) -> None:
    """Operator stops in the middle of two answers. The one the model is still writing when it is
    back runs on; the one that ended meanwhile ended while Operator was not listening: it waits
    for the person's word. Either way r1 does not run twice, and every result is given back
    (the repeat in the second answer says where r1 ran)."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ + "Now the listing:\n", generating=True)
        await extension.message(READ + "And the stat:\n", generating=True, conversation="chat/2")
        await wait_for(pilot, lambda: len(app.states) == 2 and rows(app) == [("r1", "duplicate")])
    again = bridged_app(workspace, state)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: again.bridge is not None)
        extension = Extension(again.bridge.port, extension.token)
        await extension.answer(
            READ + "And the stat:\n" + block("r3", "fs.stat", path="README.md"),
            seen=READ + "And the stat:\n",
            conversation="chat/2",
        )
        result = await extension.settled(conversation="chat/2")
        # r1 repeats the first answer's command: not run again, answered with where it ran.
        assert [line for line in result["copy_text"].split("\n") if line.startswith("id: ")] == [
            "id: r1",
            "id: r3",
        ]
        assert "already ran in message" in result["copy_text"]
        await extension.message(READ + "Now the listing:\n" + LIST, generating=False)
        await wait_for(pilot, lambda: isinstance(again.screen, ConfirmScreen))
        assert (await extension.results())["state"] == "held"
        await pilot.press("y")
        result = await extension.settled()
        assert [line for line in result["copy_text"].split("\n") if line.startswith("id: ")] == [
            "id: r1",
            "id: r2",
        ]
        assert rows(again) == [("r1", "duplicate"), ("r2", "ok")]  # r1 did not run twice


async def test_turning_the_bridge_off_and_on_opens_nothing_for_the_answers_already_seen(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(READ)
        assert (await extension.settled())["count"] == 1
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is not None)
        extension.port = app.bridge.port
        await extension.message(READ, generating=False)
        assert (await extension.results())["count"] == 1
        await pilot.pause(0.3)
        assert len(app.runner.session.messages()) == 1


async def test_an_answer_rewritten_before_its_end_becomes_a_new_message(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ + "thinking", generating=True)
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok")])
        first = app.current().number
        await extension.message(
            READ + LIST, generating=True
        )  # regenerated: same start, another end
        await extension.message(READ + LIST, generating=False)
        result = await extension.settled()
        assert result["message"] != first
        assert rows(app) == [("r1", "duplicate"), ("r2", "ok")]
        # r1 ran in the first message, whose results never went back: they are still owed.
        assert result["count"] == 2
        assert [line for line in result["copy_text"].split("\n") if line.startswith("id: ")] == [
            "id: r1",
            "id: r2",
        ]
        await extension.post(
            "/v1/delivered", {"conversation": "chat/1", "position": 0, "message": result["message"]}
        )
        assert (await extension.results())["count"] == 2  # what went back stays readable
        await extension.answer(
            READ + LIST + block("r3", "fs.stat", path="README.md"), seen=READ + LIST
        )
        result = await extension.settled()
        assert (result["count"], result["delivered"]) == (1, False)  # only what is new since then


async def test_the_header_shows_the_bridge_off_pairing_connected_and_waiting(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.tui.app import OperatorApp

    monkeypatch.setattr(service, "CONNECTED_FOR_S", 0.5)
    app = OperatorApp(workspace=workspace, state_dir=state, bridge_port=0)
    async with app.run_test(size=SIZE) as pilot:

        def badge():
            return str(app.bridge_badge.render())

        assert badge() == "bridge off" and app.bridge is None
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        code = app.bridge.pairing_code
        assert badge() == f"bridge pair with code {code}"
        extension = Extension(app.bridge.port)
        await extension.pair(code)
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await wait_for(pilot, lambda: any("Paired with Chromium (test)" in n for n in notes(app)))
        await extension.post(
            "/v1/hello", {"tab": {"site": "Claude", "title": "Refactor\x1b[2J the parser"}}
        )
        await wait_for(pilot, lambda: badge().startswith("bridge Claude"))
        assert "\x1b" not in badge() and "\\x1b" in badge()
        await wait_for(
            pilot, lambda: badge() == "bridge waiting for a browser"
        )  # silence: no longer connected
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None and badge() == "bridge off")
        assert "Bridge off" in app.status_line.text


async def test_the_palette_pairs_a_browser_again_and_the_old_token_stops_working(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        first = await paired_extension(pilot, app)
        app.bridge_control.pair_browser()
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        second = Extension(app.bridge.port)
        await second.pair(app.bridge.pairing_code)
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert (await first.post("/v1/hello", {})).code == "BRIDGE_UNAUTHORIZED"
        assert (await second.post("/v1/hello", {})).status == 200


async def test_a_message_being_written_when_the_workspace_changes_is_ended_not_moved(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ, generating=True)
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok")])
        app.workspace_session.open_workspace(other)
        result = await extension.settled()
        assert result["state"] == "ready" and result["count"] == 1
        await extension.message(
            READ + LIST, generating=True
        )  # grew after it ended: a new message, here
        await extension.message(READ + LIST, generating=False)
        result = await extension.settled()
        assert result["state"] == "ready" and app.runner.workspace.root == other.resolve()


async def test_quitting_while_a_streamed_write_waits_leaves_it_undecided(
    workspace: Path, state: Path
) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(WRITE, generating=True)
        await wait_for(pilot, lambda: asks(app))
        feeder = app.bridge.bridge.feeder
        await app.action_quit()
    feeder.join(5)
    assert not feeder._thread.is_alive()
    assert (workspace / "notes" / "plan.txt").read_bytes() == before


async def test_e_ends_a_message_the_browser_stopped_feeding_and_its_later_growth_is_not_run(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ + LIST[:31], generating=True)
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok"), ("r2", "pending")])
        await pilot.press("e")
        result = await extension.settled()
        assert result["state"] == "ready"
        await wait_for(pilot, lambda: app.current().finished)
        assert [row.result.error_code for row in app.current().ordered_rows()] == [
            None,
            "ERR_MISSING_END_MARKER",
        ]
        assert "Ending message" in app.status_line.text or "result" in app.status_line.text
        await extension.message(READ + LIST, generating=False)  # the tab wakes up: not run again
        await pilot.pause(0.3)
        assert len(app.states) == 1
        await extension.answer("Let me redo that.\n" + LIST)  # a rewrite is new
        await wait_for(pilot, lambda: len(app.states) == 2)
        result = await extension.settled()
        # r2, cut off the first time, ran whole the second: the model is told once, its latest
        # result.
        owed = result["copy_text"]
        assert [line for line in owed.split("\n") if line.startswith(("id: ", "ok: "))] == [
            "id: r1",
            "ok: true",
            "id: r2",
            "ok: true",
        ]


async def test_a_writes_dialog_knows_whether_the_page_has_finished_the_answer(
    workspace: Path, state: Path
) -> None:
    second = block("w2", "fs.write", path="notes/other.txt", content="x")
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(WRITE + second + CHECK)
        await wait_for(pilot, lambda: asks(app))
        outlook = app.screen.outlook
        assert (outlook.position, outlook.total, outlook.open_ended) == (1, 2, False)
        assert [write.path for write in outlook.rest] == ["notes/other.txt"]
        await pilot.press("n")
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.command_id == "w2")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.current() is not None and app.current().finished)
        # While the page is still writing, more may come after the write shown.
        await extension.message(
            "Next:\n" + block("w3", "fs.write", path="notes/third.txt", content="y"),
            generating=True,
            position=1,
        )
        await wait_for(pilot, lambda: asks(app))
        assert app.screen.outlook.open_ended is True
        # The page says the answer ended while the dialog is open: the dialog says so too, and
        # names the write that came after (issue 26, item 7: "still arriving" 20 s after the end).
        third = block("w3", "fs.write", path="notes/third.txt", content="y")
        fourth = block("w4", "fs.write", path="notes/fourth.txt", content="z")
        await extension.message("Next:\n" + third + fourth + "Done.", generating=False, position=1)

        def said() -> str:
            return str(app.screen.query_one("#consent-rest").render())

        await wait_for(pilot, lambda: "notes/fourth.txt" in said())
        assert "still arriving" not in said() and app.screen.outlook.open_ended is False
        assert app.screen.outlook.total == 2


async def test_a_commands_dialog_follows_the_answer_as_it_ends(
    workspace: Path, state: Path
) -> None:
    """The command's dialog, opened while the model still writes, says so; once the page says the
    answer ended with a write after the command, the dialog names that write and no longer says
    more may come (a write's dialog does the same, above): `a` answers what is shown."""
    from operator_app.tui.screens.command_consent import CommandConsentScreen

    run = block("c1", "shell.run", command="true")
    later = block("w9", "fs.write", path="notes/later.txt", content="x")
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message("Checking:\n" + run, generating=True)
        await wait_for(
            pilot, lambda: isinstance(app.screen, CommandConsentScreen) and app.screen.ready
        )

        def said() -> str:
            return str(app.screen.query_one("#consent-rest").render())

        assert app.screen.outlook.open_ended is True and "still arriving" in said()
        await extension.message("Checking:\n" + run + later + "Done.", generating=False)
        await wait_for(pilot, lambda: "notes/later.txt" in said())
        assert "still arriving" not in said() and app.screen.outlook.total == 2
        await pilot.press("n")
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.command_id == "w9")
        assert not (workspace / "notes" / "later.txt").exists()


async def test_a_write_arriving_while_the_person_types_elsewhere_never_takes_their_keys(
    workspace: Path, state: Path
) -> None:
    before = (workspace / "notes" / "plan.txt").read_bytes()
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: len(app.screen_stack) == 2)
        palette = app.screen
        await extension.answer(WRITE)
        await wait_for(pilot, lambda: any("A write waits for you" in n for n in notes(app)))
        await pilot.press("a", "y", "y", "a")
        await pilot.pause(0.3)
        assert app.screen is palette and not any(
            isinstance(s, ConsentScreen) for s in app.screen_stack
        )
        assert (workspace / "notes" / "plan.txt").read_bytes() == before
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("d")
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("y")
        result = await extension.settled()
        assert (
            result["state"] == "ready"
            and (workspace / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
        )


async def test_an_answer_that_ended_while_the_bridge_was_off_runs_only_when_the_person_says_so(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
        await pilot.press(
            "b"
        )  # meanwhile the model answered on the page, which could not tell Operator
        await wait_for(pilot, lambda: app.bridge is not None)
        extension.port = app.bridge.port
        reply = await extension.message(
            "Reading.\n" + READ, generating=False, site="Claude", title="Plan review"
        )
        assert reply.json() == {"message": None, "accepted": 0, "state": "held"}
        await wait_for(pilot, lambda: "ended while Operator was not listening" in question(app))
        assert "1 answer ended while Operator was not listening — run it?" in question(app)
        assert "Claude: Plan review (1 block, 8 lines)" in question(app)
        assert app.states == {} and (await extension.results())["state"] == "held"
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert "Not run" in app.status_line.text and app.states == {}
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Run the answers that ended while Operator was not listening" in titles
        # A second one: the question comes again, with both.
        await extension.message(
            LIST, generating=False, conversation="chat/2", site="Claude", title="Other"
        )
        await wait_for(
            pilot,
            lambda: "2 answers ended while Operator was not listening — run them?" in question(app),
        )
        poll = asyncio.ensure_future(extension.results(wait=10))
        await pilot.pause(0.2)
        await pilot.press("y")
        early = await asyncio.wait_for(poll, 5)  # the page hears at once that it runs
        assert early["state"] in ("streaming", "waiting", "ready")
        assert (await extension.settled())["count"] == 1
        assert (await extension.settled(conversation="chat/2"))["count"] == 1
        assert sorted(state.source for state in app.states.values()) == [
            "bridge Claude",
            "bridge Claude",
        ]
        assert [app.states[n].text for n in sorted(app.states)] == [
            "Reading.\n" + READ,
            LIST,
        ]  # in arrival order
        assert "Run the answers that ended while Operator was not listening" not in [
            command.title for command in app.get_system_commands(app.screen)
        ]


async def test_a_text_told_again_mid_answer_waits_and_once_run_takes_the_rest_as_it_comes(
    workspace: Path, state: Path
) -> None:
    """The page's heartbeat tells again an answer Operator never heard (it was away when the page
    sent it), while the model still writes: held all the same, said so, and once the person says
    run it, the message stays open for what the model writes next."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        reply = await extension.message(READ, generating=True, resent=True, site="Claude")
        assert reply.json() == {"message": None, "accepted": 0, "state": "held"}
        await wait_for(pilot, lambda: "the model still writes it" in question(app))
        # Not "ended" beside "the model still writes it" (issue 26, item 8).
        assert "1 answer began while Operator was not listening — run it?" in question(app)
        assert "ended" not in question(app).split("\n")[0]
        assert app.states == {}
        await extension.message(READ + "More:\n", generating=True)  # heard, but of a held one
        assert app.states == {} and (await extension.results())["state"] == "held"
        await pilot.press("y")
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok")])
        assert app.current().finished is False  # still open: the model writes on
        await extension.answer(READ + "More:\n" + LIST, seen=READ + "More:\n")
        result = await extension.settled()
        assert [line for line in result["copy_text"].split("\n") if line.startswith("id: ")] == [
            "id: r1",
            "id: r2",
        ]
        assert len(app.states) == 1


async def test_the_question_about_a_held_answer_follows_it_to_its_end_in_place(
    workspace: Path, state: Path
) -> None:
    """A held answer the model was still writing when the bridge came back: once the page says it
    ended, the question says "ended" and drops "the model still writes it" (it said "began" for
    good, and the last CI caught a test reading it too early). The same dialog is reworded, so a
    key the person is pressing answers what they read."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        reply = await extension.message(READ, generating=True, resent=True, site="Claude")
        assert reply.json()["state"] == "held"
        await wait_for(pilot, lambda: "the model still writes it" in question(app))
        asking = app.screen
        await extension.message(READ + LIST, generating=True)
        await wait_for(pilot, lambda: "(2 blocks," in question(app))
        assert "the model still writes it" in question(app) and app.screen is asking
        await extension.message(READ + LIST, generating=False)
        await wait_for(
            pilot,
            lambda: "1 answer ended while Operator was not listening — run it?" in question(app),
        )
        assert "still writes" not in question(app) and app.screen is asking
        assert app.states == {}
        await pilot.press("y")
        result = await extension.settled()
        assert [line for line in result["copy_text"].split("\n") if line.startswith("id: ")] == [
            "id: r1",
            "id: r2",
        ]


async def test_a_held_answer_that_grows_is_not_announced_again_at_each_line(
    workspace: Path, state: Path
) -> None:
    """Said once: a held answer the model goes on writing neither repeats the note given while the
    person was in another dialog, nor reopens a question they put off ("not now")."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: len(app.screen_stack) == 2)
        palette = app.screen
        text = "Looking.\n" + READ
        await extension.message(text, generating=True, resent=True, site="Claude")
        for more in ("More.\n", LIST, "Done.\n"):
            text += more
            await extension.message(text, generating=True)
        await extension.message(text, generating=False)
        await pilot.pause(0.3)

        def said() -> int:  # (it began: the model still wrote it when the note was said)
            return sum("1 answer began while Operator was not listening" in n for n in notes(app))

        assert said() == 1 and app.screen is palette
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        # A second one is news: the question comes, about both; put off, it stays put off.
        await extension.message(LIST, generating=True, resent=True, conversation="chat/2")
        await wait_for(pilot, lambda: "2 answers came while" in question(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await extension.message(LIST + "Done.\n", generating=False, conversation="chat/2")
        await pilot.pause(0.3)
        assert len(app.screen_stack) == 1 and app.states == {}
        assert [answer.generating for answer in app.bridge.bridge.held.values()] == [False, False]


async def test_a_text_told_again_of_a_message_operator_knows_is_taken_as_usual(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ, generating=True)
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok")])
        reply = await extension.message(READ + LIST, generating=False, resent=True)
        assert reply.json()["state"] != "held"
        result = await extension.settled()
        assert result["count"] == 2 and len(app.states) == 1
        bad = await extension.message(READ, generating=False, resent="yes")  # type: ignore[arg-type]
        assert bad.status == 400 and "resent" in bad.json()["error"]["message"]


async def test_a_held_answer_the_page_rewrites_while_the_model_writes_runs_as_a_new_one(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ, generating=False)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await extension.message(
            "Let me redo that.\n" + LIST, generating=True
        )  # regenerated, heard live
        await wait_for(pilot, lambda: len(app.screen_stack) == 1 and len(app.states) == 1)
        await extension.message("Let me redo that.\n" + LIST, generating=False)
        result = await extension.settled()
        assert (result["state"], result["count"]) == ("ready", 1) and rows(app) == [("r2", "ok")]


async def test_a_selection_sent_to_operator_is_never_held(workspace: Path, state: Path) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        where = {"conversation": "selection/127.0.0.1:8000/docs", "position": 1}
        reply = await extension.message(READ, generating=False, **where)
        assert reply.json()["state"] != "held"
        assert (await extension.settled(wait=10, **where))["state"] == "ready"
        assert len(app.screen_stack) == 1


async def test_a_waiting_hello_answers_at_once_when_the_bridge_stops(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        assert (await extension.post("/v1/hello", {"tab": None, "wait": 0.1})).json()[
            "bridge"
        ] == "connected"
        for wait in (-1, 26, "5", True):
            reply = await extension.post("/v1/hello", {"tab": None, "wait": wait})
            assert reply.code == "BRIDGE_BAD_REQUEST" and "wait" in reply.json()["error"]["message"]
        hello = asyncio.ensure_future(extension.post("/v1/hello", {"tab": None, "wait": 20}))
        await pilot.pause(0.3)
        assert not hello.done()
        await pilot.press("b")
        reply = await asyncio.wait_for(hello, 5)
        assert reply.json()["bridge"] == "stopping"


async def test_the_welcome_panel_says_what_to_do_with_the_bridge_on(
    workspace: Path, state: Path
) -> None:
    from rich.console import Console

    from operator_app.tui.app import OperatorApp

    app = OperatorApp(workspace=workspace, state_dir=state, bridge_port=0)
    async with app.run_test(size=SIZE) as pilot:

        def welcome() -> str:
            console = Console(width=200, color_system=None)
            with console.capture() as shown:
                console.print(app.welcome.content)
            return " ".join(shown.get().split())

        assert (
            "Paste its whole answer here" in welcome()
            and "press c to copy the results" in welcome().lower()
        )
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, PairingScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: "bridge is on" in welcome())
        said = welcome()
        assert "Paste its whole answer" not in said and "press c" not in said.lower()
        assert "its answer streams in here" in said and "press Enter there to send them" in said
        assert "Press b to turn the bridge off" in said
        await pilot.press("b")
        await wait_for(pilot, lambda: "Paste its whole answer here" in welcome())


async def test_the_terminal_says_when_the_page_asks_where_to_put_the_results(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(READ + LIST)
        result = await extension.settled()
        # The page asks only once it has the results; the TUI has then said they are ready.
        await wait_for(pilot, lambda: app.current() is not None and app.current().finished)
        where = {"conversation": "chat/1", "position": 0}
        assert (
            await extension.post("/v1/asked", {**where, "message": result["message"] + 1})
        ).json() == {"ok": False}
        assert (
            await extension.post("/v1/asked", {**where, "message": None})
        ).code == "BRIDGE_BAD_REQUEST"
        reply = await extension.post("/v1/asked", {**where, "message": result["message"]})
        assert reply.json() == {"ok": True}
        said = f"Message {result['message']}: the chat page asks where to put its 2 results"
        await wait_for(pilot, lambda: any(said in n for n in notes(app)))
        assert said in app.status_line.text
        assert (await extension.results())["delivered"] is False  # asking is not putting them back


async def test_the_header_names_the_browser_until_a_chat_tab_is_open(
    workspace: Path, state: Path
) -> None:
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:

        def badge():
            return str(app.bridge_badge.render())

        extension = await paired_extension(pilot, app)
        await extension.post("/v1/hello", {"tab": None, "browser": "Chromium 156"})
        await wait_for(pilot, lambda: badge() == "bridge Chromium 156: open a chat tab")
        await extension.post(
            "/v1/hello",
            {"tab": {"site": "Claude", "title": "Plan review"}, "browser": "Chromium 156"},
        )
        await wait_for(pilot, lambda: badge() == "bridge Claude: Plan review")
        await extension.post(
            "/v1/hello", {"tab": None, "browser": "Chromium 156"}
        )  # the last chat tab closed
        await wait_for(pilot, lambda: badge() == "bridge Chromium 156: open a chat tab")


async def test_the_record_of_handled_pages_lives_in_the_state_folder_operator_state_dir_names(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.tui.app import OperatorApp

    monkeypatch.setenv("OPERATOR_STATE_DIR", str(tmp_path / "operator-state"))
    app = OperatorApp(
        workspace=workspace, bridge=True, bridge_port=0, poll_interval=0.05
    )  # no --state-dir
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(READ)
        assert (await extension.settled())["state"] == "ready"
    [record] = (tmp_path / "operator-state" / "workspaces").glob("*/bridge-pages.json")
    assert "chat/1" in record.read_text()
    assert not (tmp_path / "config" / "bridge-pages.json").exists()  # not in the config folder


async def test_the_page_hears_at_once_which_write_waits_when_the_next_one_does(
    workspace: Path, state: Path
) -> None:
    """Issue 26, item 6: the long poll answered only when the state changed, so the page kept
    naming the first write while the second waited (until its 20 s wait ran out)."""
    second = block("w2", "fs.write", path="notes/other.txt", content_b64=b64("Other\n"))
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(WRITE + second)
        await wait_for(pilot, lambda: asks(app))
        first = await extension.results(wait=0.2)
        assert (first["state"], first["waiting_for"]) == ("waiting", "fs.write notes/plan.txt")
        poll = asyncio.ensure_future(extension.results(wait=20))
        await pilot.pause(0.3)
        await pilot.press("y")
        started = asyncio.get_running_loop().time()
        news = await asyncio.wait_for(poll, 5)
        while news["waiting_for"] is None:  # news too: no write waits for a moment, between them
            news = await asyncio.wait_for(extension.results(wait=20), 5)
        assert (news["state"], news["waiting_for"]) == ("waiting", "fs.write notes/other.txt")
        assert asyncio.get_running_loop().time() - started < 5  # not at the end of a 20 s wait
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("y")
        assert (await extension.settled())["state"] == "ready"


async def test_a_change_between_two_polls_is_news_at_once(workspace: Path, state: Path) -> None:
    """The page polls again only after its last poll was answered: the second write may begin to
    wait in between. The next poll answers at once, not at the end of its 20 s wait, since the
    page last heard of the first write (CI once waited so, and the page named the wrong write)."""
    second = block("w2", "fs.write", path="notes/other.txt", content_b64=b64("Other\n"))
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(WRITE + second)
        await wait_for(pilot, lambda: asks(app) and app.screen.ready)
        first = await extension.results(wait=0.2)
        assert first["waiting_for"] == "fs.write notes/plan.txt"
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                asks(app) and app.screen.ready and app.screen.plan.target.rel == "notes/other.txt"
            ),
        )
        started = asyncio.get_running_loop().time()
        news = await asyncio.wait_for(extension.results(wait=20), 5)
        assert (news["state"], news["waiting_for"]) == ("waiting", "fs.write notes/other.txt")
        assert asyncio.get_running_loop().time() - started < 5
        await pilot.press("y")
        assert (await extension.settled())["state"] == "ready"


async def test_the_bridge_turned_off_mid_answer_lets_it_run_on_as_one_message(
    workspace: Path, state: Path
) -> None:
    """Issue 26, item 5: turned off in the middle of an answer, the bridge ended it (its open
    block failed, "press c to copy"); back on, the rest was held and asked about, and became a
    second message. It runs on now, as one message, without a question."""
    start = "Reading first.\n" + READ + LIST[:31]
    whole = "Reading first.\n" + READ + LIST + "Done."
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(start, generating=True)
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok"), ("r2", "pending")])
        number = app.current().number
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
        assert f"message {number} waits for the rest of the answer" in app.status_line.text
        await pilot.pause(0.3)
        assert not app.current().finished and rows(app)[-1] == ("r2", "pending")
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.port)
        extension.port = app.bridge.port
        # The page tells the rest again (its posts failed while the bridge was off).
        reply = await extension.message(whole, generating=False, resent=True)
        assert reply.json()["state"] != "held"
        result = await extension.settled()
        assert (result["state"], result["message"], result["count"]) == ("ready", number, 2)
        assert rows(app) == [("r1", "ok"), ("r2", "ok")] and len(app.states) == 1
        assert len(app.screen_stack) == 1  # nothing was asked
        assert app.runner.session.message_text(number) == whole


async def test_an_answer_paused_by_the_bridge_ends_with_e_or_when_operator_quits(
    workspace: Path, state: Path
) -> None:
    """The paused answer is not left open for good: e ends it while the bridge is off, and so does
    quitting Operator."""
    from operator_app.engine.state.session import Session

    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.message(READ + LIST[:31], generating=True)
        await wait_for(pilot, lambda: rows(app) == [("r1", "ok"), ("r2", "pending")])
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
        await pilot.press("e")
        await wait_for(pilot, lambda: app.current().finished)
        assert rows(app)[-1][1] != "pending"
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.port)
        extension.port = app.bridge.port
        await extension.message(READ + LIST[:31], generating=True, position=1)
        await wait_for(pilot, lambda: len(app.states) == 2)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
    assert [record.ended for record in Session(state).messages()] == [True, True]


async def test_a_secret_read_from_the_browser_waits_for_the_terminal_like_a_write(
    workspace: Path, state: Path
) -> None:
    """Issue 26, secrets ask first: a page's answer asking for .env is not read at once; the page
    hears that a question waits in the terminal, and only y there hands the content over."""
    (workspace / ".env").write_text("API_TOKEN=s3cr3t\n")
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        extension = await paired_extension(pilot, app)
        await extension.answer(block("r1", "fs.read", path=".env") + READ)
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.kind == "read")
        waiting = await extension.results(wait=0.2)
        assert (waiting["state"], waiting["waiting_for"]) == ("waiting", "fs.read .env")
        content = b64("API_TOKEN=s3cr3t\n")
        assert content not in json.dumps(waiting)
        poll = asyncio.ensure_future(extension.results(wait=10))
        await pilot.press("y")
        result = await poll
        if result["state"] != "ready":
            result = await extension.settled()
        assert result["state"] == "ready" and content in result["copy_text"]
        assert "looks like a secret" in result["copy_text"]


async def test_the_status_line_says_how_to_pair_until_a_browser_is_paired(
    workspace: Path, state: Path
) -> None:
    """No browser is paired yet: the status line says how to pair one, not that "the paired
    browser's" answers stream in. Once one is, a bridge turned on again says they do."""
    app = bridged_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Bridge on" in app.status_line.text)
        assert app.status_line.text == (
            f"Bridge on (127.0.0.1:{app.bridge.port}): no browser is paired yet; type the code "
            "shown into the extension's popup to pair one; b stops it."
        )
        await paired_extension(pilot, app)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.bridge is None)
        await pilot.press("b")
        await wait_for(
            pilot, lambda: app.bridge is not None and "Bridge on" in app.status_line.text
        )
        assert app.status_line.text == (
            f"Bridge on (127.0.0.1:{app.bridge.port}): answers in the paired browser's chat tabs "
            "stream in here; b stops it."
        )
