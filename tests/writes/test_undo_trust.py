"""The undo journal is not trusted blindly, and the trash moves act on what was checked: change
numbers are never reused (a torn record or a leftover pre-image cannot make undo restore another
file's bytes), trash locations and created folders from the journal are checked, a deleted entry
comes back only if the trash still holds that very entry, in the workspace it came from, and
every move starts from the checked parent folder's descriptor. All through the real `exec` and
`undo` (or the engine) on real folders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.blocks import b64, block
from tests.support.exec_folder import Folder

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def session_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")


# --- change numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "leftover", ["torn begin record and its pre-image", "pre-image whose record was lost"]
)
def test_a_change_number_is_never_handed_out_twice(leftover: str, tmp_path: Path) -> None:
    """An app killed after keeping change 2's pre-image (of f.txt) but before its record was whole:
    the next change must not take number 2, or undo would give g.txt the bytes of f.txt."""
    folder = Folder(
        tmp_path, {"f.txt": b"F original\n", "g.txt": b"G original\n", "h.txt": b"H original\n"}
    )
    assert folder.one("fs.write", path="f.txt", content="F new")["ok"]
    (folder.state / "journal" / "pre" / "2.bin").write_bytes(b"F new\n")
    if leftover.startswith("torn"):
        with folder.journal().open("a") as handle:
            handle.write('{"event": "begin", "seq": 2, "time": 17')  # cut mid-record, no newline
    assert folder.one("fs.write", path="g.txt", content="G new")["ok"]
    assert folder.one("fs.write", path="h.txt", content="H new")["ok"]
    assert (
        folder.state / "journal" / "pre" / "2.bin"
    ).read_bytes() == b"F new\n"  # never overwritten
    code, _, err = folder.undo("--steps", "3")
    assert code == 0, err
    assert {n: (folder.ws / f"{n}.txt").read_bytes() for n in "fgh"} == {
        n: f"{n.upper()} original\n".encode() for n in "fgh"
    }


def test_an_existing_pre_image_makes_the_commit_fail_and_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should a number ever be handed out again, the pre-image file of that number is not taken
    over (a hard link or O_EXCL never replaces): the write fails and changes nothing."""
    from operator_app.engine.safety.journal import Journal

    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    assert folder.one("fs.write", path="a.txt", content="b")["ok"]
    monkeypatch.setattr(Journal, "next_seq", lambda self: 1)
    result = folder.one("fs.write", path="a.txt", content="c")
    assert not result["ok"] and result["error_code"] == "ERR_IO", result
    assert "pre-image numbered 1" in result["summary"]
    assert (folder.ws / "a.txt").read_bytes() == b"b\n"
    assert (folder.state / "journal" / "pre" / "1.bin").read_bytes() == b"a\n"
    monkeypatch.undo()
    assert folder.undo()[0] == 0 and (folder.ws / "a.txt").read_bytes() == b"a\n"


SHM = Path("/dev/shm")


@pytest.mark.skipif(
    not SHM.is_dir() or SHM.stat().st_dev == Path(__file__).stat().st_dev,
    reason="needs a second file system (/dev/shm) for the state folder",
)
def test_a_pre_image_on_another_file_system_is_copied_and_undone_exactly(tmp_path: Path) -> None:
    """No hard link reaches another file system (EXDEV): the pre-image is copied instead."""
    import tempfile

    state = Path(tempfile.mkdtemp(dir=SHM, prefix="operator-test-"))
    try:
        folder = Folder(tmp_path, {"a.txt": b"one\r\ntwo\r\n"})
        folder.state = state / "st"
        assert folder.one("fs.write", path="a.txt", content="three")["ok"]
        pre = folder.state / "journal" / "pre" / "1.bin"
        assert (
            pre.read_bytes() == b"one\r\ntwo\r\n"
            and pre.stat().st_dev != (folder.ws / "a.txt").stat().st_dev
        )
        assert folder.undo()[0] == 0 and (folder.ws / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    finally:
        shutil.rmtree(state, ignore_errors=True)


def test_undo_refuses_a_pre_image_that_is_not_the_one_the_change_kept(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    assert folder.one("fs.write", path="a.txt", content="b")["ok"]
    pre = folder.state / "journal" / "pre" / "1.bin"
    pre.unlink()
    pre.write_bytes(b"another file's old bytes\n")
    code, _, err = folder.undo()
    assert code == 6 and "is not the one this change kept" in err
    assert (folder.ws / "a.txt").read_bytes() == b"b\n"


# --- what the journal says is checked -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["session", "system-xdg"])
def test_undo_moves_nothing_from_a_location_outside_the_trash_folders(
    kind: str, tmp_path: Path
) -> None:
    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    assert folder.one("fs.write", path="a.txt", content="b")["ok"]
    secret = tmp_path / "outside" / "secret"
    secret.parent.mkdir()
    secret.write_text("outside the workspace\n")
    folder.append_records(
        {
            "event": "begin",
            "seq": 9,
            "time": 0,
            "command_id": "x",
            "action": "fs.delete",
            "rel": "stolen.txt",
            "kind": "delete",
            "old_sha": None,
            "new_sha": None,
            "mode": None,
            "created_dirs": [],
        },
        {
            "event": "commit",
            "seq": 9,
            "time": 0,
            "trash": {
                "kind": kind,
                "location": str(secret),
                "info": str(tmp_path / "x"),
                "identity": {"dev": 0, "ino": 0, "fingerprint": "f"},
            },
        },
    )
    code, _, err = folder.undo()
    assert code == 6 and "not in a trash folder Operator uses" in err
    assert (
        secret.read_text() == "outside the workspace\n" and not (folder.ws / "stolen.txt").exists()
    )


@pytest.mark.parametrize("listed", ["../outside/keep", "{outside}/keep", "sub/../../outside/keep"])
def test_undo_of_a_create_removes_no_folder_outside_the_workspace(
    listed: str, tmp_path: Path
) -> None:
    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    assert folder.one("fs.write", path="made.txt", content="")["ok"]
    keep = tmp_path / "outside" / "keep"
    keep.mkdir(parents=True)
    lines = folder.journal().read_text().splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        if record["event"] == "begin":
            record["created_dirs"] = [listed.format(outside=tmp_path / "outside")]
    folder.journal().write_text("".join(json.dumps(r) + "\n" for r in records))
    code, out, err = folder.undo()
    assert code == 0, err
    assert keep.is_dir() and not (folder.ws / "made.txt").exists()
    assert "none were removed" in out


def test_undo_in_another_workspace_sharing_the_state_folder_is_refused(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"private.txt": b"project one\n"})
    other = tmp_path / "ws2"
    other.mkdir()
    assert folder.one("fs.delete", path="private.txt")["ok"]
    code, _, err = folder.undo(ws=other)
    assert code == 6 and f"it was made in the workspace {folder.ws}" in err
    assert list(other.iterdir()) == []
    assert folder.undo()[0] == 0 and (folder.ws / "private.txt").read_bytes() == b"project one\n"


def test_undo_of_a_delete_refuses_what_is_now_at_the_trash_location(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"notes.txt": b"workspace notes\n"})
    assert folder.one("fs.delete", path="notes.txt")["ok"]
    trashed = folder.state / "trash" / "1" / "notes.txt"
    shutil.move(trashed, tmp_path / "restored-by-hand.txt")
    trashed.write_text("something else, put there later\n")
    code, _, err = folder.undo()
    assert (
        code == 6
        and "the trashed notes.txt is no longer the entry Operator deleted; restore it by hand"
        in err
    )
    assert not (folder.ws / "notes.txt").exists() and trashed.exists()


def test_undo_of_a_delete_from_the_system_trash_checks_the_entry(tmp_path: Path) -> None:
    """The person restored the file by hand, then trashed another file of the same name: undo
    must not bring that one into the workspace. send2trash reads XDG_DATA_HOME when imported,
    hence processes of their own."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / "notes.txt").write_text("workspace notes\n")
    (outside / "notes.txt").write_text("private diary\n")
    (tmp_path / "m.txt").write_text(block("d", "fs.delete", path="notes.txt"))
    env = {k: v for k, v in os.environ.items() if k != "OPERATOR_TRASH"}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path))
    app = [sys.executable, "-m", "operator_app"]
    state = ["--workspace", str(ws), "--state-dir", str(tmp_path / "st")]
    done = subprocess.run(
        [*app, "exec", *state, "--approve", "all", str(tmp_path / "m.txt")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert "ok: true" in done.stdout and "own trash" not in done.stdout, done.stdout + done.stderr
    files = tmp_path / "xdg" / "Trash" / "files"
    info = (tmp_path / "xdg" / "Trash" / "info" / "notes.txt.trashinfo").read_text()
    assert f"Path={ws}/notes.txt\n" in info  # a restore by hand puts it where it was
    (files / "notes.txt").rename(ws / "restored-by-hand.txt")
    (tmp_path / "xdg" / "Trash" / "info" / "notes.txt.trashinfo").unlink()
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from send2trash import send2trash; send2trash({str(outside / 'notes.txt')!r})",
        ],
        env=env,
        check=True,
    )
    undo = subprocess.run([*app, "undo", *state], capture_output=True, text=True, env=env, cwd=ROOT)
    assert undo.returncode == 6 and "no longer the entry Operator deleted" in undo.stderr, (
        undo.stderr
    )
    assert (
        not (ws / "notes.txt").exists() and (files / "notes.txt").read_text() == "private diary\n"
    )


def test_undo_of_a_delete_whose_folder_is_now_a_file_is_refused(tmp_path: Path) -> None:
    folder = Folder(tmp_path, {"sub/f.txt": b"f\n"})
    assert folder.one("fs.delete", path="sub/f.txt")["ok"]
    shutil.rmtree(folder.ws / "sub")
    (folder.ws / "sub").write_text("a file now\n")
    code, _, err = folder.undo()
    assert code == 6 and "sub, which is a file, not a folder" in err, err
    assert (folder.ws / "sub").read_text() == "a file now\n"
    assert (folder.state / "trash" / "1" / "f.txt").read_bytes() == b"f\n"


# --- the moves start from the checked folder ------------------------------------------------------


def _swap_parent(ws: Path, outside: Path) -> None:
    os.rename(ws / "sub", ws / "sub.old")
    os.symlink(outside, ws / "sub")


def test_a_parent_swapped_for_a_symlink_during_a_delete_sends_nothing_outside_to_the_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.changes.delete import commit
    from operator_app.engine.executor import Engine, approve_all
    from operator_app.engine.state.session import Session

    folder = Folder(tmp_path, {"sub/f.txt": b"inside\n"})
    victim = tmp_path / "outside" / "victim"
    victim.mkdir(parents=True)
    (victim / "f.txt").write_text("OUTSIDE\n")
    real = commit.move_to_trash

    def racing(
        *args: Any, **kwargs: Any
    ) -> Any:  # another process swaps the folder after the check
        _swap_parent(folder.ws, victim)
        return real(*args, **kwargs)

    monkeypatch.setattr(commit, "move_to_trash", racing)
    run = Engine(Workspace(folder.ws), Session(folder.state), decide=approve_all).run_text(
        block("d", "fs.delete", path="sub/f.txt")
    )
    assert (victim / "f.txt").read_text() == "OUTSIDE\n", run.results[0].summary
    assert not (folder.ws / "sub.old" / "f.txt").exists()  # what was checked went to the trash


def test_a_parent_swapped_for_a_symlink_during_a_system_trash_delete_sends_nothing_outside(
    tmp_path: Path,
) -> None:
    """The same race with send2trash, which takes paths: run in a process of its own so that its
    trash is under tmp_path."""
    ws, victim = tmp_path / "ws", tmp_path / "outside" / "victim"
    (ws / "sub").mkdir(parents=True)
    victim.mkdir(parents=True)
    (ws / "sub" / "f.txt").write_text("inside\n")
    (victim / "f.txt").write_text("OUTSIDE\n")
    script = f"""
import os
from operator_app.engine.changes.delete import commit
from operator_app.engine.executor import Engine, approve_all
from operator_app.engine.state.session import Session
from operator_app.engine.boundary.workspace import Workspace
from pathlib import Path
real = commit.move_to_trash
def racing(*args, **kwargs):
    os.rename({str(ws / "sub")!r}, {str(ws / "sub.old")!r})
    os.symlink({str(victim)!r}, {str(ws / "sub")!r})
    return real(*args, **kwargs)
commit.move_to_trash = racing
run = Engine(Workspace({str(ws)!r}), Session(Path({str(tmp_path / "st")!r})),
             decide=approve_all).run_text(
    "OPERATOR_CMD\\nversion: 1\\nid: d\\naction: fs.delete\\npath: sub/f.txt\\nEND_OPERATOR_CMD\\n")
print(run.results[0].summary)
"""
    env = {k: v for k, v in os.environ.items() if k != "OPERATOR_TRASH"}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert (victim / "f.txt").read_text() == "OUTSIDE\n", done.stdout
    assert sorted(p.name for p in victim.iterdir()) == [
        "f.txt"
    ]  # no private folder or leftover there either
    assert not (ws / "sub.old" / "f.txt").exists() and list((ws / "sub.old").iterdir()) == []


def test_a_parent_swapped_for_a_symlink_during_an_undo_restores_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.engine.changes.delete import undo

    folder = Folder(tmp_path, {"sub/f.txt": b"inside\n"})
    victim = tmp_path / "outside" / "victim"
    victim.mkdir(parents=True)
    assert folder.one("fs.delete", path="sub/f.txt")["ok"]
    real = undo.restore_from_trash

    def racing(*args: Any, **kwargs: Any) -> Any:
        _swap_parent(folder.ws, victim)
        return real(*args, **kwargs)

    monkeypatch.setattr(undo, "restore_from_trash", racing)
    folder.undo()
    assert list(victim.iterdir()) == []
    assert (folder.ws / "sub.old" / "f.txt").read_bytes() == b"inside\n"


@pytest.mark.parametrize("existing", [None, b"a\n"])
def test_a_file_saved_by_something_else_while_the_commit_writes_is_not_overwritten(
    existing: bytes | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor saves (or creates) the target after the commit read it, while the new bytes
    are written and fsynced: the replace must not wipe that save out."""
    from operator_app.engine.safety.journal import Journal

    folder = Folder(tmp_path, {} if existing is None else {"a.txt": existing})
    real = Journal.begin

    def racing(*args: Any, **kwargs: Any) -> Any:  # after the read and the pre-image link
        (folder.ws / "a.txt").write_bytes(b"the person's save\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(Journal, "begin", racing)
    result = folder.one("fs.write", path="a.txt", content="from the model")
    assert not result["ok"] and result["error_code"] == "ERR_CONFLICT", result
    assert folder.tree() == {"a.txt": b"the person's save\n"}
    monkeypatch.undo()
    assert folder.undo()[0] != 0  # nothing of the refused write is left to undo


def test_a_file_saved_by_something_else_while_undo_writes_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.engine.changes.content import undo

    folder = Folder(tmp_path, {"a.txt": b"a\n"})
    assert folder.one("fs.write", path="a.txt", content="b")["ok"]
    real = undo.write_temp

    def racing(*args: Any, **kwargs: Any) -> Any:  # after undo checked the file, before the replace
        (folder.ws / "a.txt").write_bytes(b"the person's save\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(undo, "write_temp", racing)
    code, _, err = folder.undo()
    assert code != 0 and "changed" in err, err
    assert folder.tree() == {"a.txt": b"the person's save\n"}


# --- folders --------------------------------------------------------------------------------------


def test_undo_of_a_create_deeper_than_path_max_completes(tmp_path: Path) -> None:
    """The path of the deepest folder is longer than the system's PATH_MAX: removing the folders
    by path failed after the file was gone, and the change stayed 'not undone'."""
    rel = "/".join(["d" * 15] * 255) + "/x"
    folder = Folder(tmp_path)
    assert len(str(folder.ws)) + len(rel) > 4096
    result = folder.one("fs.write", path=rel, content="hi")
    assert result["ok"], result
    code, out, err = folder.undo()
    assert code == 0, err
    assert out.startswith(f"Removed {rel}")
    assert list(folder.ws.iterdir()) == []
    assert " undone at " in folder.undo("--list")[1]  # listed as undone, no longer as one to undo


def _mount_small(point: Path) -> bool:
    point.mkdir()
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)], capture_output=True
        ).returncode
        == 0
    )


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a small tmpfs to fill it"
)
def test_a_write_that_fails_on_a_full_disk_leaves_no_new_folders(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    if not _mount_small(ws):
        pytest.skip("cannot mount a tmpfs here")
    try:
        folder = Folder(tmp_path, {"fill": b"x" * 40_000}, ws=ws)
        result = folder.one("fs.write", path="n1/n2/n3/big.txt", content_b64=b64("A" * 36_000))
        assert result["error_code"] == "ERR_IO" and "nothing was changed" in result["summary"], (
            result
        )
        assert sorted(p.name for p in ws.iterdir()) == ["fill"]
        assert folder.undo()[0] == 6
    finally:
        subprocess.run(["umount", str(ws)], check=False)


# --- owner and mode -------------------------------------------------------------------------------


OTHER_USER = 4321  # no such account is needed: the kernel takes any number


def folder_closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to `path` that users other than its owner cannot enter."""
    for folder in reversed(path.parents):
        if not folder.stat().st_mode & 0o001:
            return folder
    return None


def as_other_user(args: list[str], base: Path) -> subprocess.CompletedProcess[str]:
    """`args` run by OTHER_USER (no other group), in `base`, with `base` as its home."""
    return subprocess.run(
        args,
        capture_output=True,
        text=True,
        cwd=base,
        user=OTHER_USER,
        group=OTHER_USER,
        extra_groups=[],
        env={**os.environ, "HOME": str(base)},
    )


def why_another_user_cannot_run_operator(base: Path) -> str | None:
    """Why OTHER_USER cannot start this checkout's Python and import Operator, or None when it
    can. A checkout (and its .venv) under a folder only its owner may enter, such as root's home
    or a `mktemp -d` folder, cannot be used by anyone else."""
    try:
        # The absolute path too: the child enters `base` as root, before it becomes the other user.
        reach = f"import operator_app.cli.main, os; os.listdir({str(base)!r})"
        probe = as_other_user([sys.executable, "-c", reach], base)
    except PermissionError as error:
        failure = f"{error.strerror}: {error.filename}"
    else:
        if probe.returncode == 0:
            return None
        failure = (probe.stderr.strip().splitlines() or [f"exit code {probe.returncode}"])[-1]
    closed = (
        folder_closed_to_others(Path(sys.executable))
        or folder_closed_to_others(ROOT)
        or folder_closed_to_others(base)
    )
    where = (
        f"{closed} is closed to other users (mode 0{closed.stat().st_mode & 0o777:o})"
        if closed is not None
        else "the checkout is not readable by other users"
    )
    return (
        f"user {OTHER_USER} cannot start this checkout's Python or reach {base} ({failure}); "
        f"{where}: clone the repository, and set TMPDIR, to folders other users can enter to run "
        "this test"
    )


@pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root to run Operator as another user against someone's file"
)
def test_set_id_bits_are_dropped_when_the_owner_cannot_be_kept(tmp_path: Path) -> None:
    """Operator run by user 4321 rewrites a set-user-ID file of user 1234 (in a folder 4321 may
    write): the new file belongs to 4321, so it must not keep the set-user-ID or set-group-ID
    bit. Skipped, with the reason, when the checkout is where user 4321 cannot run it."""
    import tempfile

    # Not under the run's own temporary folder, which only its owner may enter: in the system's.
    shared = os.environ.get("OPERATOR_TESTS_SYSTEM_TMPDIR") or tempfile.gettempdir()
    base = Path(tempfile.mkdtemp(prefix="operator-suid-", dir=shared))
    try:
        base.chmod(0o777)
        why_not = why_another_user_cannot_run_operator(base)
        if why_not is not None:
            pytest.skip(why_not)
        ws = base / "ws"
        ws.mkdir(mode=0o777)
        ws.chmod(0o777)
        target = ws / "tool.sh"
        target.write_text("echo old\n")
        os.chown(target, 1234, 2345)
        target.chmod(0o6755)
        (base / "m.txt").write_text(block("w", "fs.write", path="tool.sh", content="echo new"))
        (base / "m.txt").chmod(0o644)
        done = as_other_user(
            [
                sys.executable,
                "-m",
                "operator_app",
                "exec",
                "--workspace",
                str(ws),
                "--state-dir",
                str(base / "st"),
                "--approve",
                "all",
                str(base / "m.txt"),
            ],
            base,
        )
        assert "ok: true" in done.stdout, done.stdout + done.stderr
        info = target.stat()
        assert target.read_text() == "echo new\n"
        assert info.st_uid == OTHER_USER and info.st_mode & 0o7777 == 0o755
    finally:
        shutil.rmtree(base, ignore_errors=True)
