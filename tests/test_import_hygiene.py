"""The headless path stays light: `operator-app exec`, through the entry point that also opens the
TUI, never imports Textual or Rich, nor what only an error or a write needs (difflib, traceback,
unidiff), nor the command models of other actions than those it runs (declaring all 21 costs a
start twice what the read's family does); the scanner alone imports no pydantic (it is the
part that must be fast on every paste), and neither do the TUI's modules before the first
screen."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

CHECK_EXEC = """
import sys, io, contextlib, pathlib
top = pathlib.Path(sys.argv[1])
ws = top / "ws"; ws.mkdir(); (ws / "a.txt").write_text("hi")
msg = top / "m.txt"; msg.write_text(
    "OPERATOR_CMD\\nversion: 1\\nid: r\\naction: fs.read\\npath: a.txt\\nEND_OPERATOR_CMD\\n")
from operator_app.entry import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(["exec", "--workspace", str(ws), "--state-dir", str(top / "st"), str(msg)]) == 0
assert "ok: true" in out.getvalue()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich")
               or m in ("difflib", "traceback", "unidiff", "pathspec")
               or m.startswith("operator_app.protocol.commands.")
                  and m.rsplit(".", 1)[1] in ("info", "regions", "writing"))
print(",".join(heavy))
"""


def test_exec_of_a_read_imports_nothing_it_does_not_need(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK_EXEC, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == ""


CHECK_ENTRY = """
import atexit, sys, pathlib
ws = pathlib.Path(sys.argv[1]) / "ws"; ws.mkdir(parents=True); (ws / "a.txt").write_text("hi")
msg = ws.parent / (ws.name + ".msg"); msg.write_text(
    "OPERATOR_CMD\\nversion: 1\\nid: r\\naction: fs.read\\npath: a.txt\\nEND_OPERATOR_CMD\\n")
watched = ("importlib.metadata", "operator_app.engine.boundary.gitignore",
           "operator_app.protocol.glob_match", "operator_app.engine.changes.plan",
           "operator_app.engine.messages.lines", "operator_app.engine.boundary.tree_walk",
           "operator_app.engine.opcmd.line_edits", "operator_app.engine.opcmd.failed_writes",
           "operator_app.engine.opcmd.recovered", "operator_app.engine.changes.outcomes",
           "operator_app.engine.safety.journal", "shlex", "platformdirs", "tempfile", "shutil")
atexit.register(lambda: print("loaded:" + ",".join(m for m in watched if m in sys.modules)))
sys.argv = ["operator-app", "exec", "--workspace", str(ws),
            "--state-dir", str(ws.parent / (ws.name + ".st")), str(msg)]
from operator_app.entry import entry
entry()
"""


def _entry_loads(env: dict[str, str], folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHECK_ENTRY, str(folder)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert "ok: true" in done.stdout
    return done.stdout.rsplit("loaded:", 1)[1].strip()


def test_the_command_of_a_read_skips_plugin_discovery_and_ignore_rules(tmp_path: Path) -> None:
    """Through `operator-app`'s own entry: pydantic's plugin loader (which imports
    importlib.metadata only to find no plugins) is stood in for, and a read loads no .gitignore
    machinery, no tree walk, no write plan, no line-number bookkeeping and nothing that only a
    write that failed or was cut short needs, nor platformdirs (the XDG folders are read without
    it on Linux) and the tempfile and shutil it brings; a plugin setting of the person's own is
    kept, and pydantic's loader with it."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    assert _entry_loads(env, tmp_path / "one") == ""
    own = env | {"PYDANTIC_DISABLE_PLUGINS": "some_plugin"}
    # (importlib.metadata brings tempfile and shutil with it: the person asked for that)
    assert "importlib.metadata" in _entry_loads(own, tmp_path / "two").split(",")


def test_scanner_alone_imports_no_pydantic() -> None:
    code = (
        "import sys, operator_app.protocol.scanner; "
        "print(any(m.startswith('pydantic') for m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.stdout.strip() == "False"


def test_the_tuis_modules_leave_pydantic_and_the_lexer_table_for_later() -> None:
    """The TUI's first screen waits for its imports: the command models (pydantic) are declared
    on the first paste or when help is first shown, and Pygments' lexer table is loaded by the
    warm-up thread or the first diff, never by importing the app's modules."""
    code = (
        "import sys, operator_app.tui.app; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic' "
        "or m in ('pygments.lexers', 'operator_app.protocol.commands.base')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.stdout.strip() == "[]"


CHECK_COLLECTOR = """
import gc, io, contextlib, sys, tempfile, pathlib
ws = pathlib.Path(tempfile.mkdtemp()); (ws / "a.txt").write_text("hi")
msg = ws.parent / (ws.name + ".msg"); msg.write_text(
    "OPERATOR_CMD\\nversion: 1\\nid: r\\naction: fs.read\\npath: a.txt\\nEND_OPERATOR_CMD\\n")
from operator_app.entry import main
run = {"exec": ["exec", "--workspace", str(ws), "--state-dir", str(ws.parent / "st"), str(msg)],
       "spec": ["spec"], "tui": ["--workspace", str(ws)]}[sys.argv[1]]
if sys.argv[2] == "console":
    gc.disable()  # as entry() does
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(run)
print(gc.isenabled(), gc.get_freeze_count() > 0)
"""


def test_the_collector_is_paused_for_the_start_up_of_the_command_only() -> None:
    """`operator-app` pauses the garbage collector for its start-up (entry.py): every way in
    resumes it (the TUI, here refused for want of a terminal, runs for hours), exec after freezing
    what its imports made; called in-process, with the collector running, nothing is frozen."""

    def after(way: str, start: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", CHECK_COLLECTOR, way, start],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    assert after("exec", "console") == "True True"
    assert after("spec", "console") == "True False"
    assert after("tui", "console") == "True False"
    assert after("exec", "in-process") == "True False"


def test_records_are_structs_not_dataclasses() -> None:
    """Declaring a frozen dataclass compiles six methods on CPython 3.11, about half a
    millisecond; the fifty records a read declared were a fifth of what exec added to Python's
    start. msgspec declares a Struct in C (docs/design.md, "Start-up"), so no module of the app
    may declare records the other way again."""
    package = Path(__file__).resolve().parent.parent / "operator_app"
    users = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if re.search(r"^\s*(from dataclasses import|import dataclasses)", path.read_text(), re.M)
    )
    assert users == []
