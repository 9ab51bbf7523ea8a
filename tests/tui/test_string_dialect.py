"""String's blocks in the TUI, beside OPERATOR_CMD ones: a message with a write of each dialect is
asked about write by write ("write 1 of 2", "write 2 of 2"), its table lists both, and `c`
copies each result in its own form; a streamed String block waits for its close tag; `p` copies
the prompt of the dialect the palette chose."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from operator_app import settings
from operator_app.protocol.chanflow.spec import string_prompt
from operator_app.protocol.spec import system_prompt
from tests.support.blocks import block
from tests.support.pilot import SIZE, asks, wait_for
from tests.support.tui_app import (
    app_asking,
    cell,
    finished,
    make_app,
    plain,
    results_of,
    table_statuses,
)

pytestmark = pytest.mark.asyncio
S = "\U0001d49e"
MIXED = (
    "A write in each dialect.\n"
    + block("w1", "fs.write", path="notes/one.txt", content="one")
    + f"<{S}=string:notes>/write notes/two.md\n# Two\nsecond line\n</{S}>\n"
)


def dialog_text(app) -> str:  # type: ignore[no-untyped-def]
    screen = app.screen
    return (
        screen.query_one("#consent-box").border_title
        + "\n"
        + "".join(plain(static.content, width=150) for static in screen.query(Static))
    )


async def test_a_write_of_each_dialect_in_one_message(workspace: Path, state: Path) -> None:
    async with app_asking(workspace, state, MIXED) as (app, pilot):
        text = dialog_text(app)
        assert "write 1 of 2" in text and "notes/two.md" in text  # what `a` would apply after it
        await pilot.press("y")
        await wait_for(pilot, lambda: asks(app) and app.screen.plan.target.rel == "notes/two.md")
        assert "write 2 of 2" in dialog_text(app) and "+# Two" in app.screen.plan.diff
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 2)
        assert (workspace / "notes" / "two.md").read_text() == "# Two\nsecond line\n"
        await wait_for(pilot, lambda: table_statuses(app) == ["ok", "ok"])
        # The status column says ok; the summary does not say it again with String's mark.
        assert cell(app, 1, "summary").startswith("Written: notes/two.md (18 bytes, 2 lines)")
        await pilot.press("c")
        await wait_for(pilot, lambda: app.clipboard != "")
        copied = app.clipboard
        assert copied.startswith("OPERATOR_RESULT\nid: w1\nok: true\n")
        assert f"<{S}=string:file:notes time=" in copied
        assert "\u2713 Written: notes/two.md (18 bytes, 2 lines)" in copied
        assert copied.rstrip("\n").endswith(f"</{S}>")


async def test_a_streamed_string_block_waits_for_its_close_tag(
    workspace: Path, state: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.txt"
    stream.write_text(f"Reading.\n<{S}=string:notes>/open notes/plan")
    app = make_app(workspace, state, follow=stream)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: app.current() is not None and app.current().pending is not None
        )
        assert app.current().pending == (2, f"<{S}=string:notes>", "its close tag")
        assert "waiting for its close tag" in [r.summary for r in app.current().ordered_rows()]
        with stream.open("a") as handle:
            handle.write(f".txt</{S}>\nDone.\n")
        await wait_for(pilot, lambda: len(results_of(app)) == 1)
        (result,) = results_of(app)
        assert (
            result.ok and result.summary == "Opened notes/plan.txt" and result.dialect == "string"
        )


async def test_p_copies_the_prompt_of_the_chosen_dialect(
    workspace: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied: list[str] = []
    monkeypatch.setattr(
        "operator_app.tui.clipboard.copy_to_system", lambda text: copied.append(text) or "xclip"
    )
    app = make_app(workspace, state)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: len(copied) == 1)
        assert copied[0] == system_prompt()
        app.copy_control.toggle_prompt_dialect()
        assert settings.prompt_dialect() == "string"
        await pilot.press("p")
        await wait_for(pilot, lambda: len(copied) == 2)
        assert copied[1] == string_prompt()
    again = make_app(workspace, state)  # remembered: a new app copies String's prompt too
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: len(copied) == 3)
        assert copied[2] == string_prompt()


async def test_the_dialog_says_when_a_message_repeats_an_earlier_one(
    workspace: Path, state: Path
) -> None:
    message = "Adding a line.\n" + f"<{S}=string:notes>/append notes/plan.txt\nmore\n</{S}>\n"
    async with app_asking(workspace, state, message) as (app, pilot):
        assert "same text as message" not in dialog_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 1)
    async with app_asking(workspace, state, message) as (app, pilot):
        text = dialog_text(app)
        assert (
            "note: this message has the same text as message 1, whose /append was applied; "
            "approve only if it should run again" in text
        )
        await pilot.press("n")
        await wait_for(pilot, lambda: finished(app) and len(results_of(app)) == 1)
    assert (workspace / "notes" / "plan.txt").read_text().count("more") == 1
