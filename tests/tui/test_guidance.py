"""What the app tells the person when a key cannot do anything now, when a paste is not a message,
and what the status line says at each turn: it must never leave them guessing or say something
that stopped being true."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from operator_app.tui.app import OperatorApp
from operator_app.tui.clipboard import SystemClipboard
from operator_app.tui.screens.help import HelpScreen
from tests.support.blocks import block
from tests.support.pilot import SIZE, asks, notes, wait_for
from tests.support.tui_app import (
    READS,
    WRITE,
    app_asking,
    app_pasted,
    finished,
    make_app,
    results_of,
)

pytestmark = pytest.mark.asyncio


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


async def test_a_dimmed_key_says_why_it_does_nothing(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        for key, words in (
            ("c", "Nothing to copy yet"),
            ("u", "Nothing to undo"),
            ("left_square_bracket", "No message"),
            ("e", "--follow FILE"),
            ("d", "No write waits for you"),
        ):
            count = len(notes(app))
            await pilot.press(key)
            await wait_for(pilot, lambda count=count: len(notes(app)) > count)
            assert words in notes(app)[-1]
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: "latest message" in notes(app)[-1])
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: "first message" in notes(app)[-1])


async def test_keys_of_the_main_screen_stay_quiet_in_a_dialog(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("c", "u", "e")
        await pilot.pause(0.1)
        assert notes(app) == []  # the help screen is not where those keys apply


async def test_the_palette_explains_a_step_past_the_last_message(
    workspace: Path, state: Path
) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        commands["Next message"].callback()  # the palette runs a dimmed entry all the same
        await wait_for(pilot, lambda: any("latest message" in text for text in notes(app)))


async def test_a_message_of_repeats_says_so_and_copies_their_answers(
    workspace: Path, state: Path
) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        assert (
            "2 results; every command repeated one already run (message 1): nothing ran again, and "
            "the results say so. Press c" in app.status_line.text
        )
        await pilot.press("c")
        await wait_for(pilot, lambda: "already ran in message 1" in app.clipboard)
        assert app.clipboard.count("summary: already ran in message 1: ") == 2


async def test_text_without_commands_is_not_a_message(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste("Thanks, that worked!"))
        await wait_for(pilot, lambda: bool(notes(app)))
        assert "no OPERATOR_CMD or <\U0001d49e=string:...> block" in notes(app)[-1]
        results_back = "OPERATOR_RESULT\nid: r1\nok: true\nsummary: done\nEND_OPERATOR_RESULT\n"
        app.post_message(events.Paste(results_back))
        await wait_for(pilot, lambda: len(notes(app)) == 2)
        assert "paste them into the chat" in notes(app)[-1]
        responses_back = (
            '<\U0001d49e=string:file:notes time="2026-11-26T10:00:00+00:00">\n'
            "re: [k3x9q] /open a.md\nOpened a.md\n---\nhello\n</\U0001d49e>\n"
        )
        app.post_message(events.Paste(responses_back))
        await wait_for(pilot, lambda: len(notes(app)) == 3)
        assert "Operator's own String responses" in notes(app)[-1]
        assert app.states == {}
        assert (
            app.states == {} and app.session.last_message_number() == 0
        )  # nothing added to the session


async def test_a_paste_while_a_dialog_is_open_is_refused_aloud(
    workspace: Path, state: Path
) -> None:
    async with app_asking(workspace, state, WRITE) as (app, pilot):
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: bool(notes(app)))
        assert "close the dialog first" in notes(app)[-1]
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))
        assert list(app.states) == [1]


async def test_the_status_line_stops_saying_waits_once_the_write_is_answered(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text("")
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert "Following stream.txt" in app.status_line.text
        append(
            stream, "Writing the plan.\n" + WRITE + "OPERATOR_CMD\nversion: 1\n"
        )  # the message goes on
        await wait_for(pilot, lambda: asks(app))
        assert not app.welcome.display  # a followed message hides the welcome like a paste does
        assert "waits for you" in app.status_line.text
        await pilot.press("y")
        await wait_for(pilot, lambda: "w1 applied" in app.status_line.text)
        assert not app.current().finished
        await pilot.press("e")
        await wait_for(pilot, lambda: app.current().finished)
        append(stream, block("s2", "fs.stat", path="README.md"))
        await wait_for(pilot, lambda: app.view_number == 2)
        assert "Message 2 is streaming from stream.txt" in app.status_line.text


async def test_watching_the_clipboard_without_one_says_why(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("operator_app.tui.clipboard.sys.platform", "linux")
    app = OperatorApp(
        workspace=workspace,
        state_dir=state,
        watch_clipboard=True,
        clipboard_source=SystemClipboard(),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(notes(app)))
        assert "--watch-clipboard is off" in notes(app)[-1]
        assert (
            "$DISPLAY" in notes(app)[-1] and "Paste the model's messages instead" in notes(app)[-1]
        )
        app.post_message(events.Paste(READS))  # pasting still works
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)


async def test_a_message_over_the_window_is_numbered_truly_and_warns_in_full(
    workspace: Path, state: Path
) -> None:
    from operator_app.tui.widgets.message_view import NOTE_WARNING

    # Longer than the scan's window, and than what the view shows (its text starts inside line 8).
    cut_block = block("w1", "fs.write", path="big.txt", content_b64="QUJD" * 110_000)
    message = (
        "Rewriting it.\n\n" + cut_block + "\n" + block("r1", "fs.stat", path="README.md")
    ).replace("\n", "\r")
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(message))  # as a terminal delivers it: lone CRs
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)
        # The write block the scan cut is answered (ERR_BLOCK_TOO_LARGE), the cut itself warned.
        assert results_of(app)[0].error_code == "ERR_BLOCK_TOO_LARGE"
        warnings = app.current().warnings
        assert len(warnings) == 1 and "1 warning: see the top of the message" in (
            app.status_line.text
        )
        assert all(
            any(warning in text for text in notes(app)) for warning in warnings
        )  # whole, in toasts

        def shown() -> str:  # the view is redrawn a moment after the message ends (coalesced)
            return " ".join(
                line.text.strip() for line in app.message_view.lines if line.kind == NOTE_WARNING
            )

        await wait_for(
            pilot, lambda: shown() == " ".join(f"! {warning}" for warning in warnings)
        )  # and on top
        lines = app.message_view.lines
        numbered = {line.number: line.text for line in lines if line.number is not None}
        assert min(numbered) == 8 and numbered[13] == "id: r1"  # the message's own line numbers


async def test_the_status_line_speaks_of_the_message_shown_after_browsing(
    workspace: Path, state: Path
) -> None:
    """What it said of message 2 (a copy, a result) is not left standing once [ shows message 1."""
    from operator_app import settings

    settings.trust_terminal_copy()
    async with app_pasted(workspace, state, READS + block("bad", "fs.reed", path="x")) as (
        app,
        pilot,
    ):
        app.post_message(events.Paste(block("r3", "fs.stat", path="README.md")))
        await wait_for(pilot, lambda: app.view_number == 2 and finished(app))
        await pilot.press("c")
        await wait_for(
            pilot, lambda: app.status_line.text.startswith("Copied 1 result block of message 2")
        )
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: app.view_number == 1)
        assert (
            app.status_line.text
            == "Message 1: 3 results (1 not ok). Press c to copy them back into the chat."
        )
        await pilot.press("right_square_bracket")
        assert app.status_line.text.startswith("Message 2: 1 result. Press c to copy it")
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        commands["Go to message 1"].callback()
        await wait_for(
            pilot,
            lambda: (
                app.view_number == 1 and app.status_line.text.startswith("Message 1: 3 results")
            ),
        )


async def test_browsing_to_the_message_whose_write_waits_says_so(
    workspace: Path, state: Path
) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        app.post_message(events.Paste(WRITE))
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("left_square_bracket")
        assert app.status_line.text.startswith("Message 1: 2 results.")
        await pilot.press("right_square_bracket")
        assert app.status_line.text == "Message 2: w1 waits for you; d shows its dialog again."
        await pilot.press("d")
        await wait_for(pilot, lambda: asks(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app))
