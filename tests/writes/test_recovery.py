"""No result is lost if the app dies: a process killed between committing an approved write and
recording its result (or between recording its intent and committing) leaves the session able
to tell the model exactly what happened. `operator-app results --last` gives the recovered
result, the next message does the same before it runs, and the write is never applied twice."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support.blocks import b64, block
from tests.support.cases import in_session
from tests.support.dying_engine import die_during_a_write

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo-workspace"

EDIT = json.dumps(
    {"version": 1, "edits": [{"op": "insertAfter", "anchor": "Beta", "text": "Gamma"}]}
)
MESSAGE = (
    block("r1", "fs.readSlice", path="notes/plan.txt")
    + block("e1", "fs.applyEdits", path="notes/plan.txt", edits_b64=b64(EDIT))
    + block("r2", "fs.readSlice", path="notes/plan.txt")
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    return root


def test_a_write_committed_just_before_the_app_died_gets_its_ok_result(
    ws: Path, tmp_path: Path
) -> None:
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(MESSAGE)
    die_during_a_write(ws, state, message, "after-commit")
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"  # the change landed
    done = in_session("results", ws, state, "--last", "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["data"]["results"]
    assert [(r["id"], r["ok"]) for r in results] == [("r1", True), ("e1", True)]
    assert results[1]["summary"] == "Applied 1 edit to notes/plan.txt: +1 -0 lines"
    # The model resends the same message: the write is a repeat, not applied a second time (it
    # and r1 are answered with their results from then); only r2, which never ran, runs now.
    again = in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        "--json",
        str(message),
    )
    assert again.returncode == 0, again.stderr
    answered = json.loads(again.stdout)["data"]["results"]
    assert [r["id"] for r in answered] == ["r1", "e1", "r2"]
    assert [r["summary"].startswith("already ran in message 1: ") for r in answered] == [
        True,
        True,
        False,
    ]
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"
    undo = in_session("undo", ws, state)
    assert undo.returncode == 0, undo.stderr
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"


def test_a_write_the_app_died_before_committing_says_nothing_changed(
    ws: Path, tmp_path: Path
) -> None:
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(MESSAGE)
    before = (ws / "notes" / "plan.txt").read_bytes()
    die_during_a_write(ws, state, message, "before-commit")
    assert (ws / "notes" / "plan.txt").read_bytes() == before
    # The next message recovers first: the earlier message gains the result, and the id stays
    # free, so the same write sent again is applied.
    retry = tmp_path / "retry.txt"
    retry.write_text(block("e1", "fs.applyEdits", path="notes/plan.txt", edits_b64=b64(EDIT)))
    done = in_session(
        "exec",
        ws,
        state,
        "--approve",
        "all",
        "--json",
        str(retry),
    )
    assert done.returncode == 0, done.stderr
    assert [(r["id"], r["ok"]) for r in json.loads(done.stdout)["data"]["results"]] == [
        ("e1", True)
    ]
    # The model has not seen message 1's new result: the person is told where it is.
    notice = (
        "Operator stopped during a write of message 1 last time; the result of e1 (ERR_INTERNAL) "
        "is now recorded with that message: operator-app results --message 1 prints its results "
        "to copy back"
    )
    assert notice in json.loads(done.stdout)["warnings"]
    first = in_session("results", ws, state, "--message", "1", "--json")
    results = json.loads(first.stdout)["data"]["results"]
    assert [(r["id"], r["ok"], r["error_code"]) for r in results] == [
        ("r1", True, None),
        ("e1", False, "ERR_INTERNAL"),
    ]
    assert "the change was not made" in results[1]["summary"]
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


@pytest.mark.parametrize("edited", [False, True])
def test_a_write_whose_journal_record_was_cut_short_is_not_said_unmade_when_the_file_changed_since(
    edited: bool, ws: Path, tmp_path: Path
) -> None:
    """Killed after the replace but before the journal's "commit" record: the file tells whether
    the change landed. If the person edited it before the next run, it is neither the old nor the
    new bytes, and "the change was not made; send it again" would have the model apply it twice."""
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(MESSAGE)
    die_during_a_write(ws, state, message, "after-replace")
    plan = ws / "notes" / "plan.txt"
    assert plan.read_text() == "Alpha\nBeta\nGamma\n"
    if edited:
        plan.write_text("Alpha\nBeta\nGamma\nDelta\n")
    done = in_session("results", ws, state, "--last", "--json")
    assert done.returncode == 0, done.stderr
    (_, write) = json.loads(done.stdout)["data"]["results"]
    if not edited:
        assert (write["id"], write["ok"]) == ("e1", True)
        return
    assert (write["id"], write["ok"], write["error_code"]) == ("e1", False, "ERR_INTERNAL")
    assert "not made" not in write["summary"] and "read" in write["summary"], write["summary"]


def test_a_write_killed_just_before_its_replace_says_nothing_changed_and_leaves_no_temporary_file(
    ws: Path, tmp_path: Path
) -> None:
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(MESSAGE)
    before = sorted(p.name for p in (ws / "notes").iterdir())
    die_during_a_write(ws, state, message, "before-replace")
    done = in_session("results", ws, state, "--last", "--json")
    assert done.returncode == 0, done.stderr
    (_, write) = json.loads(done.stdout)["data"]["results"]
    assert (write["ok"], write["error_code"]) == (False, "ERR_INTERNAL") and "not made" in write[
        "summary"
    ]
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\n"
    # The new bytes' temporary file is not left in the person's tree for the model to find.
    assert sorted(p.name for p in (ws / "notes").iterdir()) == before


def system_trash_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPERATOR_TRASH"}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path))
    return env


DELETE = block("d1", "fs.delete", path="notes/plan.txt")


@pytest.mark.parametrize("trash", ["session", "system"])
def test_a_delete_that_reached_the_trash_before_the_app_died_can_still_be_undone(
    ws: Path, tmp_path: Path, trash: str
) -> None:
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(DELETE)
    env = (
        dict(os.environ, OPERATOR_TRASH="session")
        if trash == "session"
        else system_trash_env(tmp_path)
    )
    before = (ws / "notes" / "plan.txt").read_bytes()
    die_during_a_write(ws, state, message, "after-replace", env=env)
    assert not (ws / "notes" / "plan.txt").exists()  # in the trash; the journal never heard where
    done = in_session("results", ws, state, "--last", "--json", env=env)
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)["data"]["results"]
    assert (result["id"], result["ok"]) == ("d1", True) and result[
        "summary"
    ] == "Moved notes/plan.txt (2 lines, 11 bytes) to the trash"
    assert not list(ws.rglob(".operator-trash-*"))
    undo = in_session("undo", ws, state, env=env)
    assert undo.returncode == 0, undo.stderr
    assert (ws / "notes" / "plan.txt").read_bytes() == before
    if trash == "system":  # a restore by hand from a file manager would also find the way home
        assert not list((tmp_path / "xdg" / "Trash" / "files").iterdir())


@pytest.mark.parametrize("place", ["free", "taken since"])
def test_a_delete_the_app_died_in_before_it_left_the_workspace_is_put_back(
    place: str, ws: Path, tmp_path: Path
) -> None:
    """Unless a new file was saved at its place since: then it stays in Operator's hidden folder
    (never put back over the new file), and the result says where it is."""
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(DELETE)
    env = system_trash_env(tmp_path)
    before = (ws / "notes" / "plan.txt").read_bytes()
    die_during_a_write(ws, state, message, "inside-send2trash", env=env)
    assert not (ws / "notes" / "plan.txt").exists() and list(ws.rglob(".operator-trash-*/plan.txt"))
    if place == "taken since":
        (ws / "notes" / "plan.txt").write_text("a new plan\n")
    hidden = list((ws / "notes").glob(".operator-trash-*"))
    done = in_session("results", ws, state, "--last", "--json", env=env)
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)["data"]["results"]
    if place == "free":
        assert (result["id"], result["ok"], result["error_code"]) == ("d1", False, "ERR_INTERNAL")
        assert "the change was not made; send the command again" in result["summary"]
        assert (ws / "notes" / "plan.txt").read_bytes() == before
        assert not list(ws.rglob(".operator-trash-*"))  # no hidden litter for the model's fs.list
    else:
        assert (result["id"], result["ok"], result["error_code"]) == (
            "d1",
            False,
            "ERR_DELETE_INCOMPLETE",
        )
        assert (
            f"the entry was not put back: it is {hidden[0] / 'plan.txt'}; tell the person"
            in result["summary"]
        )
        assert (ws / "notes" / "plan.txt").read_text() == "a new plan\n"
        assert (hidden[0] / "plan.txt").read_bytes() == before


@pytest.mark.parametrize("what", ["folder", "symlink", "file"])
def test_a_delete_the_app_died_in_before_anything_moved_says_nothing_changed(
    what: str, ws: Path, tmp_path: Path
) -> None:
    """The entry is still at its place, unchanged: the delete was not made, whatever kind of entry
    it is (a folder or a symlink is not a file to read, and that is no reason for "not known")."""
    state, message = tmp_path / "st", tmp_path / "m.txt"
    target = {"folder": "notes", "symlink": "link", "file": "notes/plan.txt"}[what]
    if what == "symlink":
        (ws / "link").symlink_to("README.md")
    message.write_text(block("d1", "fs.delete", path=target))
    die_during_a_write(ws, state, message, "before-trash")
    done = in_session("results", ws, state, "--last", "--json")
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)["data"]["results"]
    assert (result["id"], result["ok"], result["error_code"]) == ("d1", False, "ERR_INTERNAL")
    assert "the change was not made" in result["summary"], result["summary"]
    assert os.path.lexists(ws / target)


def test_a_delete_the_app_died_in_before_anything_moved_is_not_said_unmade_once_the_file_changed(
    ws: Path, tmp_path: Path
) -> None:
    """Another file at the place may be a new one saved after the delete reached the trash: "not
    made; send it again" would have the model delete the person's new file."""
    state, message = tmp_path / "st", tmp_path / "m.txt"
    message.write_text(DELETE)
    die_during_a_write(ws, state, message, "before-trash")
    (ws / "notes" / "plan.txt").write_text("a new plan\n")
    done = in_session("results", ws, state, "--last", "--json")
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)["data"]["results"]
    assert (result["ok"], result["error_code"]) == (False, "ERR_INTERNAL")
    assert "not made" not in result["summary"] and "read" in result["summary"], result["summary"]


def test_a_folder_delete_killed_while_its_source_was_being_removed_is_not_put_back_half(
    tmp_path: Path,
) -> None:
    """Across file systems the session trash copies a folder whole under a hidden name, renames
    it into trash/<seq>/, then removes the source it had renamed aside. Killed during that
    removal, the source is a half-emptied folder: it must not be put back as the entry that "was
    not deleted" while the whole one sits in the trash, recorded nowhere."""
    from operator_app.engine.boundary.fsops import DIR_FLAGS
    from operator_app.engine.safety.trash_recovery import find_interrupted_delete

    parent, state = tmp_path / "ws", tmp_path / "st"
    whole = state / "trash" / "7" / "docs"
    whole.mkdir(parents=True)
    (whole / "a.txt").write_text("a")
    (whole / "b.txt").write_text("b")
    half = parent / ".docs.operator-moving-0123456789ab"
    half.mkdir(parents=True)
    (half / "b.txt").write_text("b")  # a.txt already removed
    dir_fd = os.open(parent, DIR_FLAGS)
    try:
        where, record = find_interrupted_delete(dir_fd, "docs", parent, state, 7, 0.0)
    finally:
        os.close(dir_fd)
    assert where == "trashed" and record is not None and record["location"] == str(whole)
    assert not (parent / "docs").exists()


def test_a_delete_put_back_after_a_crash_never_overwrites_what_appeared_at_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry renamed aside by a killed delete goes back only while its place is free. A file
    an editor saves there at the last moment (after any look, right before the move) must win:
    the old entry stays under its hidden name, and recovery says where it is."""
    from operator_app.engine.boundary.fsops import DIR_FLAGS
    from operator_app.engine.safety import trash_recovery

    parent, state = tmp_path / "ws", tmp_path / "st"
    parent.mkdir()
    aside = parent / ".notes.txt.operator-moving-7-0123456789ab"
    aside.write_text("the deleted notes\n")
    place = parent / "notes.txt"

    def editor_saves() -> None:
        if not place.exists():
            place.write_text("saved by the editor\n")

    real_stat, real_rename = os.stat, trash_recovery.rename_noreplace

    def stat_then_save(path: object, *args: object, **kwargs: object) -> os.stat_result:
        try:
            return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]
        except FileNotFoundError:
            if path == "notes.txt":  # the place was looked at and found free: the editor saves now
                editor_saves()
            raise

    def save_then_rename(*args: object) -> None:
        editor_saves()
        real_rename(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat_then_save)
    monkeypatch.setattr(trash_recovery, "rename_noreplace", save_then_rename)
    dir_fd = os.open(parent, DIR_FLAGS)
    try:
        where, record = trash_recovery.find_interrupted_delete(
            dir_fd, "notes.txt", parent, state, 7, 0.0
        )
    finally:
        os.close(dir_fd)
    assert place.read_text() == "saved by the editor\n"
    assert aside.read_text() == "the deleted notes\n"
    assert (where, record) == ("stranded", {"where": str(aside)})


SHM = Path("/dev/shm")


@pytest.mark.skipif(
    not SHM.is_dir() or SHM.stat().st_dev == Path(__file__).stat().st_dev,
    reason="needs a second file system (/dev/shm) for the state folder",
)
@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_delete_killed_while_removing_its_moved_source_leaves_nothing_hidden_behind(
    what: str, ws: Path, tmp_path: Path
) -> None:
    """Across file systems the session trash copies the entry, renames the whole copy into the
    trash, then removes the source it had renamed aside as .<name>.operator-moving-*. Killed just
    then, that hidden source sits in the workspace, where fs.list shows it to the model: recovery
    records the trash copy and then removes it; undo still brings the entry back."""
    import tempfile

    state = Path(tempfile.mkdtemp(dir=SHM, prefix="operator-test-")) / "st"
    try:
        target = "notes/plan.txt" if what == "file" else "notes"
        message = tmp_path / "m.txt"
        message.write_text(block("d1", "fs.delete", path=target))
        before = {p.relative_to(ws): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
        env = dict(os.environ, OPERATOR_TRASH="session")
        die_during_a_write(ws, state, message, "removing-the-moved-source", env=env)
        assert list(ws.rglob(".*.operator-moving-*"))  # what the killed move left beside the place
        done = in_session("results", ws, state, "--last", "--json", env=env)
        assert done.returncode == 0, done.stderr
        [result] = json.loads(done.stdout)["data"]["results"]
        assert (result["id"], result["ok"]) == ("d1", True), result
        assert not list(ws.rglob(".*.operator-*")) and not (ws / target).exists()
        undo = in_session("undo", ws, state, env=env)
        assert undo.returncode == 0, undo.stderr
        assert {p.relative_to(ws): p.read_bytes() for p in ws.rglob("*") if p.is_file()} == before
    finally:
        shutil.rmtree(state.parent, ignore_errors=True)
