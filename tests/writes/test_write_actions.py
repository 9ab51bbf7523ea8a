"""Every write-type action on real folders: the file's conventions (LF/CRLF, BOM, final newline,
permission bits) survive, failures are all-or-nothing, deletes go to a trash and come back with
undo, real diffs apply byte for byte through fs.patch, and a write killed mid-commit leaves the
old or the new file, never a mix."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from operator_app.cli.main import main as cli_main
from tests.support.blocks import b64, block
from tests.support.exec_folder import exec_json

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(shutil.__file__).parent  # the standard library: real, varied Python files


@pytest.fixture(autouse=True)
def session_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_TRASH", "session")


STYLES = {
    "lf": (b"", b"\n", True),
    "crlf": (b"", b"\r\n", True),
    "bom-lf": (b"\xef\xbb\xbf", b"\n", True),
    "bom-crlf": (b"\xef\xbb\xbf", b"\r\n", True),
    "no-final-newline": (b"", b"\n", False),
    "crlf-no-final-newline": (b"", b"\r\n", False),
}
LINES = [
    "import os",
    "",
    "# OPERATOR_BEGIN body",
    "def main():",
    "    return 1",
    "# OPERATOR_END body",
    "",
    "print(main())",
]


def file_bytes(style: str, lines: list[str]) -> bytes:
    bom, nl, final = STYLES[style]
    body = nl.join(line.encode() for line in lines)
    return bom + body + (nl if final else b"")


ACTIONS = {
    "write": (
        block(
            "w",
            "fs.write",
            path="m.py",
            content_b64=b64("\n".join(LINES).replace("return 1", "return 2") + "\n"),
        ),
        [line.replace("return 1", "return 2") for line in LINES],
    ),
    # content written with CRLF takes the file's own line endings too, LF ones included
    "write-crlf-content": (
        block(
            "w",
            "fs.write",
            path="m.py",
            content_b64=b64("\r\n".join(LINES).replace("return 1", "return 2") + "\r\n"),
        ),
        [line.replace("return 1", "return 2") for line in LINES],
    ),
    "applyEdits": (
        block(
            "w",
            "fs.applyEdits",
            path="m.py",
            edits_b64=b64(
                json.dumps(
                    {
                        "version": 1,
                        "edits": [
                            {"op": "replaceFirst", "find": "return 1", "text": "return 2"},
                            {"op": "insertAfter", "anchor": "import os", "text": "import sys"},
                        ],
                    }
                )
            ),
        ),
        ["import os", "import sys"] + [line.replace("return 1", "return 2") for line in LINES[1:]],
    ),
    "patch": (
        block(
            "w",
            "fs.patch",
            path="m.py",
            patch_b64=b64(
                "--- a/m.py\n+++ b/m.py\n@@ -4,2 +4,2 @@\n"
                " def main():\n-    return 1\n+    return 2\n"
            ),
        ),
        [line.replace("return 1", "return 2") for line in LINES],
    ),
    "insertRegion": (
        block(
            "w",
            "fs.insertRegion",
            path="m.py",
            marker_id="extra",
            anchor="print(main())",
            position="before",
            content_b64=b64("X = 1\n"),
        ),
        LINES[:7] + ["# OPERATOR_BEGIN extra", "X = 1", "# OPERATOR_END extra", "print(main())"],
    ),
    "replaceRegion": (
        block(
            "w",
            "fs.replaceRegion",
            path="m.py",
            marker_id="body",
            content_b64=b64("def main():\n    return 2\n"),
        ),
        [line.replace("return 1", "return 2") for line in LINES],
    ),
    "deleteRegion": (
        block("w", "fs.deleteRegion", path="m.py", marker_id="body"),
        LINES[:3] + LINES[5:],
    ),
}


@pytest.mark.parametrize("mode", [0o640, 0o755])
@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("action", list(ACTIONS))
def test_conventions_survive_every_action(
    action: str, style: str, mode: int, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / "m.py"
    target.write_bytes(file_bytes(style, LINES))
    target.chmod(mode)
    message, expected_lines = ACTIONS[action]
    (result,) = exec_json(ws, tmp_path / "st", message)
    assert result["ok"], result
    assert target.read_bytes() == file_bytes(style, expected_lines)
    assert target.stat().st_mode & 0o777 == mode
    assert [p.name for p in ws.iterdir()] == ["m.py"]  # no temporary file left behind
    before = file_bytes(style, LINES)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert cli_main(["undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "st")]) == 0
    assert target.read_bytes() == before and target.stat().st_mode & 0o777 == mode


def test_failed_edits_write_nothing_and_name_the_edit(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("one\ntwo\n")
    edits = {
        "version": 1,
        "edits": [
            {"op": "replaceFirst", "find": "one", "text": "ONE"},
            {"op": "replaceFirst", "find": "three", "text": "THREE"},
        ],
    }
    (result,) = exec_json(
        ws,
        tmp_path / "st",
        block("e", "fs.applyEdits", path="a.txt", edits_b64=b64(json.dumps(edits))),
    )
    assert result["error_code"] == "ERR_EDIT_FAILED" and "edit #2 (edits[1], replaceFirst)" in str(
        result["summary"]
    )
    assert (ws / "a.txt").read_text() == "one\ntwo\n"


def test_write_creates_parents_and_write_summaries_say_what_changed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("a\nb\nc\n")
    results = exec_json(
        ws,
        tmp_path / "st",
        block("c", "fs.write", path="docs/new/notes.md", content="hello")
        + block(
            "p", "fs.patch", path="src/app.py", patch_b64=b64("@@ -2,1 +2,2 @@\n-b\n+B\n+B2\n")
        ),
    )
    assert (ws / "docs" / "new" / "notes.md").read_text() == "hello"
    assert results[0]["summary"] == "Created docs/new/notes.md (1 line, 5 bytes)"
    assert (
        results[1]["summary"] == "Patched src/app.py: 1 hunk, +2 -1 lines; lines after 2 moved +1"
    )


def test_a_folder_that_cannot_be_synced_after_the_replace_still_reports_the_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replace is what makes the change: an fsync of the folder failing after it must not
    report "nothing changed" (the model would send the change again), nor hide the risk."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("a\nb\n")
    folder = os.stat(ws / "src")
    real_fsync = os.fsync

    def failing_on_the_folder(fd: int) -> None:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) == (folder.st_dev, folder.st_ino):
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_on_the_folder)
    results = exec_json(
        ws,
        tmp_path / "st",
        block("p", "fs.patch", path="src/app.py", patch_b64=b64("@@ -2 +2 @@\n-b\n+B\n")),
    )
    assert (ws / "src" / "app.py").read_text() == "a\nB\n"
    assert results[0]["ok"] is True
    assert results[0]["summary"] == (
        "Patched src/app.py: 1 hunk, +1 -1 lines (the folder could not be synced to disk "
        "(Input/output error), so the change may not survive a power cut)"
    )
    undone = subprocess.run(
        [
            str(Path(sys.executable).with_name("operator-app")),
            "undo",
            "--workspace",
            str(ws),
            "--state-dir",
            str(tmp_path / "st"),
        ],
        capture_output=True,
        text=True,
    )
    assert undone.returncode == 0, undone.stderr  # the journal holds it like any other change
    assert (ws / "src" / "app.py").read_text() == "a\nb\n"


def test_delete_a_folder_goes_to_the_trash_and_comes_back(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "build" / "sub").mkdir(parents=True)
    for name in ("a.o", "b.o", "sub/c.o"):
        (ws / "build" / name).write_text(name)
    seen = []

    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.executor import Engine
    from operator_app.engine.state.session import Session

    def decide(plan: object, outlook: object = None) -> bool:
        seen.append(plan)
        return True

    run = Engine(Workspace(ws), Session(tmp_path / "st"), decide=decide).run_text(
        block("d", "fs.delete", path="build")
    )
    assert run.results[0].ok and "3 files" in seen[0].diff and "build/sub/c.o" in seen[0].diff  # type: ignore[attr-defined]
    assert not (ws / "build").exists()
    assert (tmp_path / "st" / "trash").exists()
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "st")]) == 0
    assert (ws / "build" / "sub" / "c.o").read_text() == "sub/c.o"


def test_delete_uses_the_system_trash_when_there_is_one(tmp_path: Path) -> None:
    """send2trash reads XDG_DATA_HOME when imported, so this runs in its own process."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "old.txt").write_text("bye\n")
    (tmp_path / "m.txt").write_text(block("d", "fs.delete", path="old.txt"))
    env = {k: v for k, v in os.environ.items() if k != "OPERATOR_TRASH"}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path))
    app = [sys.executable, "-m", "operator_app"]
    done = subprocess.run(
        [
            *app,
            "exec",
            "--workspace",
            str(ws),
            "--state-dir",
            str(tmp_path / "st"),
            "--approve",
            "all",
            str(tmp_path / "m.txt"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert "ok: true" in done.stdout and "Operator's own trash" not in done.stdout, (
        done.stdout + done.stderr
    )
    trashed = list((tmp_path / "xdg" / "Trash" / "files").iterdir()) + list(
        tmp_path.glob(".Trash-*/files/*")
    )
    assert [p.name for p in trashed] == ["old.txt"]
    undo = subprocess.run(
        [*app, "undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "st")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert undo.returncode == 0, undo.stderr
    assert (ws / "old.txt").read_text() == "bye\n"


def real_pairs(limit: int) -> list[tuple[str, str, str]]:
    """(name, old, new): real files with deterministic edits near the top, middle and end, some
    gaining or losing the final newline."""
    pairs = []
    for path in sorted(SITE.glob("*.py")):
        text = (
            path.read_text(encoding="utf-8", errors="strict")
            if path.stat().st_size < 60_000
            else ""
        )
        lines = text.split("\n")
        if len(lines) < 30:
            continue
        new = list(lines)
        new[3] = new[3] + "  # changed"
        del new[len(new) // 2]
        new.insert(len(new) - 5, "inserted = True")
        variant = len(pairs) % 3
        new_text = "\n".join(new)
        if variant == 1:
            new_text = new_text.rstrip("\n")  # loses the final newline
        old_text = text if variant != 2 else text.rstrip("\n")  # old without a final newline
        pairs.append((path.name, old_text, new_text))
        if len(pairs) == limit:
            break
    return pairs


@pytest.mark.slow
def test_real_diffs_apply_byte_for_byte_through_fs_patch_and_never_twice(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    pairs = real_pairs(40)
    assert len(pairs) >= 30
    blocks_first, blocks_again = [], []
    for n, (name, old, new) in enumerate(pairs):
        (ws / name).write_text(old)
        (tmp_path / "new").mkdir(exist_ok=True)
        (tmp_path / "new" / name).write_text(new)
        tool = ["diff", "-u"] if n % 2 else ["git", "diff", "--no-index", "--no-prefix"]
        done = subprocess.run(
            [*tool, str(ws / name), str(tmp_path / "new" / name)], capture_output=True, text=True
        )
        diff = "\n".join(
            line
            for line in done.stdout.split("\n")
            if not line.startswith(("diff --git", "index "))
        )
        blocks_first.append(block(f"p{n}", "fs.patch", path=name, patch_b64=b64(diff)))
        blocks_again.append(block(f"again{n}", "fs.patch", path=name, patch_b64=b64(diff)))
    results = exec_json(ws, tmp_path / "st", "".join(blocks_first))
    assert all(r["ok"] for r in results), [r["summary"] for r in results if not r["ok"]]
    for name, _old, new in pairs:
        assert (ws / name).read_text() == new, name
    before = {name: (ws / name).read_bytes() for name, _, _ in pairs}
    again = exec_json(ws, tmp_path / "st2", "".join(blocks_again))
    assert {r["error_code"] for r in again} == {"ERR_PATCH_MISMATCH"}
    assert {name: (ws / name).read_bytes() for name, _, _ in pairs} == before


# A process that imports the engine and plans the big write once (its diff of 220,000 lines took
# a second), then for each "go" on its stdin forks a committer: the fork says "ready" with its
# pid and commits the plan, and is the process killed.
CHILD = """
import os, sys
sys.path.insert(0, sys.argv[1])
from operator_app.protocol.commands import ACTIONS
from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.changes.write import plan_write
from operator_app.engine.changes.write import commit
from msgspec.structs import replace
from pathlib import Path
new = Path(sys.argv[3]).read_bytes()
cmd = ACTIONS["fs.write"].model_validate({"version": "1", "id": "big", "action": "fs.write",
                                          "path": "big.txt", "content": "x"})
ws = Workspace(sys.argv[2])
plan = replace(plan_write(cmd, ws), new_bytes=new)  # the old file is the same bytes each time
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        print("ready", os.getpid(), flush=True)
        commit(plan, ws, Path(sys.argv[4]))
        os._exit(0)
    sys.stdin.readline()  # reaped only when told: till then its pid cannot be another's
    os.waitpid(pid, 0)
    print("ended", flush=True)
"""


@pytest.mark.slow
def test_killing_a_commit_leaves_the_old_or_the_new_file_never_a_mix(tmp_path: Path) -> None:
    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.changes.write import sweep_temps
    from operator_app.engine.safety.journal import Journal

    ws = tmp_path / "ws"
    ws.mkdir()
    old = b"old line of the big file\n" * 220_000  # ~5.5 MB
    new = b"NEW LINE, something else\n" * 220_000
    (tmp_path / "new.bin").write_bytes(new)
    (ws / "big.txt").write_bytes(old)  # what the write is planned from, once
    outcomes = {"old": 0, "new": 0}
    rng = random.Random(1234)
    forks = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(ROOT), str(ws), str(tmp_path / "new.bin")]
        + [str(tmp_path / "st")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    told, said = forks.stdin, forks.stdout
    assert told is not None and said is not None

    def commit_once() -> int:
        told.write("go\n")
        told.flush()
        ready, pid = said.readline().split()
        assert ready == "ready"
        return int(pid)

    def reaped() -> None:
        told.write("reap\n")
        told.flush()
        assert said.readline().strip() == "ended"

    try:
        # One commit left alone, timed: the kills then fall in the first quarter of its span,
        # where the rename is, so that both outcomes come up (killed 0-30 ms after "ready",
        # every attempt ended before the rename: 30 old, 0 new).
        started = time.monotonic()
        commit_once()
        reaped()
        span = time.monotonic() - started
        assert (ws / "big.txt").read_bytes() == new
        for attempt in range(30):
            (ws / "big.txt").write_bytes(old)
            pid = commit_once()
            time.sleep(rng.uniform(0, span / 4))
            os.kill(pid, signal.SIGKILL)  # (done already, it is a zombie till reaped: no matter)
            reaped()
            data = (ws / "big.txt").read_bytes()
            assert data in (old, new), f"attempt {attempt}: the file is a mix of old and new"
            outcomes["old" if data == old else "new"] += 1
            # A killed commit may leave its temporary file (it never replaces the target); the
            # journal announced it, so the next commit (or undo) sweeps it away.
            sweep_temps(Workspace(ws), Journal(tmp_path / "st"))
            assert sorted(p.name for p in ws.iterdir()) == ["big.txt"], (
                f"attempt {attempt}: litter left"
            )
    finally:
        told.close()
        forks.wait(timeout=60)
    assert sum(outcomes.values()) == 30
