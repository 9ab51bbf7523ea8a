"""Secrets ask first (issue 26): a read that would hand the model the content of a file that looks
like a secret waits for the person's yes, in both dialects, through `operator-app exec` (refused
unless --approve all) and the TUI's consent dialog; a tree search leaves such files out and says
so; names-only reads do not ask; the list is the settings', per workspace."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from operator_app import settings
from tests.support.blocks import block
from tests.support.cases import exec_app
from tests.support.pilot import asks, rows, wait_for
from tests.support.tui_app import DEMO, app_asking, app_pasted, results_of

SECRET = "API_TOKEN=s3cr3t-value"
S = "\U0001d49e"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    (root / ".env").write_text(SECRET + "\n")
    (root / "deploy").mkdir()
    (root / "deploy" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\nMIIE" + "\n")
    (root / ".aws").mkdir()
    (root / ".aws" / "credentials").write_text("[default]\naws_secret_access_key=s3cr3t-aws\n")
    return root


def run(ws: Path, state: Path, message: str, *args: str) -> tuple[list[dict[str, Any]], list[str]]:
    """`operator-app exec --json` as a script runs it (no terminal): its results and warnings."""
    path = state.parent / "message.txt"
    path.write_text(message)
    done = exec_app(ws, state, path, "--json", *args)
    envelope = json.loads(done.stdout)
    return envelope["data"]["results"], envelope["warnings"]


def chan(topic: str, payload: str) -> str:
    return f"<{S}=string:{topic}>{payload}</{S}>\n"


def test_exec_refuses_a_secret_read_unless_approve_all_and_says_why(
    ws: Path, tmp_path: Path
) -> None:
    message = (
        block("r1", "fs.read", path=".env")
        + block("r2", "fs.readSlice", path="deploy/server.pem", start="1", lines="2")
        + block("r3", "fs.search", path=".aws/credentials", query="secret")
        + block("r4", "fs.read", path="notes/plan.txt")
    )
    # No one to ask (no terminal, no --approve): not read, not a refusal; the rest waits with it.
    results, warnings = run(ws, tmp_path / "state", message)
    assert [r["error_code"] for r in results] == ["ERR_NOT_APPROVED"] * 4
    assert results[0]["summary"].startswith("ERR_NOT_APPROVED: fs.read of .env was not read")
    assert "no person was asked" in results[0]["summary"]
    assert "s3cr3t" not in json.dumps(results)
    assert any("no one was asked about r1 (fs.read of .env)" in w for w in warnings), warnings
    assert any("It was not read, and the 3 commands after it did not run" in w for w in warnings)
    # --approve none is the person's no, given ahead: declined, and the rest runs.
    results, warnings = run(ws, tmp_path / "state", message, "--approve", "none")
    assert [r["error_code"] for r in results] == ["ERR_SECRET_DECLINED"] * 3 + [None]
    assert all(r["status"] == "rejected" for r in results[:3])
    assert "s3cr3t" not in json.dumps(results) and "MIIE" not in json.dumps(results)
    assert "it matches .env*" in results[0]["summary"]
    assert "deploy/server.pem" in results[1]["summary"] and "*.pem" in results[1]["summary"]
    assert any("look like secrets were refused" in w and "--approve all" in w for w in warnings)
    # Declined, nothing was read: the same commands run once approved, and say why they waited.
    results, warnings = run(ws, tmp_path / "state", message, "--approve", "all")
    assert [r["ok"] for r in results] == [True, True, True, True]
    assert SECRET in results[0]["details"]
    assert "looks like a secret, matching .env*" in results[0]["summary"]
    assert "asked first" in results[0]["summary"]
    assert not any("secrets" in w for w in warnings)


def test_a_string_open_of_a_secret_waits_too(ws: Path, tmp_path: Path) -> None:
    message = chan("keys", "/open .env") + chan("notes", "/open notes/plan.txt")
    results, _ = run(ws, tmp_path / "state", message)
    assert [r["error_code"] for r in results] == ["NOT_APPROVED", "NOT_APPROVED"]
    assert "was not read: it looks like a secret, and no person was asked" in str(results[0])
    results, _ = run(ws, tmp_path / "state", message, "--approve", "none")
    declined, fine = results
    assert declined["error_code"] == "SECRET_DECLINED" and declined["status"] == "rejected"
    assert "s3cr3t" not in json.dumps(declined)
    assert fine["ok"] is True
    results, _ = run(ws, tmp_path / "state", message, "--approve", "all")
    assert results[0]["ok"] is True and SECRET in results[0]["details"]
    assert "note: ~/.env looks like a secret (.env*)" in results[0]["details"]


def test_every_string_read_of_a_secret_waits(ws: Path, tmp_path: Path) -> None:
    """String's other ways to a file's content ask too: /edit's view, /verify, /refresh and /back
    of a place a topic holds, a kept version (/open path@cN); and OPERATOR_CMD's fs.readRegion.
    What was approved once is asked again the next time."""
    state = tmp_path / "state"
    (ws / "deploy" / "app.key").write_text("# @region secret\nkey\n# @endregion secret\n")
    approved = (
        chan("keys", "/open .env")
        + chan("kept", "/commit .env")
        + chan("back", "/open .env")
        + chan("back", "/open notes/plan.txt")
    )
    results, _ = run(ws, state, approved, "--approve", "all")
    assert all(r["ok"] for r in results), results
    message = (
        chan("edit", "/edit .env")
        + chan("verify", "/verify .env#none")
        + chan("keys", "/refresh")
        + chan("back", "/back")
        + chan("kept", "/open .env@c1")
        + block("g1", "fs.readRegion", path="deploy/app.key", marker_id="secret")
    )
    results, warnings = run(ws, state, message, "--approve", "none")
    codes = [r["error_code"] for r in results]
    assert codes == ["SECRET_DECLINED"] * 5 + ["ERR_SECRET_DECLINED"], results
    assert "s3cr3t" not in json.dumps(results)
    assert any("look like secrets were refused" in w for w in warnings)


def test_a_symlink_to_a_secret_is_one_too(ws: Path, tmp_path: Path) -> None:
    os.symlink("../.env", ws / "notes" / "settings.txt")
    read = block("r1", "fs.read", path="notes/settings.txt")
    results, _ = run(ws, tmp_path / "state", read, "--approve", "none")
    assert results[0]["error_code"] == "ERR_SECRET_DECLINED"


def test_a_tree_search_leaves_secrets_out_and_names_them(ws: Path, tmp_path: Path) -> None:
    (ws / "notes" / "token.txt").write_text("the s3cr3t word, in plain notes\n")
    results, _ = run(ws, tmp_path / "state", block("s1", "fs.searchTree", path=".", query="s3cr3t"))
    (result,) = results
    assert result["ok"] is True
    details = result["details"]
    assert "notes/token.txt:1:" in details
    assert "API_TOKEN" not in details and "aws_secret" not in details
    assert (
        "# not searched, as they look like secrets: .aws/credentials, .env, deploy/server.pem "
        "(fs.read of one asks the person first)" in details
    )


def test_reads_of_names_only_never_ask(ws: Path, tmp_path: Path) -> None:
    message = (
        block("l1", "fs.list", path=".")
        + block("t1", "fs.tree", path=".")
        + block("f1", "fs.find", path=".", pattern="*.pem")
        + block("s1", "fs.stat", path=".env")
    )
    results, _ = run(ws, tmp_path / "state", message)
    assert all(r["ok"] for r in results), results
    assert "deploy/server.pem" in results[2]["details"]


def test_the_list_is_the_settings_per_workspace(ws: Path, tmp_path: Path) -> None:
    (ws / "config.local.yml").write_text("password: hunter2\n")
    (ws / ".env.example").write_text("API_TOKEN=\n")
    settings.save("secret_paths", {str(ws): ["config.local.yml", "!.env.example"]})
    message = (
        block("r1", "fs.read", path="config.local.yml")
        + block("r2", "fs.read", path=".env.example")
        + block("r3", "fs.read", path=".env")
    )
    results, _ = run(ws, tmp_path / "state", message, "--approve", "none")
    assert [r["error_code"] for r in results] == [
        "ERR_SECRET_DECLINED",
        None,
        "ERR_SECRET_DECLINED",
    ]
    # A list for every workspace replaces Operator's own.
    settings.save("secret_paths", {"default": ["*.yml"]})
    results, _ = run(ws, tmp_path / "state", message, "--approve", "none")
    assert [r["error_code"] for r in results] == ["ERR_SECRET_DECLINED", None, None]


def test_patterns_of_every_shape_name_what_they_match_and_nothing_else(
    ws: Path, tmp_path: Path
) -> None:
    """The first look tests a name, "name*" and "*.ext" as plain strings and hands any other glob
    to fnmatch (engine/boundary/secrets.py): each shape catches what gitignore's would."""
    patterns = ["vault.txt", "key*", "*.sec", "pin?.txt", "[ab]code.txt", "*token*", "x*y*z"]
    settings.save("secret_paths", {str(ws): patterns})
    caught = [
        "vault.txt",
        "keys.txt",
        "notes/a.sec",
        "pin1.txt",
        "bcode.txt",
        "my_token.md",
        "xAyBz",
    ]
    spared = ["vault.txt.bak", "akey.txt", "a.sec.txt", "pin10.txt", "ccode.txt", "tokn.md", "xyq"]
    (ws / "notes").mkdir(exist_ok=True)
    for name in caught + spared:
        (ws / name).write_text("x\n")
    message = "".join(
        block(f"r{n}", "fs.read", path=name) for n, name in enumerate(caught + spared)
    )
    results, _ = run(ws, tmp_path / "state", message, "--approve", "none")
    declined = [r["path"] for r in results if r["error_code"] == "ERR_SECRET_DECLINED"]
    assert declined == caught
    assert all(r["ok"] for r in results[len(caught) :])


@pytest.mark.asyncio
async def test_the_tui_asks_like_a_write_and_n_tells_the_model_it_was_declined(
    ws: Path, tmp_path: Path
) -> None:
    from operator_app.tui.screens.consent import ConsentScreen

    message = block("r1", "fs.read", path=".env") + block("r2", "fs.read", path="notes/plan.txt")
    async with app_asking(ws, tmp_path / "state", message) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ConsentScreen) and screen.plan.kind == "read"
        said = str(screen.query_one("#consent-title").render())
        assert "fs.read wants to read .env, which looks like a secret" in said
        assert (
            "a read of a secret-looking file waits for you"
            in screen.query_one("#consent-box").border_title
        )
        await pilot.press("a")  # "the rest" is writes: no answer to a secret read
        await pilot.pause(0.2)
        assert asks(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.current().finished)
        declined, fine = results_of(app)
        assert declined.error_code == "ERR_SECRET_DECLINED" and fine.ok
        assert SECRET not in (declined.details or "")
    async with app_asking(ws, tmp_path / "state2", message) as (app, pilot):
        await pilot.press("y")
        await wait_for(pilot, lambda: app.current().finished)
        allowed = results_of(app)[0]
        assert allowed.ok and SECRET in (allowed.details or "")
        assert "looks like a secret" in allowed.summary


@pytest.mark.asyncio
async def test_a_copy_of_a_secret_says_so_in_its_dialog(ws: Path, tmp_path: Path) -> None:
    message = block("c1", "fs.copy", path=".env", path_to="notes/env.txt")
    async with app_asking(ws, tmp_path / "state", message) as (app, pilot):
        notes = [str(w.render()) for w in app.screen.query("Static") if "note:" in str(w.render())]
        assert any(
            ".env looks like a secret" in note and "without Operator asking" in note
            for note in notes
        ), notes
        await pilot.press("n")


@pytest.mark.asyncio
async def test_a_string_open_in_the_tui_asks_first(ws: Path, tmp_path: Path) -> None:
    async with app_asking(ws, tmp_path / "state", chan("keys", "/open .env")) as (app, pilot):
        assert app.screen.plan.kind == "read" and app.screen.plan.action == "/open"
        await pilot.press("y")
        await wait_for(pilot, lambda: app.current().finished)
        (result,) = results_of(app)
        assert result.ok and SECRET in (result.details or "")


@pytest.mark.asyncio
async def test_a_pasted_read_of_no_secret_asks_nothing(ws: Path, tmp_path: Path) -> None:
    message = block("r1", "fs.read", path="notes/plan.txt")
    async with app_pasted(ws, tmp_path / "state", message) as (app, _):
        assert rows(app) == [("r1", "ok")] and len(app.screen_stack) == 1
