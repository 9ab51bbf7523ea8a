"""The headless path stays light: `operator-app exec` never imports Textual or Rich, nor what
only an error or a write needs (difflib, traceback, unidiff) or pydantic's plugin discovery
(importlib.metadata), which together cost a fifth of its start-up; and the scanner alone
imports no pydantic (it is the part that must be fast on every paste)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHECK_EXEC = """
import sys, io, contextlib, tempfile, pathlib
ws = pathlib.Path(tempfile.mkdtemp()); (ws / "a.txt").write_text("hi")
msg = ws.parent / (ws.name + ".msg"); msg.write_text("OPERATOR_CMD\\nversion: 1\\nid: r\\naction: fs.read\\npath: a.txt\\nEND_OPERATOR_CMD\\n")
from operator_app.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(["exec", "--workspace", str(ws), "--state-dir", str(ws.parent / (ws.name + ".st")), str(msg)]) == 0
assert "ok: true" in out.getvalue()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich")
               or m in ("importlib.metadata", "difflib", "traceback", "unidiff", "pathspec"))
print(",".join(heavy))
"""


def test_exec_of_a_read_imports_nothing_it_does_not_need() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK_EXEC], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_scanner_alone_imports_no_pydantic() -> None:
    code = "import sys, operator_app.protocol.scanner; print(any(m.startswith('pydantic') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip() == "False"


def test_the_pydantic_plugin_loader_stand_in_falls_back_to_the_real_module() -> None:
    """The stand-in answers what pydantic's validator asks (no plugins) without importlib.metadata,
    and anything else it is asked for comes from the real loader, so a pydantic release that wants
    more from that module keeps working."""
    code = """
import sys
import operator_app.protocol.commands
stand_in = sys.modules["pydantic.plugin._loader"]
print(stand_in.get_plugins() == (), "importlib.metadata" in sys.modules)
print(stand_in._plugins is None or isinstance(stand_in._plugins, dict), "importlib.metadata" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["True False", "True True"]


def test_the_stand_in_is_reachable_the_ways_the_real_loader_is() -> None:
    """Other code in the same process may reach the loader as an attribute of its package, or
    hold the stand-in after it gave way to the real module: neither may break."""
    code = """
import sys
import operator_app.protocol.commands
import pydantic.plugin._loader
print(pydantic.plugin._loader.get_plugins() == ())
stand_in = sys.modules["pydantic.plugin._loader"]
stand_in._plugins  # the real module takes over
real = sys.modules["pydantic.plugin._loader"]
stand_in.PYDANTIC_ENTRY_POINT_GROUP  # asked again through the old stand-in: the same real module
print(real is not stand_in, sys.modules["pydantic.plugin._loader"] is real, pydantic.plugin._loader is real)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["True", "True True True"]
