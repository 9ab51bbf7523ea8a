"""Every error code Operator can emit, triggered through the real `exec` entry point on a real
temporary workspace, with the exact code asserted; and a check that this table covers the whole
error catalog, so a new code cannot be added without a test that provokes it."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from operator_app.cli.main import main as cli_main
from operator_app.protocol.errors import ErrorCode
from tests.support.blocks import b64, block

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo-workspace"
E = ErrorCode


def edits(*items: dict[str, object], version: object = 1) -> str:
    return b64(json.dumps({"version": version, "edits": list(items)}))


def raw(*lines: str) -> str:
    return "\n".join(lines) + "\n"


HEAD = ("version: 1", "id: x1")
PATCH_WRONG_LINE = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n"
PATCH_BAD_COUNT = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,3 +1,3 @@\n-x\n+y\n"
REGION = "notes/regions.py"

# code -> (message, extra workspace set-up or None). One message holds one block.
CASES: dict[ErrorCode, tuple[str, Callable[[Path], None] | None]] = {
    E.ERR_MARKER_NOT_ALONE: (
        raw("```OPERATOR_CMD", *HEAD, "action: fs.read", "path: README.md", "END_OPERATOR_CMD```"),
        None,
    ),
    E.ERR_MISSING_END_MARKER: (
        raw("OPERATOR_CMD", *HEAD, "action: fs.read", "path: README.md"),
        None,
    ),
    E.ERR_NESTED_BLOCK: (
        raw("OPERATOR_CMD", *HEAD, "action: fs.read", "OPERATOR_CMD", "id: x2", "END_OPERATOR_CMD"),
        None,
    ),
    E.ERR_NON_KEY_VALUE_LINE: (
        raw(
            "OPERATOR_CMD",
            *HEAD,
            "action: fs.read",
            "path: README.md",
            "- read it",
            "END_OPERATOR_CMD",
        ),
        None,
    ),
    E.ERR_EMPTY_LINE_IN_CMD: (
        raw("OPERATOR_CMD", *HEAD, "", "action: fs.read", "path: README.md", "END_OPERATOR_CMD"),
        None,
    ),
    E.ERR_NON_ASCII_IN_CMD: (block("x1", "fs.search", path="README.md", query="caf\u00e9"), None),
    E.ERR_MISSING_REQUIRED_FIELDS: (
        raw("OPERATOR_CMD", "version: 1", "id: x1", "path: README.md", "END_OPERATOR_CMD"),
        None,
    ),
    E.ERR_ACTION_REQUIRES_PATH: (block("x1", "fs.read"), None),
    E.ERR_ACTION_FORBIDS_PATH: (block("x1", "operator.getInterfaceSpec", path="README.md"), None),
    E.ERR_CONTENT_HAS_NEWLINES: (
        raw(
            "OPERATOR_CMD",
            *HEAD,
            "action: fs.write",
            "path: a.txt",
            "content: one",
            "two",
            "END_OPERATOR_CMD",
        ),
        None,
    ),
    E.ERR_INVALID_BASE64: (block("x1", "fs.write", path="a.txt", content_b64="QQ="), None),
    E.ERR_SEARCH_PATH_IS_DIR: (block("x1", "fs.search", path="src", query="x"), None),
    E.ERR_MISSING_QUERY: (block("x1", "fs.searchTree", path="."), None),
    E.ERR_INVALID_READSLICE_PARAMS: (
        block("x1", "fs.readSlice", path="README.md", lines="0"),
        None,
    ),
    E.ERR_MISSING_EDITS_B64: (block("x1", "fs.applyEdits", path="README.md"), None),
    E.ERR_MISSING_PATCH_B64: (block("x1", "fs.patch", path="README.md"), None),
    E.ERR_INVALID_EDITS_JSON: (
        block("x1", "fs.applyEdits", path="README.md", edits_b64=edits(version=2)),
        None,
    ),
    E.ERR_UNKNOWN_ACTION: (block("x1", "fs.reed", path="README.md"), None),
    E.ERR_RESERVED_ACTION: (block("x1", "operator.error"), None),
    E.ERR_DUPLICATE_ID: (
        block("x1", "fs.read", path="README.md") + block("x1", "fs.read", path="config.json"),
        None,
    ),
    E.ERR_BLOCK_TOO_LARGE: (
        raw(
            "OPERATOR_CMD",
            *HEAD,
            "action: fs.read",
            "path: README.md",
            *[f"k{n}: v" for n in range(200)],
            "END_OPERATOR_CMD",
        ),
        None,
    ),
    E.ERR_UNSUPPORTED_VERSION: (
        raw(
            "OPERATOR_CMD",
            "version: 2",
            "id: x1",
            "action: fs.read",
            "path: README.md",
            "END_OPERATOR_CMD",
        ),
        None,
    ),
    E.ERR_FILE_TOO_LARGE: (
        block("x1", "fs.readSlice", path="big.txt"),
        lambda ws: (ws / "big.txt").write_text("x" * 2_000_001),
    ),
    E.ERR_MISSING_MARKER_ID: (block("x1", "fs.readRegion", path="src/app.py"), None),
    E.ERR_MISSING_CONTENT_B64: (
        block("x1", "fs.replaceRegion", path="src/app.py", marker_id="greeting"),
        None,
    ),
    E.ERR_MISSING_WRITE_CONTENT: (block("x1", "fs.write", path="a.txt"), None),
    E.ERR_UNKNOWN_LANGUAGE: (block("x1", "operator.getCommentStyle", language="klingon"), None),
    E.ERR_COMMENT_STYLE_REQUIRED: (block("x1", "fs.listRegions", path="config.json"), None),
    E.ERR_INVALID_COMMENT_STYLE: (
        block("x1", "fs.listRegions", path="src/app.py", comment_block_start="/*"),
        None,
    ),
    E.ERR_REGION_MARKER_NOT_FOUND: (
        block("x1", "fs.readRegion", path="src/app.py", marker_id="nope"),
        None,
    ),
    E.ERR_REGION_MARKER_NOT_UNIQUE: (
        block("x1", "fs.readRegion", path=REGION, marker_id="a"),
        lambda ws: (ws / REGION).write_text(
            "# OPERATOR_BEGIN a\n# OPERATOR_END a\n# OPERATOR_BEGIN a\n# OPERATOR_END a\n"
        ),
    ),
    E.ERR_REGION_MARKER_ORDER: (
        block("x1", "fs.readRegion", path=REGION, marker_id="a"),
        lambda ws: (ws / REGION).write_text("# OPERATOR_END a\nx\n# OPERATOR_BEGIN a\n"),
    ),
    E.ERR_REGION_MARKER_MISMATCH: (
        block("x1", "fs.readRegion", path=REGION, marker_id="a"),
        lambda ws: (ws / REGION).write_text(
            "# OPERATOR_BEGIN a\n# OPERATOR_BEGIN b\n# OPERATOR_END a\n# OPERATOR_END b\n"
        ),
    ),
    E.ERR_REGION_MARKER_ALREADY_EXISTS: (
        block(
            "x1",
            "fs.insertRegion",
            path="src/app.py",
            marker_id="greeting",
            anchor="import sys",
            content_b64=b64("x\n"),
        ),
        None,
    ),
    E.ERR_MISSING_ANCHOR: (
        block("x1", "fs.insertRegion", path="src/app.py", marker_id="new", content_b64=b64("x\n")),
        None,
    ),
    E.ERR_ANCHOR_NOT_FOUND: (
        block(
            "x1",
            "fs.applyEdits",
            path="src/app.py",
            edits_b64=edits({"op": "insertAfter", "anchor": "def man(", "text": "x"}),
        ),
        None,
    ),
    E.ERR_INVALID_ANCHOR_OCCURRENCE: (
        block(
            "x1",
            "fs.insertRegion",
            path="src/app.py",
            marker_id="new",
            anchor="import sys",
            occurrence="5",
            content_b64=b64("x\n"),
        ),
        None,
    ),
    E.ERR_INVALID_INSERT_POSITION: (
        block(
            "x1",
            "fs.insertRegion",
            path="src/app.py",
            marker_id="new",
            anchor="import sys",
            position="above",
            content_b64=b64("x\n"),
        ),
        None,
    ),
    E.ERR_CONTROL_CHARACTER_IN_CMD: (
        block("x1", "fs.write", path="a.txt", content="red \x1b[31malert"),
        None,
    ),
    E.ERR_DUPLICATE_FIELD: (
        raw(
            "OPERATOR_CMD",
            *HEAD,
            "action: fs.readSlice",
            "path: README.md",
            "start: 1",
            "line: 2",
            "END_OPERATOR_CMD",
        ),
        None,
    ),
    E.ERR_UNKNOWN_FIELD: (block("x1", "fs.readSlice", path="README.md", lenght="5"), None),
    E.ERR_WORKSPACE_FIELD: (
        block("x1", "fs.read", path="README.md", workspace="/home/me/project"),
        None,
    ),
    E.ERR_INVALID_MARKER_ID: (
        block("x1", "fs.readRegion", path="src/app.py", marker_id="two words"),
        None,
    ),
    E.ERR_INVALID_PATH: (block("x1", "fs.read", path="src\\app.py"), None),
    E.ERR_PATH_OUTSIDE_WORKSPACE: (block("x1", "fs.read", path="../outside.txt"), None),
    E.ERR_NOT_FOUND: (block("x1", "fs.read", path="src/ap.py"), None),
    E.ERR_NOT_A_FILE: (block("x1", "fs.read", path="src"), None),
    E.ERR_NOT_A_DIRECTORY: (block("x1", "fs.list", path="README.md"), None),
    E.ERR_SPECIAL_FILE: (block("x1", "fs.read", path="pipe"), lambda ws: os.mkfifo(ws / "pipe")),
    E.ERR_SYMLINK_TARGET: (
        block("x1", "fs.write", path="link.md", content="x"),
        lambda ws: os.symlink("README.md", ws / "link.md"),
    ),
    E.ERR_BINARY_FILE: (
        block("x1", "fs.read", path="blob.bin"),
        lambda ws: (ws / "blob.bin").write_bytes(b"\x00\x01\x02"),
    ),
    E.ERR_NOT_UTF8: (
        block("x1", "fs.read", path="latin1.txt"),
        lambda ws: (ws / "latin1.txt").write_bytes(b"caf\xe9\n"),
    ),
    E.ERR_INVALID_PATCH: (
        block("x1", "fs.patch", path="src/app.py", patch_b64=b64(PATCH_BAD_COUNT)),
        None,
    ),
    E.ERR_PATCH_MISMATCH: (
        block("x1", "fs.patch", path="src/app.py", patch_b64=b64(PATCH_WRONG_LINE)),
        None,
    ),
    E.ERR_LINES_MOVED: (
        block(
            "x1",
            "fs.applyEdits",
            path="src/app.py",
            edits_b64=edits(
                {"op": "replaceRange", "startLine": 1, "endLine": 1, "text": "a\nb"},
                {"op": "replaceRange", "startLine": 3, "endLine": 3, "text": "c"},
            ),
        ),
        None,
    ),
    E.ERR_EDIT_FAILED: (
        block(
            "x1",
            "fs.applyEdits",
            path="src/app.py",
            edits_b64=edits({"op": "replaceAll", "find": "zzz", "text": "y"}),
        ),
        None,
    ),
    E.ERR_DELETE_ROOT: (block("x1", "fs.delete", path="."), None),
    E.ERR_MISSING_PATH_TO: (block("x1", "fs.move", path="README.md"), None),
    E.ERR_UNEXPECTED_PATH_TO: (
        block("x1", "fs.write", path="a.txt", content="x", path_to="b.txt"),
        None,
    ),
    E.ERR_TARGET_EXISTS: (block("x1", "fs.copy", path="README.md", path_to="config.json"), None),
    E.ERR_INVALID_PATH_TO: (block("x1", "fs.rename", path="src/app.py", path_to="app.py"), None),
    E.ERR_INVALID_OVERWRITE: (
        block("x1", "fs.copy", path="README.md", path_to="config.json", overwrite="yes"),
        None,
    ),
    E.ERR_MISSING_PATTERN: (block("x1", "fs.find", path="."), None),
    E.ERR_INVALID_PATTERN: (
        block("x1", "fs.searchTree", path=".", query="def (main", regex="true"),
        None,
    ),
    E.ERR_PATTERN_TOO_COSTLY: (
        block("x1", "fs.searchTree", path=".", query="(?:a{3000}){3000}", regex="true"),
        None,
    ),
    E.ERR_INVALID_FLAG: (
        block("x1", "fs.searchTree", path=".", query="main", ignore_case="yes"),
        None,
    ),
    E.ERR_INVALID_DEPTH: (block("x1", "fs.tree", path=".", depth="0"), None),
    E.ERR_SYMLINK_WOULD_ESCAPE: (
        block("x1", "fs.move", path="notes/readme-link", path_to="readme-link"),
        lambda ws: os.symlink("../README.md", ws / "notes" / "readme-link"),
    ),
    E.ERR_MISSING_COMMAND: (block("x1", "shell.run", cwd="."), None),
    E.ERR_INVALID_TIMEOUT: (block("x1", "shell.run", command="true", timeout_s="0"), None),
    E.ERR_COMMAND_TIMEOUT: (
        block("x1", "shell.run", command="echo x > README.md; sleep 30", timeout_s="1"),
        None,
    ),
    E.ERR_EARLIER_WRITE_FAILED: (
        block("x0", "fs.patch", path="src/app.py", patch_b64=b64(PATCH_WRONG_LINE))
        + block("x1", "fs.write", path="src/app.py", content="x"),
        None,
    ),
}

# Codes that need another way in than one message on a plain workspace; tested below.
SPECIAL = {
    E.ERR_CONFLICT,
    E.ERR_REJECTED,
    E.ERR_SECRET_DECLINED,  # refused unless --approve all: tests/engine/test_secret_reads.py
    E.ERR_NOT_APPROVED,
    E.ERR_PERMISSION_DENIED,
    E.ERR_INTERNAL,
    E.ERR_IO,
    E.ERR_DELETE_INCOMPLETE,
    # a person stopping a command, a machine without a sandbox, a sandbox that fails to build:
    # tests/cli/test_shell.py
    E.ERR_COMMAND_KILLED,
    E.ERR_NOT_SANDBOXED,
    E.ERR_SANDBOX_FAILED,
}


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def run_exec(ws: Path, state: Path, message: str, *extra: str) -> list[dict[str, object]]:
    (state.parent / "message.txt").write_text(message, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(
            [
                "exec",
                "--workspace",
                str(ws),
                "--state-dir",
                str(state),
                "--json",
                *extra,
                str(state.parent / "message.txt"),
            ]
        )
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())["data"]["results"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    return root


def test_the_table_covers_every_code() -> None:
    assert set(CASES) | SPECIAL == set(ErrorCode)


@pytest.mark.parametrize("code", list(CASES), ids=lambda c: c.value)
def test_error_code_is_raised_in_its_situation(code: ErrorCode, ws: Path, tmp_path: Path) -> None:
    message, setup = CASES[code]
    if setup is not None:
        setup(ws)
    before = snapshot(ws)
    results = run_exec(ws, tmp_path / "state", message, "--approve", "all")
    codes = [r["error_code"] for r in results]
    assert code.value in codes, results
    failing = next(r for r in results if r["error_code"] == code.value)
    assert failing["ok"] is False
    summary = str(failing["summary"])
    assert "\n" not in summary
    if failing["status"] == "invalid":
        assert summary.startswith(f"Invalid OPERATOR_CMD ({code.value}): ")
    elif code is not E.ERR_FILE_TOO_LARGE:
        assert summary.startswith(f"{code.value}: ")
    assert snapshot(ws) == before  # bad input loses nothing


def test_rejected_write_changes_nothing(ws: Path, tmp_path: Path) -> None:
    before = snapshot(ws)
    (result,) = run_exec(
        ws,
        tmp_path / "state",
        block("w1", "fs.write", path="README.md", content="x"),
        "--approve",
        "none",
    )
    assert result["error_code"] == "ERR_REJECTED" and result["status"] == "rejected"
    assert snapshot(ws) == before


def test_a_read_of_a_secret_looking_file_is_declined_without_approval(
    ws: Path, tmp_path: Path
) -> None:
    (ws / ".env").write_text("API_TOKEN=s3cr3t\n")
    (result,) = run_exec(
        ws, tmp_path / "state", block("r1", "fs.read", path=".env"), "--approve", "none"
    )
    assert result["error_code"] == "ERR_SECRET_DECLINED" and result["status"] == "rejected"
    assert str(result["summary"]).startswith("ERR_SECRET_DECLINED: ")
    assert "s3cr3t" not in json.dumps(result)


def test_a_write_no_person_is_asked_about_is_not_approved_and_changes_nothing(
    ws: Path, tmp_path: Path
) -> None:
    """The real command with no terminal (stdin is not one) and no --approve."""
    before = snapshot(ws)
    (tmp_path / "m.txt").write_text(block("w1", "fs.write", path="README.md", content="x"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "operator_app",
            "exec",
            "--workspace",
            str(ws),
            "--state-dir",
            str(tmp_path / "state"),
            "--json",
            str(tmp_path / "m.txt"),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    (result,) = json.loads(done.stdout)["data"]["results"]
    assert result["error_code"] == "ERR_NOT_APPROVED" and result["status"] == "rejected"
    assert result["summary"].startswith("ERR_NOT_APPROVED: fs.write on README.md was not applied")
    assert snapshot(ws) == before


def test_conflict_when_the_file_changes_between_preview_and_commit(
    ws: Path, tmp_path: Path
) -> None:
    from operator_app.engine.boundary.workspace import Workspace
    from operator_app.engine.executor import Engine
    from operator_app.engine.state.session import Session

    def meddle(plan: object, outlook: object = None) -> bool:
        (ws / "README.md").write_text("someone else's edit\n")
        return True

    run = Engine(Workspace(ws), Session(tmp_path / "state"), decide=meddle).run_text(
        block("w1", "fs.write", path="README.md", content="mine")
    )
    (result,) = run.results
    assert result.error_code == "ERR_CONFLICT" and "changed since the preview" in result.summary
    assert (ws / "README.md").read_text() == "someone else's edit\n"


def test_internal_failure_of_one_command_keeps_the_others(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operator_app.engine.reads import handlers as reads

    def broken(cmd: object, ctx: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setitem(reads.READ_HANDLERS, "fs.stat", broken)
    results = run_exec(
        ws,
        tmp_path / "state",
        block("a", "fs.stat", path="README.md") + block("b", "fs.read", path="README.md"),
    )
    assert [r["error_code"] for r in results] == ["ERR_INTERNAL", None]
    summary = str(results[0]["summary"])
    assert "(RuntimeError in engine/executor.py, _read)" in summary and "boom" not in summary
    assert "boom" in (tmp_path / "state" / "internal-errors.log").read_text()


def test_a_delete_the_trash_failed_on_after_the_entry_left_says_where_it_is(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system trash fails after the entry went into Operator's private folder, and an editor
    has saved a new file at its place meanwhile: the new file is not overwritten by putting the
    old one back, and the result is no conflict ("nothing was written" would be untrue) but a
    code of its own, whose message says where the entry is."""
    import errno

    monkeypatch.delenv("OPERATOR_TRASH", raising=False)
    original = (ws / "README.md").read_bytes()

    def failing_trash(path: str) -> None:
        (ws / "README.md").write_text("saved by the editor meanwhile\n")
        raise OSError(errno.EIO, "the trash folder is broken")

    monkeypatch.setattr("send2trash.send2trash", failing_trash)
    (result,) = run_exec(
        ws, tmp_path / "state", block("d1", "fs.delete", path="README.md"), "--approve", "all"
    )
    assert (result["ok"], result["error_code"], result["status"]) == (
        False,
        "ERR_DELETE_INCOMPLETE",
        "failed",
    )
    (hidden,) = ws.glob(".operator-trash-*")
    assert str(result["summary"]).startswith(
        "ERR_DELETE_INCOMPLETE: fs.delete of README.md did not finish: "
    )
    # named from the workspace, as every path the model is told (never the machine's own path)
    assert (
        f"it is in the hidden folder {hidden.name} beside its place; move it back by hand"
        in str(result["summary"])
    )
    assert str(ws) not in str(result["summary"])
    assert (ws / "README.md").read_text() == "saved by the editor meanwhile\n"
    assert (hidden / "README.md").read_bytes() == original


def test_permission_denied(ws: Path, tmp_path: Path) -> None:
    """The OS refusing a write. As root, permission bits refuse nothing, but an immutable file
    (chattr +i) cannot be replaced even by root; as another user, a read-only folder does it."""
    target = ws / "README.md"
    before = target.read_bytes()
    if os.geteuid() == 0:
        if (
            shutil.which("chattr") is None
            or subprocess.run(["chattr", "+i", str(target)], capture_output=True).returncode
        ):
            pytest.skip("chattr +i is not available on this filesystem")
    else:
        ws.chmod(0o555)
    try:
        (result,) = run_exec(
            ws,
            tmp_path / "state",
            block("p1", "fs.write", path="README.md", content="x"),
            "--approve",
            "all",
        )
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(target)], check=True)
        else:
            ws.chmod(0o755)
    assert result["error_code"] == "ERR_PERMISSION_DENIED", result
    assert target.read_bytes() == before
    assert not [p for p in ws.iterdir() if p.name.endswith(".tmp")]


def test_an_operating_system_failure_is_err_io_and_leaves_the_file(
    ws: Path, tmp_path: Path
) -> None:
    """A real OS error, no mocks: the file size limit makes the atomic write fail with EFBIG."""
    big = ws / "notes" / "grow.txt"
    big.write_text("abcdefghij\n" * 3000)  # 33,000 bytes
    message = tmp_path / "m.txt"
    message.write_text(
        block(
            "g1",
            "fs.applyEdits",
            path="notes/grow.txt",
            edits_b64=edits({"op": "replaceAll", "find": "abcdefghij", "text": "abcdefghij" * 4}),
        )
    )

    def limit() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "operator_app",
            "exec",
            "--workspace",
            str(ws),
            "--state-dir",
            str(tmp_path / "st"),
            "--approve",
            "all",
            str(message),
        ],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "summary: ERR_IO: " in done.stdout, done.stdout
    assert big.read_text() == "abcdefghij\n" * 3000
    assert not [
        p for p in big.parent.iterdir() if p.name.endswith(".tmp")
    ]  # the temp file is cleaned up
