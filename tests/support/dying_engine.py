"""An engine run that dies (os._exit: no clean-up, as a SIGKILL would) in the middle of its first
write, at a named point, for the tests of crash recovery and undo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Runs the real engine on a message and dies (os._exit: no clean-up, as a SIGKILL would) at the
# named point of its first write: right after the commit of an applyEdits, before its result is
# recorded ("after-commit"); right after the file is replaced (for a delete: moved to the trash),
# before the journal's "commit" record ("after-replace"); inside send2trash, a deleted entry in
# Operator's private folder beside its place ("inside-send2trash"); just before the replace, the
# new bytes whole in their temporary file ("before-replace"); for a delete, after its journal
# entry is begun but before anything moved ("before-trash"); right after its intent is recorded,
# before the commit ("before-commit"); or, for a delete moved across file systems, once the copy
# is whole in the trash, before the source renamed aside is removed ("removing-the-moved-source").
# For a copy or move: with its journal entry begun, before anything moved ("before-moving"); once
# its copy is whole under its temporary name, before it is renamed into place ("after-copy"); a
# move to another file system with its copy in place, before the original goes to the trash
# ("before-trashing-the-original"). "after-replace" (the journal's commit record) applies to them
# too.
_DYING_ENGINE = """
import os, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from operator_app.engine.executor import Engine, approve_all
from operator_app.engine.state.session import Session
from operator_app.engine.boundary.workspace import Workspace

point = sys.argv[4]
session = Session(Path(sys.argv[3]))
if point == "after-commit":
    record = session.record_result
    def dying_record(number, result, content_key, **kw):
        if result.action == "fs.applyEdits":
            os._exit(9)
        record(number, result, content_key, **kw)
    session.record_result = dying_record
else:
    import importlib
    # Where each point dies: the function replaced by one that exits at once.
    module, name = {
        "before-replace": ("operator_app.engine.changes.content.commit", "install_temp"),
        "inside-send2trash": ("send2trash", "send2trash"),
        "before-trash": ("operator_app.engine.changes.delete.commit", "move_to_trash"),
        "after-replace": ("operator_app.engine.safety.journal", "Journal.commit"),
        "before-commit": ("operator_app.engine.changes.write", "commit"),
        "removing-the-moved-source": ("operator_app.engine.ondisk.moves", "remove_entry"),
        "before-moving": ("operator_app.engine.changes.transfer.commit", "_put_in_place"),
        "after-copy": ("operator_app.engine.changes.transfer.commit", "copy_entry"),
        "before-trashing-the-original": (
            "operator_app.engine.changes.transfer.commit", "move_to_trash"),
    }[point]
    owner = importlib.import_module(module)
    *path, attribute = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = getattr(owner, attribute)
    def die(*args, **kwargs):
        if point == "after-copy":  # the step itself runs: the app dies right after it
            real(*args, **kwargs)
        os._exit(9)
    setattr(owner, attribute, die)
Engine(Workspace(sys.argv[2]), session, decide=approve_all).run_text(Path(sys.argv[5]).read_text())
"""


def die_during_a_write(
    ws: Path, state: Path, message: Path, point: str, env: dict[str, str] | None = None
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _DYING_ENGINE, str(ROOT), str(ws), str(state), point, str(message)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 9, done.stderr
