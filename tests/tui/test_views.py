"""What the screens show: invalid blocks where they stand, duplicates, progress of a long search
while keys still work, a 100-block paste in well under a second, the help screen, the command
palette and the footer's keys."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from operator_app.protocol.commands import ACTIONS
from operator_app.tui.keys import MAIN_KEYS
from operator_app.tui.screens.help import HelpScreen
from operator_app.tui.widgets.message_view import NOTE_ERROR
from tests.support.blocks import block
from tests.support.pilot import SIZE, wait_for
from tests.support.tui_app import (
    READS,
    app_pasted,
    cell,
    finished,
    make_app,
    plain,
    results_of,
    table_statuses,
)

pytestmark = pytest.mark.asyncio


async def test_an_invalid_block_shows_its_error_where_it_stands(
    workspace: Path, state: Path
) -> None:
    message = "Intro\n" + block("bad", "fs.reed", path="notes/plan.txt") + "\n" + READS
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: finished(app) and app.table.row_count == 3)
        (bad, *_) = results_of(app)
        assert bad.error_code == "ERR_UNKNOWN_ACTION"
        assert cell(app, 0, "status") == "✗ invalid"
        assert cell(app, 0, "summary").startswith(
            "ERR_UNKNOWN_ACTION: action fs.reed is not defined"
        )
        lines = app.message_view.lines
        note = next(i for i, line in enumerate(lines) if line.kind == NOTE_ERROR)
        assert "ERR_UNKNOWN_ACTION" in lines[note].text
        assert lines[note - 1].text == "END_OPERATOR_CMD"  # right under the block it belongs to
        assert [line.kind for line in lines if line.number == 2] == ["invalid"]
        assert [line.kind for line in lines if line.number == 9] == ["block"]  # the valid r1 block


async def test_a_repeated_command_shows_as_duplicate(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, READS) as (app, pilot):
        app.post_message(events.Paste(READS))
        await wait_for(
            pilot, lambda: app.view_number == 2 and finished(app) and app.table.row_count == 2
        )
        assert [cell(app, i, "status") for i in range(2)] == ["= repeat", "= repeat"]
        assert "already ran in message 1" in cell(app, 0, "summary")
        # Not run again, but answered: the model is told, else it would take them as never run.
        assert [r.summary.split(":")[0] for r in results_of(app)] == [
            "already ran in message 1"
        ] * 2
        assert app.check_action("copy_results", ()) is True


async def test_a_long_search_shows_progress_and_keys_keep_working(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(120):
        (workspace / "many" / f"d{n % 6}").mkdir(parents=True, exist_ok=True)
        (workspace / "many" / f"d{n % 6}" / f"f{n}.txt").write_text(f"line {n}\nneedle {n}\n")
    from operator_app.engine.reads import search_tree

    slow_read = search_tree.read_walked

    def read_walked(dir_fd: int, name: str, limit: int, sniff: int = 0) -> bytes | str:
        # a slow disk: the search takes over three seconds, time enough on a busy machine
        time.sleep(0.03)
        return slow_read(dir_fd, name, limit, sniff)

    monkeypatch.setattr(search_tree, "read_walked", read_walked)
    # what is tested is the progress, not the time limit a busy machine could reach
    monkeypatch.setattr(search_tree.navigation, "TIME_LIMIT_S", 60)
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(block("s1", "fs.searchTree", path="many", query="needle")))
        await wait_for(pilot, lambda: "s1: searched" in app.status_line.text)
        assert not finished(app)
        await pilot.press("question_mark")  # the UI answers while the search runs
        assert isinstance(app.screen, HelpScreen) and not finished(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: finished(app), timeout=30)
        assert results_of(app)[0].ok and "120 matches" in results_of(app)[0].summary


async def test_a_large_paste_of_100_blocks_shows_every_result(workspace: Path, state: Path) -> None:
    """Every one of 100 blocks in a 200,000-character paste reaches the table as ok. How fast is
    measured by benchmarks/bench_tui.py (target: well under a second), not here."""
    filler = "Some prose between the commands, the way chat models write it.\n" * 30
    message = "".join(
        filler + block(f"r{n}", "fs.readSlice", path="notes/plan.txt") for n in range(100)
    )
    assert 190_000 < len(message) <= 200_000
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        app.post_message(events.Paste(message))
        await wait_for(
            pilot, lambda: finished(app) and table_statuses(app) == ["ok"] * 100, timeout=30
        )
        assert [r.id for r in results_of(app)] == [f"r{n}" for n in range(100)]
        assert all(r.ok for r in results_of(app))


async def test_help_lists_every_key_and_every_action(workspace: Path, state: Path) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=(160, 70)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = "".join(plain(static.content, width=150) for static in app.screen.query(Static))
        rows = {" ".join(line.split()) for line in text.splitlines()}  # the table pads its columns
        for action in ACTIONS:
            assert action in text
        for key in MAIN_KEYS:
            assert f"{key.display} {key.help}" in rows
        # Issue 36: what happens while a command runs, and the prompt's dialect in the palette.
        said = " ".join(text.split())
        assert "While it runs, its output streams into the details pane" in said
        assert "the prompt's dialect (which system prompt p copies" in said
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_every_action_is_in_the_command_palette(workspace: Path, state: Path) -> None:
    async with app_pasted(workspace, state, READS) as (app, _pilot):
        titles = {command.title for command in app.get_system_commands(app.screen)}
        wanted = {
            key.label
            for key in MAIN_KEYS
            if key.action not in ("end_follow", "decide", "stop_command", "pair_another_browser")
        }  # no --follow, no wait, no command running, no bridge
        assert wanted <= titles and "End message" not in titles
        assert "Go to message 1" in titles


async def test_the_footer_shows_the_keys_that_apply_now(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert (
            app.check_action("end_follow", ()) is False
        )  # not following: not in the footer at all
        assert (
            app.check_action("copy_results", ()) is None
        )  # dimmed until there is something to copy
        shown = {
            active.binding.action: active.enabled for active in app.screen.active_bindings.values()
        }
        assert (
            "end_follow" not in shown and shown["copy_results"] is False and shown["help"] is True
        )
        app.post_message(events.Paste(READS))
        await wait_for(pilot, lambda: finished(app))
        await pilot.pause(0.1)
        shown = {
            active.binding.action: active.enabled for active in app.screen.active_bindings.values()
        }
        assert shown["copy_results"] is True


async def test_code_colours_of_one_file_do_not_decide_those_of_another_with_its_extension() -> None:
    """CMakeLists.txt is CMake, notes.txt is text; FOO.PY (no lexer: Pygments' names are
    case-sensitive) must not leave every .py file of the session uncoloured."""
    from operator_app.tui.widgets.lines_view import CodeColours

    CodeColours._lexers.clear()
    assert CodeColours.for_file("FOO.PY") is None
    python = CodeColours.for_file("src/app.py")
    assert python is not None and python.lexer.name == "Python"
    cmake, notes = CodeColours.for_file("CMakeLists.txt"), CodeColours.for_file("notes.txt")
    assert cmake is not None and cmake.lexer.name == "CMake"
    assert notes is None or notes.lexer.name != "CMake"


async def test_a_diff_line_too_long_to_read_is_not_lexed_so_drawing_it_stays_instant() -> None:
    """A minified file's 400,000-character line took seconds to lex on its first draw and most of
    a second on every redraw (one segment per token): the dialog froze. It is drawn plain."""
    from operator_app.tui.widgets.lines_view import CodeColours, diff_lines

    code = CodeColours.for_file("app.min.js")
    long_line = 'var a=1,b="x";function f(q){return q+1}' * 10_000
    diff = f"--- a/app.min.js\n+++ b/app.min.js\n@@ -1 +1 @@\n-{long_line}\n+{long_line};\n x = 1\n"
    lines = diff_lines(diff, code)
    assert [line.code is code for line in lines] == [False, False, False, False, False, True]
    assert [line.style for line in lines[3:5]] == ["del", "add"]


async def test_the_readme_keys_table_names_every_key() -> None:
    """The README's keys table is the person's first look at the keys: none may be missing."""
    from operator_app.tui.keys import CONSENT_KEYS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = [
        line.split("|")[1]
        for line in readme.splitlines()
        if line.startswith("| ") and line.count("|") >= 3
    ]
    named = {key.strip("` ") for cell in table for key in cell.split(" / ")}
    wanted = (
        {key.display for key in MAIN_KEYS}
        | {"ctrl+p", "ctrl+q", "esc"}
        | {key for key, _ in CONSENT_KEYS if len(key) == 1}
    )
    assert wanted <= named, wanted - named
