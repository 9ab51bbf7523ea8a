"""Snapshots of the main screens (pytest-textual-snapshot): the welcome panel, the main screen with
results, the consent dialog with a diff, and the help screen. Update with --snapshot-update after
a deliberate change and look at the SVGs before committing them; the README shows two of them
(docs/screenshot-*.svg), which must be copied again.

The header shows the workspace path, the way Operator shows any path under the person's home:
`~/ws`. So each test opens the demo workspace copied to `ws` in its own tmp_path, with $HOME set
to that folder: no snapshot records where a machine keeps its temporary files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual import events

from operator_app.tui.app import OperatorApp
from operator_app.tui.screens.help import HelpScreen
from tests.support.blocks import b64, block
from tests.support.pilot import asks, wait_for
from tests.support.tui_app import DEMO, cell, table_statuses

SIZE = (140, 40)
# Results whose summaries are long: each must be readable in the table at 80x24 and at 180x50.
LONG = (
    block("r1", "fs.readSlice", path="notes/plan.txt")
    + block("r2", "fs.list", path=".")
    + block("bad", "fs.reed", path="notes/plan.txt")
    + block("m1", "fs.read", path="src/ap.py")
    + block("o1", "fs.read", path="../outside.txt")
)
# A change to code, so the dialog shows the diff coloured by the file's language.
PATCH = block(
    "p1",
    "fs.patch",
    path="src/app.py",
    patch_b64=b64(
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -11,5 +11,6 @@\n"
        " \n def main(argv: list[str]) -> int:\n"
        '-    name = argv[1] if len(argv) > 1 else "world"\n-    print(greet(name))\n'
        "+    # Greet everyone named on the command line.\n"
        '+    for name in argv[1:] or ["world"]:\n'
        "+        print(greet(name))\n     return 0\n"
    ),
)


@pytest.fixture
def demo_at_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> OperatorApp:
    """The app on a copy of the demo workspace at ~/ws, its session in the test's folder."""
    home = tmp_path.resolve()
    monkeypatch.setenv("HOME", str(home))
    shutil.copytree(DEMO, home / "ws")
    return OperatorApp(workspace=home / "ws", state_dir=home / "state", poll_interval=0.05)


async def session_read(pilot) -> None:  # type: ignore[no-untyped-def]
    """The session folder is read on a worker: the status line says what to do once it is."""
    await wait_for(pilot, lambda: "Paste the model's answer" in pilot.app.status_line.text)


def test_welcome_panel(snap_compare, demo_at_home: OperatorApp) -> None:
    assert snap_compare(demo_at_home, terminal_size=SIZE, run_before=session_read)


def test_main_screen_with_results(snap_compare, demo_at_home: OperatorApp) -> None:
    app = demo_at_home
    assert snap_compare(app, terminal_size=SIZE, run_before=pasted(app, LONG, LONG_STATUSES))


def pasted(app: OperatorApp, message: str, statuses: list[str]):  # type: ignore[no-untyped-def]
    async def paste(pilot) -> None:  # type: ignore[no-untyped-def]
        await session_read(pilot)
        app.post_message(events.Paste(message))
        await wait_for(
            pilot, lambda: app.view_number is not None and app.states[app.view_number].finished
        )
        await wait_for(
            pilot,
            lambda: table_statuses(app) == statuses and app.table.cursor_row == len(statuses) - 1,
        )
        await pilot.pause(0.3)  # the cursor's own scroll into view comes after a refresh
        app.table.scroll_to(
            y=0, animate=False
        )  # the first rows, as the person scrolls up to read them
        await wait_for(pilot, lambda: app.table.scroll_y == 0)
        await pilot.pause(0.2)

    return paste


LONG_STATUSES = ["ok", "ok", "invalid", "failed", "failed"]


def test_readable_summaries_at_80x24(snap_compare, demo_at_home: OperatorApp) -> None:
    app = demo_at_home
    assert snap_compare(app, terminal_size=(80, 24), run_before=pasted(app, LONG, LONG_STATUSES))


def test_readable_summaries_at_180x50(snap_compare, demo_at_home: OperatorApp) -> None:
    app = demo_at_home
    assert snap_compare(app, terminal_size=(180, 50), run_before=pasted(app, LONG, LONG_STATUSES))


def test_consent_dialog_with_diff(snap_compare, demo_at_home: OperatorApp) -> None:
    app = demo_at_home

    async def ask(pilot) -> None:  # type: ignore[no-untyped-def]
        await session_read(pilot)
        # Two more writes after it: the dialog lists what `a` would apply, the delete marked.
        app.post_message(
            events.Paste(
                PATCH
                + block("n1", "fs.write", path="notes/todo.txt", content="Ship it")
                + block("d1", "fs.delete", path="config.json")
            )
        )
        await wait_for(pilot, lambda: asks(app))
        table = app.query_one("#commands")
        # The table behind the dialog is drawn with the row waiting for the decision.
        await wait_for(
            pilot, lambda: table.row_count == 1 and cell(app, 0, "status") == "● waiting"
        )
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=SIZE, run_before=ask)


def test_help_screen(snap_compare, demo_at_home: OperatorApp) -> None:
    app = demo_at_home

    async def open_help(pilot) -> None:  # type: ignore[no-untyped-def]
        await session_read(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=open_help)


def test_the_readme_screenshots_are_the_current_snapshots() -> None:
    """docs/screenshot-*.svg (shown in the README) are copies of two snapshots above, so they
    cannot drift from what the app draws. After --snapshot-update, copy them again."""
    snapshots = Path(__file__).parent / "__snapshots__" / "test_snapshots"
    docs = Path(__file__).resolve().parents[2] / "docs"
    for screenshot, snapshot in (
        ("screenshot-main.svg", "test_main_screen_with_results.svg"),
        ("screenshot-consent.svg", "test_consent_dialog_with_diff.svg"),
    ):
        assert (docs / screenshot).read_text() == (snapshots / snapshot).read_text(), (
            f"docs/{screenshot} is stale: "
            f"cp tests/tui/__snapshots__/test_snapshots/{snapshot} docs/{screenshot}"
        )


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "not-sandboxed"])
def test_command_consent_dialog(snap_compare, demo_at_home: OperatorApp, sandboxed: bool) -> None:
    """Issue 24: a command's dialog: its script coloured as shell, folder, time limit, network,
    sandboxed; and, where no sandbox can be had, the same in red."""
    from operator_app.engine import WriteOutlook, WritePlan
    from operator_app.engine.boundary.target import Target
    from operator_app.engine.changes.plan import CommandRun
    from operator_app.tui.screens.command_consent import CommandConsentScreen

    app = demo_at_home
    root = app.options.workspace
    assert root is not None
    script = 'cd src\npython -m pytest -q tests/ --maxfail=1  # "quick" run\necho "exit $?"'
    why = "" if sandboxed else "sandboxing is turned off (OPERATOR_SANDBOX=none)"
    plan = WritePlan(
        action="shell.run",
        command_id="test-1",
        target=Target("src", root / "src", ("src",)),
        kind="run",
        base_hash=None,
        new_bytes=None,
        diff=script,
        added=0,
        removed=0,
        summary="run",
        run=CommandRun(
            script=script,
            cwd="src",
            timeout_s=120,
            sandboxed=sandboxed,
            network=False,
            unsandboxed_why=why,
        ),
    )

    async def ask(pilot) -> None:  # type: ignore[no-untyped-def]
        await session_read(pilot)
        app.push_screen(CommandConsentScreen(plan, 3, WriteOutlook(1, 1, (), False)))
        await wait_for(pilot, lambda: isinstance(app.screen, CommandConsentScreen))
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=SIZE, run_before=ask)


def test_secret_read_question(snap_compare, demo_at_home: OperatorApp) -> None:
    """The question before a read of a file that looks like a secret (issue 26): y or n, no a."""
    from operator_app.tui.screens.consent import SecretReadScreen

    app = demo_at_home
    assert app.options.workspace is not None
    (app.options.workspace / ".env").write_text("API_TOKEN=s3cr3t\n")
    message = block("r1", "fs.read", path="notes/plan.txt") + block("r2", "fs.read", path=".env")

    async def ask(pilot) -> None:  # type: ignore[no-untyped-def]
        await session_read(pilot)
        app.post_message(events.Paste(message))
        await wait_for(pilot, lambda: isinstance(app.screen, SecretReadScreen))
        await wait_for(pilot, lambda: app.screen.ready)
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=SIZE, run_before=ask)
