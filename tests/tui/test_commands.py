"""Commands the model runs, in the TUI (issue 24), driven with Pilot on real temporary folders:
the command's own dialog (its script, folder, time limit, network, sandboxed or not), its
change-set reviewed in the write's dialog and undone by u, w for the network, r for "always allow"
(listed and revoked from the palette), the output streaming into the details pane while it runs,
x stopping it, quitting while one runs, and the red path where no sandbox can be had."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events

from operator_app import settings
from operator_app.engine import find_sandbox
from operator_app.tui.command_answers import command_answer
from operator_app.tui.screens.allowed_commands import AllowedCommandsScreen
from operator_app.tui.screens.command_consent import CommandConsentScreen
from operator_app.tui.screens.confirm import ConfirmScreen
from operator_app.tui.screens.consent import ConsentScreen
from operator_app.tui.screens.help import KeysScreen
from operator_app.tui.screens.undo_confirm import UndoConfirmScreen
from tests.support.blocks import b64, block
from tests.support.pilot import notes, wait_for
from tests.support.tui_app import finished, make_app, plain, results_of

pytestmark = pytest.mark.asyncio


def needs_sandbox() -> None:
    sandbox = find_sandbox()
    if sandbox.usable:
        return
    if os.environ.get("CI") == "true" and sys.platform.startswith("linux"):
        pytest.fail(f"no sandbox on CI's Linux: {sandbox.why}")
    pytest.skip(f"no sandbox on this machine: {sandbox.why}")


def asks_to_run(app: Any) -> bool:
    return isinstance(app.screen, CommandConsentScreen) and app.screen.ready


def asks_to_apply(app: Any) -> bool:
    return isinstance(app.screen, ConsentScreen) and app.screen.ready


def shown(app: Any) -> str:
    from textual.widgets import Static

    return "".join(plain(static.content, width=160) for static in app.screen.query(Static))


def script_shown(app: Any) -> str:
    """What the dialog's scrollable view shows (a command's script, a change-set's diffs)."""
    return str(app.screen.query_one("#consent-diff").plain)


def run_block(cid: str, script: str) -> str:
    return block(cid, "shell.run", command_b64=b64(script))


async def asked_with_network(app: Any, pilot: Any, script: str) -> None:
    """`script` pasted as c1, its dialog up, and w pressed: the network on for it."""
    app.post_message(events.Paste(run_block("c1", script)))
    await wait_for(pilot, lambda: asks_to_run(app))
    await pilot.press("w")
    await wait_for(pilot, lambda: "network on" in shown(app))


async def test_a_command_is_asked_about_run_and_its_changes_reviewed_then_undone(
    workspace: Path, state: Path
) -> None:
    needs_sandbox()
    before = (workspace / "README.md").read_bytes()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", "echo more >> README.md\ntouch made.txt")))
        await wait_for(pilot, lambda: asks_to_run(app))
        text = shown(app)
        # Named as OPERATOR_CMD's results name it (not "~/", which a script reads as $HOME), with
        # the script's length, so a line below the fold is known to be there.
        assert "shell.run wants to run this 2-line script in the workspace root" in text
        assert "time limit 120 s" in text and "? keys" in text
        assert "network off" in text and "sandboxed" in text and "NOT SANDBOXED" not in text
        script = app.screen.query_one("#consent-diff").plain
        assert "echo more >> README.md" in script and "touch made.txt" in script
        assert (workspace / "README.md").read_bytes() == before  # nothing ran yet
        await pilot.press("y")
        await wait_for(pilot, lambda: asks_to_apply(app))
        assert app.screen.query_one("#consent-box").border_title == (
            "message 1: a command's changes wait for you"
        )
        diff = app.screen.query_one("#consent-diff").plain
        assert "+more" in diff and "made.txt" in diff
        assert "2 files: 1 changed, 1 created" in shown(app)
        assert (workspace / "README.md").read_bytes() == before  # not before the second yes
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        (result,) = results_of(app)
        assert result.ok and "changes applied: 2 files" in result.summary
        assert (workspace / "made.txt").exists()
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not (workspace / "made.txt").exists())
        assert (workspace / "README.md").read_bytes() == before


async def test_declined_changes_leave_the_tree_and_say_changes_not_applied(
    workspace: Path, state: Path
) -> None:
    needs_sandbox()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", "touch made.txt")))
        await wait_for(pilot, lambda: asks_to_run(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: asks_to_apply(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))
        (result,) = results_of(app)
        assert result.ok and "changes not applied (the person declined them)" in result.summary
        assert not (workspace / "made.txt").exists()


async def test_w_lets_one_command_use_the_network(workspace: Path, state: Path) -> None:
    needs_sandbox()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        await asked_with_network(app, pilot, "true")
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        (result,) = results_of(app)
        assert result.outcome.network is True


async def test_w_then_r_always_allows_the_command_with_its_network(
    workspace: Path, state: Path
) -> None:
    """The rule keeps what the person allowed: a command allowed with the network runs with it
    next time (it ran without, and failed, with nothing said), the list says so, and a later r
    without w narrows it."""
    needs_sandbox()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        await asked_with_network(app, pilot, "echo fetch")
        plan = app.screen.plan
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app))
        root = workspace.resolve()
        assert settings.allowed_with_network(root) == ["echo fetch"]
        app.post_message(events.Paste(run_block("c2", "echo fetch")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        (again,) = results_of(app)  # ran without a dialog, with the network
        assert again.ok and again.outcome.network is True
        app.push_screen(AllowedCommandsScreen(root))
        await wait_for(pilot, lambda: bool(app.screen.query("#allowed-list")))
        await pilot.pause(0.1)
        listed = app.screen.query_one("#allowed-list").get_option_at_index(0).prompt.plain
        assert listed == "echo fetch   with the network"
        # r without w, as the dialog's answer reaches the settings: the rule narrowed.
        command_answer("always", plan, root)
        assert settings.allowed_commands(root) == ["echo fetch"]
        assert settings.allowed_with_network(root) == []
        command_answer("always-network", plan, root)  # and back, for the revoke below
        await pilot.press("enter")
        await wait_for(pilot, lambda: settings.allowed_commands(root) == [])
        assert settings.allowed_with_network(root) == []


async def test_r_always_allows_the_exact_command_listed_and_revoked_in_the_palette(
    workspace: Path, state: Path
) -> None:
    needs_sandbox()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", "echo tests pass")))
        await wait_for(pilot, lambda: asks_to_run(app))
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app))
        assert settings.allowed_commands(workspace.resolve()) == ["echo tests pass"]
        app.post_message(events.Paste(run_block("c2", "echo tests pass")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        (result,) = results_of(app)  # ran without a dialog
        assert result.ok and "tests pass" in (result.details or "")
        app.push_screen(AllowedCommandsScreen(workspace.resolve()))
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, AllowedCommandsScreen)
                and bool(app.screen.query("#allowed-list"))
            ),
        )
        await pilot.pause(0.1)
        assert (
            "echo tests pass"
            in app.screen.query_one("#allowed-list").get_option_at_index(0).prompt.plain
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: settings.allowed_commands(workspace.resolve()) == [])
        await pilot.press("escape")
        app.post_message(events.Paste(run_block("c3", "echo tests pass")))
        await wait_for(pilot, lambda: asks_to_run(app))  # asked again
        await pilot.press("n")


async def test_a_on_a_write_never_runs_the_command_after_it_which_asks_for_itself(
    workspace: Path, state: Path
) -> None:
    """Issue 35: `a` covered commands. Now it applies the rest of the writes only; the dialog says
    so, and the command after it asks, and so does what it changed."""
    needs_sandbox()
    message = (
        block("w1", "fs.write", path="notes/a.txt", content="one")
        + run_block("c1", "cat notes/a.txt\ntouch made.txt")
        + block("w2", "fs.write", path="notes/a.txt", content="two")
    )
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: asks_to_apply(app))
        text = shown(app)
        assert '"a" also applies 1 more write of this message:' in text
        assert "asks you first: runs cat notes/a.txt" in text
        assert 'Commands are never run by "a": each asks you when it comes.' in text
        await pilot.press("a")  # the rest's writes are to the file shown: no second look
        await wait_for(pilot, lambda: asks_to_run(app))
        assert app.screen.plan.command_id == "c1" and (workspace / "notes/a.txt").exists()
        await pilot.press("y")
        await wait_for(pilot, lambda: asks_to_apply(app) and app.screen.plan.kind == "changeset")
        await pilot.press("n")  # what the command changed is not applied
        await wait_for(pilot, lambda: finished(app))
        assert not (workspace / "made.txt").exists()
        assert (workspace / "notes" / "a.txt").read_text() == "two"  # w2: under the a


async def test_a_on_a_write_of_a_message_still_arriving_does_not_cover_a_command_that_comes_later(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    """Issue 35, item 4: `a` pressed on a write of a message still streaming let a
    `shell.run ... cat .env` that arrived later run with no dialog, and its change-set was applied
    unseen."""
    needs_sandbox()
    (workspace / ".env").write_text("API_TOKEN=s3cr3t\n")
    stream = tmp_path / "stream.txt"
    stream.write_text("Writing.\n" + block("w1", "fs.write", path="notes/a.txt", content="one"))
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: asks_to_apply(app))
        assert "a command that arrives asks you first" in shown(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert 'Commands are never run by "a"' in plain(app.screen.question, width=160)
        await pilot.press("y")
        await wait_for(pilot, lambda: len(app.current().results) == 1)
        with stream.open("a") as handle:
            handle.write(
                block("w2", "fs.write", path="later.txt", content="later")
                + run_block("c1", "cat .env\necho leaked > leaked.txt")
            )
        await wait_for(pilot, lambda: (workspace / "later.txt").exists())  # a write: under a
        await wait_for(pilot, lambda: asks_to_run(app))  # the command: its own dialog
        assert "cat .env" in script_shown(app) and not (workspace / "leaked.txt").exists()
        await pilot.press("y")
        await wait_for(pilot, lambda: asks_to_apply(app) and app.screen.plan.kind == "changeset")
        assert "leaked.txt" in shown(app) + script_shown(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.current().results) == 3)
        assert not (workspace / "leaked.txt").exists()


async def test_the_command_dialog_shows_the_whole_script_wrapped_and_says_so(
    workspace: Path, state: Path
) -> None:
    """Issue 35, item 5: lines past 2,000 characters were cut, so `echo one` + 2,100 spaces +
    `; cat .env` showed as `echo one` and ran whole on y. Now every line is wrapped at the view's
    width, never cut, its continued rows marked, and the dialog says so above its keys."""
    script = "echo one" + " " * 2100 + "; cat .env\necho two"
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", script)))
        await wait_for(pilot, lambda: asks_to_run(app))
        view = app.screen.query_one("#consent-diff")
        await wait_for(pilot, lambda: view.wrap_width == view.text_width())
        rows = view.plain.split("\n")
        # Every character of the script is on a row: the first line over several, each continued
        # row marked, none wider than the view.
        assert rows[0].startswith(" echo one") and rows[-1] == " echo two"
        assert all(row.startswith("↪") for row in rows[1:-1]) and len(rows) > 10
        assert "".join(row[1:] for row in rows[:-1]) == script.split("\n")[0]
        assert rows[-2].rstrip().endswith("; cat .env")
        assert max(len(row) for row in rows) <= view.text_width()
        said = shown(app)
        assert "Line 1 is wider than this view (up to 2,118 characters): wrapped, never cut" in said
        assert said.index("wrapped, never cut") < said.index("(nothing runs before you answer)")
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_the_command_dialog_escapes_and_flags_characters_that_do_not_show(
    workspace: Path, state: Path
) -> None:
    """Issue 35, items 5 and 7: U+202E and U+2066 reached the command dialog raw, reordering what
    the person read; a control or zero-width character hid too."""
    script = "echo safe \u202e txt.exe\necho \u2066ok\u2069 \u200b; echo fine\techo tab"
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", script)))
        await wait_for(pilot, lambda: asks_to_run(app))
        rows = app.screen.query_one("#consent-diff").plain.split("\n")
        assert rows[0] == " echo safe \\u202e txt.exe"
        assert rows[1] == " echo \\u2066ok\\u2069 \\u200b; echo fine  echo tab"
        assert not any(ch in "".join(rows) for ch in "\u202e\u2066\u2069\u200b")
        said = shown(app)
        assert "Lines 1, 2 hold characters that do not show" in said
        assert "wider than this view" not in said
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))


async def test_without_a_sandbox_the_dialog_says_so_in_red_and_only_y_runs_it(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPERATOR_SANDBOX", "none")
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", "touch direct.txt")))
        await wait_for(pilot, lambda: asks_to_run(app))
        text = shown(app)
        assert "NOT SANDBOXED: sandboxing is turned off (OPERATOR_SANDBOX=none)" in text
        assert "It changes your files directly: no review, no undo. Only y runs it." in text
        await pilot.press("a")
        await wait_for(pilot, lambda: any("runs only on y" in n for n in notes(app)))
        assert asks_to_run(app) and not (workspace / "direct.txt").exists()
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        assert (workspace / "direct.txt").exists()
        (result,) = results_of(app)
        assert "changes made directly (not sandboxed)" in result.summary


def details_text(app: Any) -> str:
    return str(app.query_one("#details").plain)


async def test_a_running_command_streams_its_output_and_x_stops_it(
    workspace: Path, state: Path
) -> None:
    needs_sandbox()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        script = "for i in $(seq 120); do echo tick $i; done\ntouch made.txt\nsleep 60"
        app.post_message(events.Paste(run_block("c1", script)))
        await wait_for(pilot, lambda: asks_to_run(app))
        assert "y: run, n: decline" in app.status_line.text
        await pilot.press("y")
        # Its output shows while it runs, with the time so far; x is offered then. The status
        # line no longer offers y and n, and the pane follows the newest lines.
        await wait_for(pilot, lambda: "tick 120" in details_text(app))
        await wait_for(pilot, lambda: "running " in details_text(app))
        assert app.status_line.text == (
            "Message 1: c1 runs; its output streams into the details pane; x stops it."
        )
        view = app.query_one("#details")
        await wait_for(pilot, lambda: 0 < view.max_scroll_y == view.scroll_y)
        # The script above, the output below it: the newest line is the pane's last.
        assert details_text(app).rstrip().endswith("tick 120")
        # Scrolled up to read, the place is kept while the output's time goes on; back at the
        # end, the newest lines are followed again.
        view.scroll_home(animate=False, immediate=True)
        shown_at = str(app.running.output and app.running.output.seconds)
        await wait_for(pilot, lambda: str(app.running.output.seconds) != shown_at)
        await pilot.pause()
        assert view.scroll_y == 0 < view.max_scroll_y
        view.scroll_end(animate=False, immediate=True)
        shown_at = str(app.running.output.seconds)
        await wait_for(pilot, lambda: str(app.running.output.seconds) != shown_at)
        await wait_for(pilot, lambda: 0 < view.max_scroll_y == view.scroll_y)
        # A paste meanwhile waits its turn, and is told so (it said "Running a paste...").
        app.post_message(events.Paste(block("r1", "fs.stat", path="README.md")))
        await wait_for(
            pilot,
            lambda: any(
                "This paste runs once message 1 is done: its c1 runs now (x stops it)" in note
                for note in notes(app)
            ),
        )
        assert app.check_action("stop_command", ()) is True
        await pilot.press("x")
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app), timeout=30)
        (stat,) = results_of(app)  # the paste ran once the command was done
        assert stat.ok
        await pilot.press("[")
        await wait_for(pilot, lambda: app.view_number == 1)
        (result,) = results_of(app)
        assert result.error_code == "ERR_COMMAND_KILLED" and "by the person" in result.summary
        assert not (workspace / "made.txt").exists()  # its changes were discarded
        await wait_for(pilot, lambda: app.check_action("stop_command", ()) is False)


async def test_quitting_while_a_command_runs_asks_then_stops_it(
    workspace: Path, state: Path
) -> None:
    needs_sandbox()
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(run_block("c1", "echo started; sleep 60")))
        await wait_for(pilot, lambda: asks_to_run(app))
        await pilot.press("y")
        # (the script's own text shows in the details before it runs: wait for it to run)
        await wait_for(pilot, lambda: app.running.output is not None)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = plain(app.screen.question, width=160)
        assert "is still running. Quit anyway?" in question
        await pilot.press("n")  # stay: it keeps running
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.running.output is not None
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, timeout=30)


async def test_a_repeated_messages_script_is_asked_with_the_fact_even_when_always_allowed(
    workspace: Path, state: Path
) -> None:
    needs_sandbox()
    sigil = "\U0001d49e"
    message = f"Logging.\n<{sigil}=string:bash:dev>echo once >> log.md</{sigil}>\n"
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 50)) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: asks_to_run(app))
        assert "note:" not in shown(app)
        assert "bash wants to run this command in ~/ " in shown(app)  # String's way of naming
        await pilot.press("question_mark")  # the dialog's own keys
        await wait_for(pilot, lambda: isinstance(app.screen, KeysScreen))
        assert app.screen.title_text == "keys of a command's dialog"
        assert ("w", "let this one command use the network (on/off; the header says which)") in (
            app.screen.keys
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: asks_to_run(app))
        await pilot.press("r")  # yes, and always allow this script here
        await wait_for(pilot, lambda: asks_to_apply(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app))
        assert (workspace / "log.md").read_text() == "once\n"
        # The same text as a new message: the rule does not cover it, the dialog says why.
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: app.view_number == 2 and asks_to_run(app))
        assert (
            "note: this message has the same text as message 1, whose bash was applied; "
            "approve only if it should run again"
        ) in shown(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))
        (result,) = results_of(app)
        assert result.error_code == "REJECTED"
        assert (workspace / "log.md").read_text() == "once\n"
