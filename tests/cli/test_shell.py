"""Commands the model runs (issue 24), through the real `operator-app exec` on real temporary
folders: shell.run and String's bash topics, the sandbox (the tree never written by the command,
the rest read-only, a private /tmp, no network, no secret-looking variables, no standard input),
the time limit, long output, the change-set reaching the tree only after a yes and undone by
`undo`, and the path where no sandbox can be had (OPERATOR_SANDBOX=none)."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from operator_app.cli.main import main as cli_main
from operator_app.engine import find_sandbox
from tests.support.blocks import b64, block

SIGIL = "\U0001d49e"


def sandbox_or_skip() -> None:
    """Where the machine truly cannot build the sandbox the sandboxed tests are skipped, with the
    reason; never on CI's Linux, where it must work."""
    sandbox = find_sandbox()
    if sandbox.usable:
        return
    if os.environ.get("CI") == "true" and sys.platform.startswith("linux"):
        pytest.fail(f"no sandbox on CI's Linux: {sandbox.why}")
    pytest.skip(f"no sandbox on this machine: {sandbox.why}")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "notes.txt").write_text("one\ntwo\n")
    (root / "old.txt").write_text("going away\n")
    (root / ".gitignore").write_text("build/\n")
    return root


def exec_json(ws: Path, state: Path, message: str, *extra: str) -> dict[str, Any]:
    path = state.parent / f"message-{len(list(state.parent.glob('message-*')))}.txt"
    path.write_text(message, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(
            ["exec", "--workspace", str(ws), "--state-dir", str(state), "--json", *extra, str(path)]
        )
    assert code == 0, err.getvalue()
    data: dict[str, Any] = json.loads(out.getvalue())["data"]
    return data


def run(ws: Path, state: Path, script: str, *extra: str, **fields: str) -> dict[str, Any]:
    message = block(
        f"c{len(list(state.parent.glob('message-*')))}",
        "shell.run",
        command_b64=b64(script),
        **fields,
    )
    (result,) = exec_json(ws, state, message, *extra)["results"]
    return dict(result)


def output_of(result: dict[str, Any]) -> str:
    details = str(result["details"])
    return "\n".join(line for line in details.split("\n") if not line.startswith("# "))


def processes_running(command_line: str) -> list[int]:
    """The processes (of any PID namespace) whose command line is `command_line`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip()
            except OSError:
                continue
            if line.decode(errors="replace") == command_line:
                found.append(int(entry.name))
    return found


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# --- shell.run -----------------------------------------------------------------------------


def test_output_in_the_order_written_and_the_exit_status(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(
        ws, tmp_path / "st", "echo one; echo two >&2; echo three\nexit 3", "--approve", "all"
    )
    assert result["ok"] is True and result["error_code"] is None
    assert result["summary"].startswith("exit 3 in ") and "no file changes" in result["summary"]
    details = str(result["details"])
    assert details.startswith("# exit: 3 | cwd: . | ")
    assert output_of(result).strip() == "one\ntwo\nthree"


def test_a_non_zero_exit_of_a_failing_test_is_a_result(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "python3 -c 'import sys; sys.exit(1)'", "--approve", "all")
    assert result["ok"] is True and result["summary"].startswith("exit 1 ")


def test_edits_new_files_and_deletions_reach_the_tree_only_after_yes_and_undo_takes_them_back(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    script = (
        "echo three >> notes.txt\nrm old.txt\nmkdir -p docs build\necho new > docs/new.md\n"
        "echo out > build/artefact\nprintf '\\x00\\x01' > blob.bin\nchmod +x src/app.py\n"
    )
    before = tree(ws)
    # Declined: the command ran (its output is real), the tree is untouched.
    declined = exec_json(
        ws, tmp_path / "st", block("c1", "shell.run", command_b64=b64(script)), "--approve", "none"
    )
    (refused,) = declined["results"]
    assert refused["error_code"] == "ERR_REJECTED" and refused["status"] == "rejected"
    assert tree(ws) == before
    # Approved (--approve all answers both questions: run it, apply its changes).
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    assert result["ok"] is True
    assert "changes applied: 5 files: 2 changed, 2 created, 1 deleted" in result["summary"]
    details = str(result["details"])
    assert "not applied (ignored paths): build/ (1)" in details
    # The model is told which entries, not only how many (the person sees the diff).
    assert (
        "# entries: blob.bin (created), docs/ (folder made), docs/new.md (created), notes.txt "
        "(changed), old.txt (deleted), src/app.py (changed)\n" in details
    )
    assert (ws / "notes.txt").read_text() == "one\ntwo\nthree\n"
    assert not (ws / "old.txt").exists() and (ws / "docs" / "new.md").read_text() == "new\n"
    assert (ws / "blob.bin").read_bytes() == b"\x00\x01"
    assert os.access(ws / "src" / "app.py", os.X_OK)
    assert not (ws / "build").exists()  # ignored paths are never applied
    # The journal holds the run, its folder, exit, output file and change-set.
    journal = tmp_path / "st" / "journal" / "entries.jsonl"
    runs = [json.loads(line) for line in journal.read_text().splitlines() if '"run"' in line]
    assert [r["changes"] for r in runs] == ["applied"]
    assert runs[-1]["script"] == script and runs[-1]["cwd"] == "." and runs[-1]["exit"] == 0
    assert Path(runs[-1]["output"]).is_file() and isinstance(runs[-1]["changeset"], int)
    # Undone as one change.
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(["undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "st")])
    assert code == 0, err.getvalue()
    assert "Took back the changes of c1 (shell.run)" in out.getvalue(), out.getvalue()
    assert tree(ws) == before
    assert not os.access(ws / "src" / "app.py", os.X_OK)


def test_a_change_set_of_many_entries_names_the_first_forty(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(
        ws, tmp_path / "st", "for i in $(seq 10 54); do echo $i > n$i.txt; done", "--approve", "all"
    )
    named = next(
        line for line in str(result["details"]).split("\n") if line.startswith("# entries: ")
    )
    assert named.startswith("# entries: n10.txt (created), n11.txt (created), ")
    assert named.endswith("n49.txt (created) and 5 more") and named.count("(created)") == 40


def test_the_change_set_is_shown_per_file_with_binary_files_by_size_and_hash(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    script = "echo three >> notes.txt\nhead -c 300 /dev/zero > zeros.bin\n"
    result = run(ws, tmp_path / "st", script, "--approve", "none")
    assert result["error_code"] == "ERR_REJECTED"  # none: nothing runs, not even the command
    from operator_app.engine import Engine, Session, Workspace

    plans: list[Any] = []

    def decide(plan: Any, outlook: Any) -> bool:
        plans.append(plan)
        return plan.kind == "run"  # run it, decline its changes

    message = block("c2", "shell.run", command_b64=b64(script))
    engine = Engine(Workspace(ws), Session(tmp_path / "st2"), decide=decide)
    (answer,) = engine.run_text(message).results
    assert [plan.kind for plan in plans] == ["run", "changeset"]
    assert plans[0].run.script == script and plans[0].run.sandboxed and not plans[0].run.network
    diff = plans[1].diff
    assert "--- a/notes.txt\n+++ b/notes.txt\n" in diff and "+three" in diff
    assert "Binary file zeros.bin created (300 bytes, sha256 " in diff
    assert answer.ok and "changes not applied (the person declined them)" in answer.summary
    assert (ws / "notes.txt").read_text() == "one\ntwo\n" and not (ws / "zeros.bin").exists()


def test_a_file_changed_behind_the_commands_back_is_a_conflict(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    script = f"echo mine >> notes.txt\necho new > added.txt\ntouch '{ws}/../go'\nsleep 0.3\n"

    def meddle() -> None:
        # The person saves notes.txt while the command runs.
        (ws / "notes.txt").write_text("saved meanwhile\n")

    from operator_app.engine import CommandOutput, Engine, Session, Workspace, approve_all

    saved: list[bool] = []

    def listen(event: Any) -> None:
        if isinstance(event, CommandOutput) and not saved:
            saved.append(True)
            meddle()

    engine = Engine(Workspace(ws), Session(tmp_path / "st"), decide=approve_all, listener=listen)
    (result,) = engine.run_text(block("c1", "shell.run", command_b64=b64(script))).results
    assert saved and result.ok
    assert "not applied (ERR_CONFLICT: notes.txt changed in the tree while the command ran" in (
        result.details or ""
    )
    assert (ws / "notes.txt").read_text() == "saved meanwhile\n"
    assert not (ws / "added.txt").exists()  # nothing half-applied


def test_cwd_and_a_cwd_outside_refused(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "pwd -P", "--approve", "all", cwd="src")
    assert output_of(result).strip() == str(ws / "src")
    assert str(result["details"]).startswith("# exit: 0 | cwd: src | ")
    outside = run(ws, tmp_path / "st", "pwd", "--approve", "all", cwd="..")
    assert outside["error_code"] == "ERR_PATH_OUTSIDE_WORKSPACE"
    # The workspace's own absolute path, as the model may have seen it in a command's output: the
    # answer names the relative path to send (it read ". is absolute ... did you mean .?").
    for absolute, relative in ((ws, "."), (ws / "src", "src")):
        refused = run(ws, tmp_path / "st", "pwd", "--approve", "all", cwd=str(absolute))
        assert refused["error_code"] == "ERR_PATH_OUTSIDE_WORKSPACE"
        assert refused["summary"].endswith(
            "an absolute path is never taken, even one inside the workspace; paths are relative "
            f"to the workspace root: send {relative}"
        )


def test_where_a_command_ended_means_one_thing_and_its_notes_are_true(
    ws: Path, tmp_path: Path
) -> None:
    """cwd is where the command ended; where that is not a folder of the workspace, the result
    says it started there and why the end is not known, with no word of String's sessions."""
    sandbox_or_skip()
    moved = run(ws, tmp_path / "st", "cd src && pwd", "--approve", "all")
    assert "(cwd src)" in moved["summary"] and "started" not in moved["summary"]
    left = run(ws, tmp_path / "st", "cd / && pwd", "--approve", "all", cwd="src")
    assert "(started in src; it ended outside the workspace (/))" in left["summary"]
    assert "# cwd: it started in src; it ended outside the workspace (/)" in left["details"]
    replaced = run(ws, tmp_path / "st", "cd src; exec true", "--approve", "all")
    assert "where it ended is not known: the script replaced its shell (exec)" in str(
        replaced["details"]
    )
    for result in (left, replaced):
        assert "session" not in f"{result['summary']}{result['details']}"


def test_a_script_written_under_command_is_pointed_to_command_b64(ws: Path, tmp_path: Path) -> None:
    message = (
        "OPERATOR_CMD\nversion: 1\nid: m1\naction: shell.run\ncommand: cd src\n"
        "python -m pytest -q\nEND_OPERATOR_CMD\n"
    )
    (result,) = exec_json(ws, tmp_path / "st", message, "--approve", "all")["results"]
    assert result["error_code"] == "ERR_NON_KEY_VALUE_LINE"
    assert result["summary"].endswith(
        "line 6 is not a \"key: value\" line: 'python -m pytest -q'; command holds one line of "
        "bash; send a script of several lines as command_b64 (the whole script base64-encoded, "
        "on one line), or join its lines with && on the command line"
    )


def test_a_script_with_crlf_line_ends_runs_as_written(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "cd src\r\nls\r\n", "--approve", "all")
    assert output_of(result).strip() == "app.py" and "(cwd src)" in result["summary"]


def test_the_sandbox_never_writes_outside_and_keeps_tmp_private(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    outside = tmp_path / "outside.txt"
    home = Path.home() / f"operator-test-{os.getpid()}.txt"
    script = (
        f"echo x > '{outside}'; echo tmp=$?\necho y > '{home}'; echo home=$?\n"
        "echo z > /etc/operator-test; echo etc=$?\nls -A /tmp | wc -l\n"
    )
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    text = output_of(result)
    assert "home=1" in text and "etc=1" in text  # read-only
    assert not outside.exists() and not home.exists()  # /tmp is the sandbox's own
    assert not Path("/etc/operator-test").exists()


def test_credential_stores_and_operators_settings_are_not_there_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script the person approved to run the tests cannot hand their keys to the chat: with the
    home folder as the workspace, its ssh keys, .netrc and Operator's settings (the bridge's
    pairing token) show empty, and what the script writes there is lost, not a change."""
    sandbox_or_skip()
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-BYTES\n")
    (home / ".netrc").write_text("machine x login me password NETRC-PASSWORD\n")
    config = home / ".config" / "operator-app"
    config.mkdir(parents=True)
    (config / "settings.json").write_text('{"bridge_token": "PAIRING-TOKEN"}\n')
    (home / "README.md").write_text("visible\n")
    vault = home / "vault"  # a store moved by its variable (gpg's here)
    vault.mkdir()
    (vault / "private.key").write_text("GPG-SECRET\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(config))
    monkeypatch.setenv("GNUPGHOME", str(vault))
    script = (
        "cat README.md; ls -A .ssh | wc -l; cat .ssh/id_ed25519 .netrc "
        ".config/operator-app/settings.json vault/private.key; echo new > .ssh/planted\n"
    )
    result = run(home, tmp_path / "st", script, "--approve", "all")
    text = output_of(result)
    assert "visible" in text and "\n0\n" in f"\n{text}"  # the workspace is there, .ssh empty
    for secret in ("PRIVATE-KEY-BYTES", "NETRC-PASSWORD", "PAIRING-TOKEN", "GPG-SECRET"):
        assert secret not in text
    assert not (home / ".ssh" / "planted").exists()
    assert "changes: none" in str(result["details"])


def test_the_sandbox_hides_folders_and_files_but_never_the_workspace() -> None:
    from operator_app.engine.shell.sandbox import Sandbox

    argv = Sandbox(bwrap="bwrap").argv(
        workspace=Path("/srv/ws"),
        upper=Path("/st/upper"),
        work=Path("/st/work"),
        cwd=Path("/srv/ws"),
        network=False,
        command=["true"],
        hidden=[Path("/etc"), Path("/etc/hostname"), Path("/srv"), Path("/tmp")],
    )
    joined = " ".join(argv)
    assert "--tmpfs /etc " in joined and re.search(r"--ro-bind-data \d+ /etc/hostname", joined)
    assert "--tmpfs /srv " not in joined  # it holds the workspace
    assert joined.count("--tmpfs /tmp ") == 1  # the sandbox's /tmp is its own already
    assert joined.index("--tmpfs /etc ") > joined.index("--overlay ")


def test_no_network_unless_allowed(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    port = server.getsockname()[1]
    accepted: list[bool] = []

    def serve() -> None:
        for _ in range(100):
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            accepted.append(True)
            connection.close()
            return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    script = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused"
    try:
        result = run(ws, tmp_path / "st", script, "--approve", "all")
        assert "refused" in output_of(result) and "connected" not in output_of(result)
        assert not accepted
        allowed = run(ws, tmp_path / "st2", script, "--approve", "all", "--network")
        assert "connected" in output_of(allowed)
    finally:
        thread.join(15)
        server.close()
    assert accepted == [True]


def test_secret_looking_variables_are_left_out(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox_or_skip()
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("MY_API_KEY", "k")
    monkeypatch.setenv("DATABASE_URL", "postgres://me:hunter2@db/x")
    monkeypatch.setenv("OPERATOR_TEST_PLAIN", "visible")
    result = run(ws, tmp_path / "st", "env", "--approve", "all")
    text = output_of(result)
    assert "OPERATOR_TEST_PLAIN=visible" in text
    for hidden in ("GITHUB_TOKEN", "MY_API_KEY", "hunter2", "ghp_secret"):
        assert hidden not in text


def test_the_allow_list_in_the_settings_keeps_a_variable(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox_or_skip()
    from operator_app import settings

    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(tmp_path / "config"))
    settings.save("shell_env_allow", ["MY_PUBLIC_KEY"])
    monkeypatch.setenv("MY_PUBLIC_KEY", "shown")
    assert "MY_PUBLIC_KEY=shown" in output_of(run(ws, tmp_path / "st", "env", "--approve", "all"))


def test_standard_input_is_at_its_end_at_once(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(
        ws, tmp_path / "st", "read -t 30 line; echo read=$?; cat | wc -c", "--approve", "all"
    )
    text = output_of(result)
    assert "read=1" in text and text.strip().endswith("0")
    assert float(str(result["details"]).split(" | ")[2].split(" s")[0]) < 20


def test_a_timeout_kills_the_whole_group_even_a_child_ignoring_sigterm(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    marker = "31.7291"  # an argument no other process has: looked for afterwards
    script = f"(trap '' TERM; exec sleep {marker}) &\necho started\nsleep {marker}\n"
    result = run(ws, tmp_path / "st", script, "--approve", "all", timeout_s="1")
    assert result["ok"] is False and result["error_code"] == "ERR_COMMAND_TIMEOUT"
    assert result["summary"].startswith("ERR_COMMAND_TIMEOUT: the command ran past its 1 s limit")
    assert "started" in output_of(result)
    assert not processes_running(f"sleep {marker}")


def test_three_hundred_thousand_lines_are_capped(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "seq 300000", "--approve", "all")
    details = str(result["details"])
    assert (
        "# output: 300000 lines (1,988,895 bytes), 299800 lines (1,987,903 bytes) cut from the "
        "middle; all of it: " in details
    )
    text = output_of(result).split("\n")
    assert text[:2] == ["1", "2"] and "... 299800 lines cut (1,987,903 bytes; " in "\n".join(text)
    assert text[99:101] == ["100", text[100]] and text[101] == "299901"
    assert text[-2:] == ["300000", ""] or text[-1] == "300000"
    saved = Path(details.split("all of it: ")[1].split("\n")[0])
    assert saved.read_text().count("\n") == 300000
    assert len(details) < 60_000
    # The model is given that path: a later command reads it, though the sandbox hides the
    # state folder around it.
    again = run(
        ws, tmp_path / "st", f"wc -l < '{saved}'; ls '{saved.parent.parent}'", "--approve", "all"
    )
    assert output_of(again).split("\n")[0] == "300000"
    assert "runs" not in output_of(again)  # the rest of the state folder stays hidden


def test_output_reads_as_the_terminal_showed_it(ws: Path, tmp_path: Path) -> None:
    """Colours dropped, a progress bar as last drawn, other control characters escaped, bytes
    that are not UTF-8 replaced; the saved file keeps the bytes as they came."""
    sandbox_or_skip()
    script = (
        "printf '\\033[31mFAILED\\033[0m test_x\\n'\n"
        "printf ' 10%%\\r 50%%\\r100%%\\n'\n"
        "printf 'bell\\a and nul\\000 end\\n'\n"
        "printf 'latin1 \\351t\\351\\n'\n"
        "printf 'windows\\r\\n'\n"
    )
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    assert output_of(result) == (
        "FAILED test_x\n100%\nbell\\x07 and nul\\x00 end\nlatin1 \ufffdt\ufffd\nwindows\n"
    )


def test_one_line_of_megabytes_is_cut_in_bytes_and_keeps_its_end(ws: Path, tmp_path: Path) -> None:
    """A minified file or a progress bar printed without line breaks: the result says how many
    bytes were cut (it said "0 lines cut") and keeps the line's end, where an error would be."""
    sandbox_or_skip()
    script = "head -c 5000000 /dev/zero | tr '\\0' a; echo THE-END"
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    details = str(result["details"])
    assert "# output: 1 line (5,000,008 bytes), 0 lines (4,960,008 bytes) cut" in details
    text = output_of(result)
    assert "... 4,960,008 bytes of one long line cut (no line break among them; " in text
    assert text.rstrip("\n").endswith("a" * 100 + "THE-END")
    assert text.startswith("a" * 20_000 + "\n... ")


def test_short_output_is_whole_however_it_arrives(ws: Path, tmp_path: Path) -> None:
    """150 lines arriving a few at a time were cut to their first 100 with no word; 30,000 bytes
    in one line were shown with a "0 bytes cut" marker inside the line."""
    sandbox_or_skip()
    lines = run(
        ws,
        tmp_path / "st",
        "for i in $(seq 150); do echo line$i; sleep 0.002; done",
        "--approve",
        "all",
    )
    assert output_of(lines) == "".join(f"line{i}\n" for i in range(1, 151))
    assert "# output:" not in str(lines["details"])
    wide = run(
        ws, tmp_path / "st", "head -c 30000 /dev/zero | tr '\\0' a; echo", "--approve", "all"
    )
    assert output_of(wide) == "a" * 30000 + "\n"


def test_long_lines_are_cut_by_bytes_with_the_lines_counted(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    script = (
        "for i in $(seq 1000); do printf '%05d' $i; head -c 4995 /dev/zero | tr '\\0' x; echo; done"
    )
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    text = output_of(result).split("\n")
    # Lines of 5,001 bytes; 20,000 of each end: three lines and the start of the fourth, the end
    # of the fourth from last and the last three. What is between is said exactly.
    assert [line[:5] for line in text[:4]] == ["00001", "00002", "00003", "00004"]
    assert len(text[3]) == 4997 and len(text[5]) == 4996
    assert text[4].startswith("... 993 lines cut (4,961,000 bytes; ")
    assert [line[-5:] for line in text[5:9]] == ["xxxxx"] * 4 and text[8].startswith("01000")


def test_output_past_the_saved_bound_is_counted_not_saved(ws: Path, tmp_path: Path) -> None:
    """A command that prints for its whole time limit cannot fill the disk through the state
    folder: the saved file stops at 64 MB, the result says so and still counts every line."""
    sandbox_or_skip()
    result = run(ws, tmp_path / "st", "yes | head -c 70000000", "--approve", "all")
    details = str(result["details"])
    assert (
        "# output: 35000000 lines (70,000,000 bytes), 34999800 lines (69,999,600 bytes) cut "
        "from the middle; its first 64 MB (of 66 MB): " in details
    )
    saved = Path(details.split("(of 66 MB): ")[1].split("\n")[0])
    assert saved.stat().st_size == 64 * 1024 * 1024
    assert output_of(result).rstrip("\n").endswith("y\ny")


def test_approve_none_runs_nothing(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    before = tree(ws)
    marker = tmp_path / "ran"
    result = run(ws, tmp_path / "st", f"touch '{marker}'; echo x > notes.txt", "--approve", "none")
    assert result["error_code"] == "ERR_REJECTED"
    assert tree(ws) == before and not marker.exists()
    assert not (tmp_path / "st" / "shell" / "output").exists() or not list(
        (tmp_path / "st" / "shell" / "output").iterdir()
    )


def test_an_always_allowed_command_runs_without_asking_until_revoked(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox_or_skip()
    from operator_app import settings

    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(tmp_path / "config"))
    settings.allow_command(ws.resolve(), "echo allowed")
    assert settings.allowed_commands(ws.resolve()) == ["echo allowed"]
    # No --approve and no terminal: no one can be asked, but the rule is the person's yes given
    # ahead, so the allowed command runs; another is not approved (not "declined").
    result = run(ws, tmp_path / "st", "echo allowed")
    assert result["ok"] and output_of(result).strip() == "allowed"
    other = run(ws, tmp_path / "st", "echo other")
    assert other["error_code"] == "ERR_NOT_APPROVED"
    settings.revoke_command(ws.resolve(), "echo allowed")
    assert settings.allowed_commands(ws.resolve()) == []
    assert run(ws, tmp_path / "st", "echo allowed")["error_code"] == "ERR_NOT_APPROVED"


def test_without_a_terminal_an_always_allowed_commands_changes_are_not_applied(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule spares the person the question, not the review of what the command changed: with
    no one to review them, the changes are left out, and the model is told why."""
    sandbox_or_skip()
    from operator_app import settings

    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(tmp_path / "config"))
    settings.allow_command(ws.resolve(), "echo more >> notes.txt")
    result = run(ws, tmp_path / "st", "echo more >> notes.txt")
    assert result["ok"] and result["error_code"] is None
    assert (
        "# changes: not applied (no person was asked to review them: Operator ran without a "
        "terminal and without --approve; they land when the person runs the command from a "
        "terminal, or with --approve all): 1 file: 1 changed"
    ) in str(result["details"])
    assert (ws / "notes.txt").read_text() == "one\ntwo\n"


def exec_quietly(ws: Path, state: Path, message: str, *extra: str) -> tuple[dict[str, Any], str]:
    """exec --json with no terminal: (its data, what it said on stderr)."""
    path = state.parent / f"message-{len(list(state.parent.glob('message-*')))}.txt"
    path.write_text(message, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(
            ["exec", "--workspace", str(ws), "--state-dir", str(state), "--json", *extra, str(path)]
        )
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())["data"], err.getvalue()


def test_without_a_terminal_a_command_does_not_run_and_holds_back_the_rest(
    ws: Path, tmp_path: Path
) -> None:
    """No terminal and no --approve: nobody can be asked, so the command is not run and the model
    is told that no one was asked (ERR_NOT_APPROVED, as for a write), not that the person declined;
    the read after it waits with it, and the same message run with approval runs both, in order."""
    sandbox_or_skip()
    state = tmp_path / "st"
    message = block("c1", "shell.run", command_b64=b64("echo x > notes.txt")) + block(
        "r1", "fs.read", path="notes.txt"
    )
    data, err = exec_quietly(ws, state, message)
    command, read = data["results"]
    assert (command["error_code"], command["status"]) == ("ERR_NOT_APPROVED", "rejected")
    assert command["summary"].startswith(
        "ERR_NOT_APPROVED: this command (echo x > notes.txt) did not run: no person was asked"
    )
    assert (read["error_code"], read["status"]) == ("ERR_NOT_APPROVED", "failed")
    assert read["summary"].startswith(
        "ERR_NOT_APPROVED: not run: it comes after c1 (shell.run on .), which waits for a "
        "person's approval"
    )
    assert (ws / "notes.txt").read_text() == "one\ntwo\n"
    assert not (state / "shell" / "output").exists() or not list(
        (state / "shell" / "output").iterdir()
    )
    assert "no one was asked about c1 (shell.run in .): stdin is not a terminal" in err
    assert "It did not run, and the command after it did not run" in err
    again, _ = exec_quietly(ws, state, message, "--approve", "all")
    assert [r["ok"] for r in again["results"]] == [True, True]
    assert (ws / "notes.txt").read_text() == "x\n"
    assert "x" in str(again["results"][1]["details"])


def test_without_a_terminal_a_bash_topics_script_is_not_approved_in_strings_terms(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    data, err = exec_quietly(
        ws, tmp_path / "st", bash("dev", "echo more >> notes.txt") + bash("dev", "//info")
    )
    script, info = data["results"]
    assert script["error_code"] == "NOT_APPROVED"
    assert script["summary"] == (
        "\u2717 NOT_APPROVED: echo more >> notes.txt did not run: no person was asked; nothing "
        "ran and nothing changed"
    )
    assert (info["error_code"], info["status"]) == ("NOT_APPROVED", "failed")
    assert "not run: it comes after [" in info["summary"]
    assert "] echo more >> notes.txt, which waits for a person's approval" in info["summary"]
    assert (ws / "notes.txt").read_text() == "one\ntwo\n"
    assert "(echo more >> notes.txt): stdin is not a terminal" in err and "It did not run" in err
    # Nothing ran, so the same message with approval is no repeat of one: both run.
    again, _ = exec_quietly(
        ws,
        tmp_path / "st",
        bash("dev", "echo more >> notes.txt") + bash("dev", "//info"),
        "--approve",
        "all",
    )
    assert [r["ok"] for r in again["results"]] == [True, True]
    assert (ws / "notes.txt").read_text() == "one\ntwo\nmore\n"


# --- no sandbox ------------------------------------------------------------------------------


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPERATOR_SANDBOX", "none")
    yield


def test_without_a_sandbox_exec_refuses_unless_a_flag_allows_it(
    ws: Path, tmp_path: Path, no_sandbox: None
) -> None:
    before = tree(ws)
    refused = run(ws, tmp_path / "st", "echo x > notes.txt", "--approve", "all")
    assert refused["error_code"] == "ERR_NOT_SANDBOXED"
    assert "sandboxing is turned off (OPERATOR_SANDBOX=none)" in refused["summary"]
    assert tree(ws) == before
    ran = run(ws, tmp_path / "st", "echo x > notes.txt", "--approve", "all", "--allow-unsandboxed")
    assert ran["ok"] and "changes made directly (not sandboxed)" in ran["summary"]
    assert (ws / "notes.txt").read_text() == "x\n"


def test_without_a_sandbox_the_question_says_so_and_a_blanket_yes_is_not_enough(
    ws: Path, tmp_path: Path, no_sandbox: None
) -> None:
    from operator_app.engine import Engine, Session, ShellPolicy, Workspace

    asked: list[Any] = []

    def decide(plan: Any, outlook: Any) -> bool:
        asked.append(plan)
        return True

    engine = Engine(
        Workspace(ws), Session(tmp_path / "st"), decide=decide, shell=ShellPolicy(unsandboxed="ask")
    )
    (result,) = engine.run_text(block("c1", "shell.run", command="echo hi")).results
    (plan,) = asked
    # Said by the dialog from the field, in red (not a note to match by its words).
    assert plan.run.sandboxed is False and plan.run.unsandboxed_why and not plan.notes
    assert result.ok
    # The engine's own default refuses: no front end said the person may allow it.
    bare = Engine(Workspace(ws), Session(tmp_path / "st2"), decide=decide)
    (refused,) = bare.run_text(block("c2", "shell.run", command="echo hi")).results
    assert refused.error_code == "ERR_NOT_SANDBOXED"


def test_a_command_stopped_by_the_person_is_killed(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    from operator_app.engine import CommandOutput, Engine, Session, Workspace, approve_all

    def listen(event: Any) -> None:
        if isinstance(event, CommandOutput) and "waiting" in event.text:
            event.stop()

    engine = Engine(Workspace(ws), Session(tmp_path / "st"), decide=approve_all, listener=listen)
    script = "echo waiting; echo x > notes.txt; sleep 60"
    (result,) = engine.run_text(block("c1", "shell.run", command=script)).results
    assert result.error_code == "ERR_COMMAND_KILLED" and "stopped by the person" in result.summary
    assert "changes: discarded" in (result.details or "")
    assert (ws / "notes.txt").read_text() == "one\ntwo\n"


def test_a_sandbox_that_cannot_be_set_up_runs_nothing(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overlay's upper folder is taken away after Operator made it: bwrap itself fails to
    mount the overlay, and the result says the command did not run."""
    sandbox_or_skip()
    import shutil

    from operator_app.engine.shell import runs

    made = runs.RunFolder.__init__

    def broken(self: Any, state_dir: Path, command_id: str) -> None:
        made(self, state_dir, command_id)
        shutil.rmtree(self.upper)

    monkeypatch.setattr(runs.RunFolder, "__init__", broken)
    result = run(ws, tmp_path / "st", "echo x > notes.txt", "--approve", "all")
    assert result["error_code"] == "ERR_SANDBOX_FAILED"
    assert (ws / "notes.txt").read_text() == "one\ntwo\n"


# --- String's bash topics ---------------------------------------------------------------------


def bash(name: str, payload: str) -> str:
    return f"<{SIGIL}=string:bash:{name}>\n{payload}\n</{SIGIL}>\n"


def test_a_bash_topic_answers_in_seeds_form_and_keeps_its_folder_across_runs(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    state = tmp_path / "st"
    first = exec_json(
        ws, state, bash("dev", "cd src\nls") + bash("dev", "pwd -P"), "--approve", "all"
    )
    text = first["copy_text"]
    assert f'<{SIGIL}=string:bash:dev time="' in text
    assert "exit: 0 | cwd: ~/src\nchanges: none\n---\napp.py\n" in text
    assert f"---\n{ws / 'src'}\n" in text
    # A new run (a restart): the session starts where it was left.
    again = exec_json(ws, state, bash("dev", "pwd -P; false"), "--approve", "all")
    assert f"exit: 1 | cwd: ~/src\nchanges: none\n---\n{ws / 'src'}\n" in again["copy_text"]
    # Another topic is another session, at the root; a script ending outside goes back to it.
    other = exec_json(ws, state, bash("other", "cd /tmp") + bash("dev", "cd /"), "--approve", "all")
    assert "exit: 0 | cwd: ~/\n" in other["copy_text"]
    assert "it ended outside the workspace (/); the session is back at ~/" in other["copy_text"]
    info = exec_json(ws, state, bash("dev", "//info"), "--approve", "all")["copy_text"]
    assert "Session info\n---\ntopic: bash:dev\ncwd: ~/\nlast exit: 0 (" in info
    assert "running: no" in info and "persists: the folder only" in info


def test_close_and_help_of_a_bash_topic(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    state = tmp_path / "st"
    exec_json(ws, state, bash("dev", "cd src"), "--approve", "all")
    closed = exec_json(
        ws, state, bash("dev", "//close") + bash("dev", "pwd -P"), "--approve", "all"
    )
    assert "Closed: bash:dev" in closed["copy_text"]
    assert f"exit: 0 | cwd: ~/\nchanges: none\n---\n{ws}\n" in closed["copy_text"]
    helped = exec_json(ws, state, bash("dev", "//help") + bash("dev", "//nope"), "--approve", "all")
    assert "Bash Session\n---\nBash topics" in helped["copy_text"]
    assert [r["error_code"] for r in helped["results"]] == [None, "COMMAND_UNSUPPORTED"]


def test_a_script_sent_to_string_bash_is_told_to_name_its_topic(ws: Path, tmp_path: Path) -> None:
    """string:bash is the file topic "bash" (a bare name is file:NAME): its script is no command,
    and the answer says how to tag it; a real file topic's slip is answered as ever."""
    message = f"<{SIGIL}=string:bash>ls -la</{SIGIL}>\n<{SIGIL}=string:notes>ls</{SIGIL}>\n"
    bare, notes = exec_json(ws, tmp_path / "st", message, "--approve", "all")["results"]
    assert bare["error_code"] == notes["error_code"] == "COMMAND_UNSUPPORTED"
    told = f"{bare['summary']}\n{bare['details'] or ''}"
    assert "to run a script, tag it string:bash:NAME (string:bash is the file topic file:bash)" in (
        told
    )
    assert "string:bash:NAME" not in f"{notes['summary']}\n{notes['details'] or ''}"


def test_a_bash_topics_changes_declined_say_changes_not_applied(ws: Path, tmp_path: Path) -> None:
    sandbox_or_skip()
    from operator_app.engine import Engine, Session, Workspace

    engine = Engine(
        Workspace(ws), Session(tmp_path / "st"), decide=lambda plan, outlook: plan.kind == "run"
    )
    run_ = engine.run_text(bash("dev", "echo more >> notes.txt"))
    (result,) = run_.results
    assert result.ok and result.dialect == "string"
    assert "changes: not applied (the person declined them): 1 file: 1 changed" in (
        result.details or ""
    )
    assert (ws / "notes.txt").read_text() == "one\ntwo\n"


@pytest.mark.parametrize(
    ("code", "setup"),
    [("NO_SANDBOX", "none"), ("TIMEOUT", "timeout"), ("KILLED", "stop"), ("REJECTED", "reject")],
)
def test_a_bash_topics_failures_in_strings_codes(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str, setup: str
) -> None:
    from operator_app.engine import CommandOutput, Engine, Session, ShellPolicy, Workspace
    from operator_app.engine.chanflow import bash as bash_topic

    if setup == "none":
        monkeypatch.setenv("OPERATOR_SANDBOX", "none")
    else:
        sandbox_or_skip()
    if setup == "timeout":
        monkeypatch.setattr(bash_topic, "TIMEOUT_S", 1)

    def listen(event: Any) -> None:
        if setup == "stop" and isinstance(event, CommandOutput):
            event.stop()

    engine = Engine(
        Workspace(ws),
        Session(tmp_path / "st"),
        decide=lambda plan, outlook: setup != "reject",
        listener=listen,
        shell=ShellPolicy(unsandboxed="refuse"),
    )
    (result,) = engine.run_text(bash("dev", "echo begun\nsleep 30")).results
    assert result.error_code == code and result.summary.startswith(f"\u2717 {code}: ")
    if setup == "reject":  # a script of two lines is named as the dialog named it
        assert "the person declined to run echo begun ...; nothing ran" in result.summary
    if setup in ("timeout", "stop"):
        assert "output so far:" in (result.details or "") and "begun" in (result.details or "")


def test_a_change_set_the_app_died_in_is_taken_back_on_the_next_run(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every step of the set was taken, then the app died before the journal's "commit" record:
    the next run's recovery puts every entry back as the set found it, and the model is told the
    change was not made."""
    sandbox_or_skip()
    from operator_app.engine import Engine, Journal, Session, Workspace, approve_all

    before = tree(ws)

    def die(self: Any, entry: Any, **kwargs: Any) -> None:
        raise SystemExit("killed")

    monkeypatch.setattr(Journal, "commit", die)
    script = "echo more >> notes.txt; rm old.txt; mkdir -p d; echo n > d/new.txt"
    engine = Engine(Workspace(ws), Session(tmp_path / "st"), decide=approve_all)
    with pytest.raises(SystemExit):
        engine.run_text(block("c1", "shell.run", command=script))
    assert (ws / "d" / "new.txt").exists() and not (ws / "old.txt").exists()  # all applied
    monkeypatch.undo()
    again = Engine(Workspace(ws), Session(tmp_path / "st"), decide=approve_all)
    run_ = again.run_text(block("c2", "fs.read", path="notes.txt"))
    assert any("Operator stopped during a write of message 1" in w for w in run_.warnings)
    assert tree(ws) == before and not (ws / "d").exists()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        cli_main(
            [
                "results",
                "--workspace",
                str(ws),
                "--state-dir",
                str(tmp_path / "st"),
                "--message",
                "1",
            ]
        )
    assert "id: c1\nok: false" in out.getvalue()


def test_a_folder_emptied_and_refilled_a_file_become_a_folder_and_back(
    ws: Path, tmp_path: Path
) -> None:
    """The overlay's harder marks: an opaque folder (rm -rf then mkdir: the tree's entries in it
    are deleted), a file replaced by a folder and a folder by a file; applied, then undone."""
    sandbox_or_skip()
    (ws / "pkg").mkdir()
    (ws / "pkg" / "old1.py").write_text("1\n")
    (ws / "pkg" / "old2.py").write_text("2\n")
    (ws / "data").mkdir()
    (ws / "data" / "x.csv").write_text("x\n")
    before = tree(ws)
    script = (
        "rm -rf pkg && mkdir pkg && echo new > pkg/new.py\n"
        "rm notes.txt && mkdir notes.txt && echo inner > notes.txt/inner\n"
        "rm -rf data && echo flat > data\n"
    )
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    assert result["ok"], result
    assert sorted(p.name for p in (ws / "pkg").iterdir()) == ["new.py"]
    assert (ws / "notes.txt" / "inner").read_text() == "inner\n"
    assert (ws / "data").read_text() == "flat\n"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert cli_main(["undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "st")]) == 0
    assert tree(ws) == before


def test_undo_is_refused_whole_when_a_file_of_the_set_changed_since(
    ws: Path, tmp_path: Path
) -> None:
    sandbox_or_skip()
    run(ws, tmp_path / "st", "echo a > a.txt; echo b > b.txt", "--approve", "all")
    (ws / "b.txt").write_text("edited by the person\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(["undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "st")])
    assert code == 6 and "b.txt changed since the command's changes were applied" in err.getvalue()
    assert (ws / "a.txt").read_text() == "a\n"  # nothing touched


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("GITHUB_TOKEN", "x", True),
        ("AWS_SECRET_ACCESS_KEY", "x", True),
        ("NPMTOKEN", "x", True),
        ("DB_PASSWORD", "x", True),
        ("SSH_AUTH_SOCK", "/tmp/agent", True),
        ("DATABASE_URL", "postgres://u:pw@h/db", True),
        ("DATABASE_URL", "postgres://h/db", False),
        ("PATH", "/usr/bin", False),
        ("PWD", "/x", False),
        ("KEYBOARD_LAYOUT", "us", False),
        ("SSL_CERT_FILE", "/etc/ssl/certs/ca.pem", False),
    ],
)
def test_which_variables_look_secret(name: str, value: str, secret: bool) -> None:
    from operator_app.engine.shell.environment import looks_secret

    assert looks_secret(name, value) is secret


def test_a_folder_the_command_made_that_ignores_itself_is_left_out(
    ws: Path, tmp_path: Path
) -> None:
    """pytest's cache folder holds a .gitignore of "*": git shows nothing of it, nor does the
    change-set (the folder is not made either)."""
    sandbox_or_skip()
    script = (
        "mkdir -p .cache_dir/v && printf '*\\n' > .cache_dir/.gitignore\n"
        "echo 1 > .cache_dir/v/data && echo kept > kept.txt\n"
    )
    result = run(ws, tmp_path / "st", script, "--approve", "all")
    assert "changes applied: 1 file: 1 created" in result["summary"]
    assert "not applied (ignored paths): .cache_dir/ (1), .cache_dir/v/ (1)" in str(
        result["details"]
    )
    assert (ws / "kept.txt").exists() and not (ws / ".cache_dir").exists()
