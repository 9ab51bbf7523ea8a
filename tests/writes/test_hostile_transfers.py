"""Issue 28, items 4, 6, 8 and 10, through `operator-app exec`: a moved or copied link never
leads out of the workspace from its new place (links that travel with it included); planning a
copy while a folder is swapped for a symlink never names an entry outside; a copy never keeps
setuid or setgid; and a tree 1,100 folders deep is copied, moved, deleted and undone."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from operator_app.engine.changes.plan import WritePlan
from operator_app.engine.executor import Engine
from tests.support.blocks import block
from tests.support.exec_folder import cli, entries, exec_json
from tests.support.measured import measured_exec


@pytest.fixture(autouse=True)
def session_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "SECRET").write_text("the person's secret\n")
    return root


def refused(ws: Path, tmp_path: Path, message: str) -> dict[str, object]:
    before = entries(ws)
    (result,) = exec_json(ws, tmp_path / "st", message)
    assert entries(ws) == before, result
    return result


@pytest.mark.parametrize("action", ["fs.move", "fs.copy", "fs.rename"])
def test_a_link_through_a_link_that_travels_with_it_cannot_lead_out(
    ws: Path, tmp_path: Path, action: str
) -> None:
    """A/B/D/s -> . and A/B/D/l -> s/../../outside/SECRET both lead inside; with D at the top,
    s is D and l climbs out. The check used to see s at the new place as a plain name."""
    (ws / "A" / "B" / "D").mkdir(parents=True)
    (ws / "A" / "outside").mkdir()
    (ws / "A" / "outside" / "SECRET").write_text("inside\n")
    os.symlink(".", ws / "A" / "B" / "D" / "s")
    os.symlink("s/../../outside/SECRET", ws / "A" / "B" / "D" / "l")
    assert (ws / "A" / "B" / "D" / "l").read_text() == "inside\n"
    if action == "fs.rename":  # the same depth: l still leads to A/outside/SECRET
        (moved,) = exec_json(
            ws, tmp_path / "st", block("x", action, path="A/B/D", path_to="A/B/D2")
        )
        assert moved["ok"] and (ws / "A" / "B" / "D2" / "l").read_text() == "inside\n", moved
        return
    result = refused(ws, tmp_path, block("x", action, path="A/B/D", path_to="D"))
    assert result["error_code"] == "ERR_SYMLINK_WOULD_ESCAPE", result
    assert "the symlink A/B/D/l (-> s/../../outside/SECRET) at D/l" in str(result["summary"])


def test_a_link_to_its_parent_carried_up_is_refused_and_down_is_carried(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "E" / "F").mkdir(parents=True)
    (ws / "outside").mkdir()
    (ws / "outside" / "SECRET").write_text("inside\n")
    os.symlink("..", ws / "E" / "F" / "s")
    os.symlink("s/../outside/SECRET", ws / "E" / "F" / "l")
    result = refused(ws, tmp_path, block("c1", "fs.copy", path="E/F", path_to="F"))
    assert result["error_code"] == "ERR_SYMLINK_WOULD_ESCAPE", result
    (fine,) = exec_json(ws, tmp_path / "st", block("c2", "fs.copy", path="E/F", path_to="G/H/F"))
    assert fine["ok"], fine
    assert (ws / "G" / "H" / "F" / "l").resolve() == (ws / "G" / "outside" / "SECRET")


def test_a_link_that_already_led_outside_is_carried_and_a_loop_is_harmless(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "a" / "b").mkdir(parents=True)
    secret = tmp_path / "outside" / "SECRET"
    os.symlink(str(secret), ws / "a" / "b" / "absolute")
    os.symlink("loop", ws / "a" / "b" / "loop")
    (result,) = exec_json(ws, tmp_path / "st", block("m", "fs.move", path="a/b", path_to="b"))
    assert result["ok"], result
    assert os.readlink(ws / "b" / "absolute") == str(secret)


def test_planning_never_names_an_entry_outside_when_a_folder_is_swapped(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """folder/sub becomes a symlink to a folder outside (holding a FIFO, which a copy refuses
    by name) right after planning looked at it: after folder was listed, or after sub was
    checked not to be a link (where a walk by path then lists sub by its path). Neither the
    answer nor what the person is shown may name anything outside; walking by path, planning
    did in 12 of 960 such races."""
    outside = tmp_path / "outside" / "dir-OUTSIDE-NAME"
    outside.mkdir()
    (outside / "OUTSIDE-FILE").write_text("x\n")
    os.mkfifo(outside / "OUTSIDE-FIFO")
    sub = ws / "folder" / "sub"
    sub.mkdir(parents=True)
    (sub / "inside.txt").write_text("x\n")
    swapped: list[str] = []

    def swap(how: str) -> None:
        if not swapped:
            swapped.append(how)
            os.rename(sub, ws / "parked")
            os.symlink(outside, sub)

    listdir, islink = os.listdir, os.path.islink

    def listdir_then_swap(where: int | str) -> list[str]:
        names = listdir(where)
        if "sub" in names:
            swap("listed")
        return names

    def islink_then_swap(path: str) -> bool:
        answer = islink(path)
        if str(path) == str(sub) and not answer:
            swap("checked")
        return answer

    monkeypatch.setattr(os, "listdir", listdir_then_swap)
    monkeypatch.setattr(os.path, "islink", islink_then_swap)
    shown: list[str] = []

    def shown_then_declined(engine: Engine, plan: WritePlan, message: int) -> bool:
        shown.append(plan.diff)
        return False

    monkeypatch.setattr(Engine, "consent", shown_then_declined)
    (result,) = exec_json(ws, tmp_path / "st", block("c", "fs.copy", path="folder", path_to="copy"))
    assert swapped, "the swap was never made"
    assert "OUTSIDE" not in json.dumps(result) + "".join(shown), (result, shown)
    assert result["error_code"] != "ERR_INTERNAL", result


def test_a_copy_drops_setuid_and_setgid(ws: Path, tmp_path: Path) -> None:
    tool = ws / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o6755)
    shared = ws / "shared"
    shared.mkdir()
    (shared / "inner").write_text("x\n")
    (shared / "inner").chmod(0o4750)
    shared.chmod(0o2775)
    message = block("c1", "fs.copy", path="tool", path_to="tool-copy") + block(
        "c2", "fs.copy", path="shared", path_to="shared-copy"
    )
    results = exec_json(ws, tmp_path / "st", message)
    assert all(r["ok"] for r in results), results
    assert stat.S_IMODE((ws / "tool-copy").stat().st_mode) == 0o755
    assert stat.S_IMODE((ws / "shared-copy").stat().st_mode) == 0o775
    assert stat.S_IMODE((ws / "shared-copy" / "inner").stat().st_mode) == 0o750
    assert stat.S_IMODE(tool.stat().st_mode) == 0o6755  # the original keeps its own


def deep_tree(top: Path, depth: int) -> None:
    """`depth` nested folders under top, a file at the bottom (made through descriptors: the
    path would pass PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as out:
            out.write("deep\n")
    finally:
        os.close(fd)


def test_a_tree_1100_folders_deep_is_copied_moved_deleted_and_undone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "deep").mkdir(parents=True)
    deep_tree(ws / "deep", 1100)
    state = tmp_path / "st"
    try:
        message = (
            block("c", "fs.copy", path="deep", path_to="deep-copy")
            + block("m", "fs.move", path="deep", path_to="moved")
            + block("d", "fs.delete", path="moved")
        )
        run = measured_exec(ws, state, message, "--approve", "all", "--json")
        results = json.loads(run.stdout)["data"]["results"]
        assert [r["ok"] for r in results] == [True, True, True], results
        assert sorted(os.listdir(ws)) == ["deep-copy"]
        code, out, err = cli(
            "undo", "--workspace", str(ws), "--state-dir", str(state), "--steps", "3"
        )
        assert code == 0, out + err
        assert sorted(os.listdir(ws)) == ["deep"]
        fd = os.open(ws / "deep", os.O_RDONLY)
        for _ in range(1100):
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("bottom.txt", os.O_RDONLY, dir_fd=fd)) as back:
            assert back.read() == "deep\n"
    finally:
        # pytest's own clean-up (shutil.rmtree) recurses: take the deep trees away first
        subprocess.run(["rm", "-rf", str(ws), str(state)], check=False)
        time.sleep(0)
