"""Each dialect's errors speak only that dialect: every String error a message can provoke, of
every code, through the real `operator-app exec`, and those the engine phrases for OPERATOR_CMD
(not found, a folder, binary, too large, a symlink out, a file in the way, a bad glob or regex,
the root), is checked for any OPERATOR_CMD action or field: the advice names String commands."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from operator_app.protocol.chanflow.errors import StringCode
from tests.support.string_exec import S, Workspace, chan

# What only OPERATOR_CMD says: its actions, its marker, its fields.
OPERATOR_CMD_WORDS = re.compile(
    r"\bfs\.[A-Za-z]|OPERATOR_CMD|content_b64|edits_b64|query_b64|patch_b64|path_to|startLine"
    r"|endLine|overwrite: true|regex: true|ignore_case|readSlice|details_b64|timeout_s"
    r"|command_b64|shell\.run"
)


def _check(results: list[dict[str, object]], seen: set[str]) -> None:
    for result in results:
        if result["ok"]:
            continue
        text = f"{result['summary']}\n{result['details'] or ''}"
        if os.environ.get("SHOW_STRING_ERRORS"):
            print(f"--- {result['action']}\n{text}")
        found = OPERATOR_CMD_WORDS.search(text)
        assert found is None, f"{result['error_code']} speaks OPERATOR_CMD ({found}): {text}"
        seen.add(str(result["error_code"]))


def test_every_string_error_names_string_commands_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = Workspace(
        tmp_path,
        {
            "notes.md": "# Notes\n\n## Decisions\nnone\n",
            "src/app.py": "def main():\n    pass\n",
            "blob.bin": b"\x00\x01\x02binary\xff",
            "latin.txt": b"caf\xe9\n",
            "big.txt": "x" * 2_100_000,
            "huge.txt": "y\n" * 4_100_000,
        },
    )
    os.symlink("/etc", w.ws / "out")
    seen: set[str] = set()
    reads = [
        "/open missing.md",
        "/open notez.md",
        "/ls nowhere",
        "/open ../secret",
        "/open /etc/passwd",
        "/open out/passwd",
        "/open src",
        "/open blob.bin",
        "/open latin.txt",
        "/open big.txt",
        "/open huge.txt",
        "/open notes.md#nothing",
        "/open notes.md:L40",
        "/log notes.md",
        "/commit notes.md",
        "/open notes.md@c3",
        "/back",
        "/refresh",
        "/undo",
        "/open",
        "/edit",
        "/find",
        "/find *.py nowhere",
        "/find [",
        "/grep",
        "/grep ( --regex",
        "/grep x --include [",
        "/grep x nowhere",
        "/grep x --nope",
        "/tree nowhere",
        "/tree src 0 9",
        "/tree src/app.py",
        "/set {x} =",
        "/open {nothing}",
        "/open $HOME",
        "/nope",
        "plain text",
    ]
    _check(w.exec("".join(chan(read) for read in reads)).results, seen)
    writes = [
        "/write src\nx",
        "/write huge.txt\nx",
        "/replace notes.md:L2\nx",  # declined: --approve none
        "/replace notes.md:L99\nx",
        "/replace notes.md#nothing\nx",
        "/append\nx",
        "/mv missing.md x.md",
        "/mv notes.md src/app.py",
        "/mv src src/inner",
        "/cp out copied",
        "/rm ~",
        "/rm missing.md",
        "/mv only-one",
        "/open .env",  # a secret-looking file: asked first, and no one says yes here
    ]
    w.put(".env", "TOKEN=not-for-the-model\n")
    _check(w.exec("".join(chan(write) for write in writes), approve="none").results, seen)
    faults = (
        f"<{S}=web:docs>/open x</{S}>\n<{S}=bash:dev>ls</{S}>\n"
        f'<{S}=string:t time="1">/open x</{S}>\n<{S}=string:a.b>/open x</{S}>\n'
        f"<C=string:main>/ls</C>\n<{S}=string:main>/write x\n<{S}=string:main>/ls</{S}>\n"
        f"</{S}>\n<{S}=string:main>/write y\nnever closed"
    )
    _check(w.exec(faults).results, seen)
    # A file changed behind the topic's back, and an earlier change moving lines.
    assert w.exec("Reading.\n" + chan("/open notes.md")).one["ok"]
    w.put("notes.md", "# Notes, by hand\n\n## Decisions\nnone\n")
    _check(w.exec("Changing.\n" + chan("/replace notes.md:L1\n# N")).results, seen)
    moved = chan("/replace src/app.py:L1\n# a comment\ndef main():") + chan(
        "/replace src/app.py:L2\n    return 1"
    )
    _check(w.exec(moved).results, seen)
    cut = f"<{S}=string:main>/write cut.txt\n" + "z" * 200_000 + f"\n</{S}>\n"
    _check(w.exec(cut).results, seen)
    # No terminal and no --approve: a change no one was asked about, and the block after it.
    unasked = w.exec(chan("/write fresh.md\nmore") + chan("/open fresh.md"), approve="")
    assert [r["error_code"] for r in unasked.results] == ["NOT_APPROVED", "NOT_APPROVED"]
    _check(unasked.results, seen)
    # A bash topic's script: over its time limit, ended by a signal, and with no sandbox.
    from operator_app.engine.chanflow import bash as bash_topic
    from tests.cli.test_shell import sandbox_or_skip

    sandbox_or_skip()
    monkeypatch.setattr(bash_topic, "TIMEOUT_S", 1)
    _check(w.exec(chan("echo begun; sleep 30", "bash:dev")).results, seen)
    _check([_stopped_by_the_person(w)], seen)  # (exec has no one to press x)
    monkeypatch.setenv("OPERATOR_SANDBOX", "none")
    _check(w.exec(chan("echo hi", "bash:dev")).results, seen)
    provoked = {code.value for code in StringCode} - {"INTERNAL"}  # (an Operator bug's)
    assert provoked - seen == set(), f"not provoked: {provoked - seen}"


def _stopped_by_the_person(w: Workspace) -> dict[str, object]:
    """A bash topic's script the person stops (x in the TUI), run through the engine."""
    from operator_app.engine import CommandOutput, Engine, Session, approve_all
    from operator_app.engine import Workspace as Folder

    def stop(event: object) -> None:
        if isinstance(event, CommandOutput):
            event.stop()

    engine = Engine(Folder(w.ws), Session(w.state), decide=approve_all, listener=stop)
    (result,) = engine.run_text(chan("echo begun; sleep 29", "bash:dev")).results
    return result.to_json()
