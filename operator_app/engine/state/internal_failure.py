"""What the model is told when Operator itself fails, and what never reaches it.

An exception's text and its traceback name the machine: the install path, the workspace's
absolute path, a user's home. The model is told the kind of failure and where in Operator it
happened ("RecursionError in engine/ondisk/fingerprint.py, _update"), and that the person can
find the rest in the state folder's log (`internal-errors.log`, kept to about LOG_MAX_BYTES).
Failed results are also cleaned of the absolute paths Operator knows (the workspace, the state
folder, the install), whatever put them there.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from ..ondisk.private import write_private

LOG_NAME = "internal-errors.log"
LOG_MAX_BYTES = 1_000_000
_PACKAGE = Path(__file__).resolve().parents[2]  # operator_app/


def where_in_operator(exc: BaseException) -> str:
    """The innermost frame of Operator's own code the exception passed: "path/in/package.py,
    function" (relative to the package), or "" when none did."""
    import traceback  # only on a failure: not on every start

    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        try:
            inner = Path(frame.filename).resolve().relative_to(_PACKAGE)
        except ValueError:
            continue
        found = f"{inner.as_posix()}, {frame.name}"
    return found


def log_failure(exc: BaseException, state_dir: Path | None, doing: str) -> bool:
    """Append the traceback to the state folder's log, for the person; whether it was written."""
    if state_dir is None:
        return False
    import traceback

    path = state_dir / LOG_NAME
    text = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} while {doing}\n" + "".join(
        traceback.format_exception(exc)
    )
    data = text.encode("utf-8", "replace")
    try:
        # 0600 whatever it had (ondisk/private.py): tracebacks name the person's files.
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            write_private(path, path.read_bytes()[-LOG_MAX_BYTES // 2 :] + data)
        else:
            write_private(path, data, append=True)
    except OSError:
        return False
    return True


def internal_message(exc: BaseException, state_dir: Path | None, doing: str) -> str:
    """The sentence for the model: what kind of failure, where in Operator, what to do."""
    where = where_in_operator(exc)
    logged = log_failure(exc, state_dir, doing)
    place = f" in {where}" if where else ""
    told = "; the person finds the details in Operator's log" if logged else ""
    return f"Operator failed {doing} ({type(exc).__name__}{place}){told}"


def without_machine_paths(text: str, workspace: Path, state_dir: Path | None) -> str:
    """`text` with the absolute paths of the workspace (made relative), the state folder and
    the install replaced by what they are. Only whole paths: a path that merely begins like one
    of them (/x/ws beside /x/wsx, /x/st beside /x/stolen.md) is a path the model sent, kept as
    it is."""
    replacements = [(str(_PACKAGE), "<Operator>")]
    if state_dir is not None:
        replacements.append((str(state_dir), "<Operator's state folder>"))
    replacements += [(str(workspace) + "/", ""), (str(workspace), ".")]
    for absolute, shown in sorted(replacements, key=lambda pair: -len(pair[0])):
        if absolute and absolute != "/" and absolute in text:
            ending = "" if absolute.endswith("/") else _PATH_ENDS
            # (shown as a literal: a replacement string would read its backslashes)
            text = re.compile(re.escape(absolute) + ending).sub(shown.replace("\\", "\\\\"), text)
    return text


# Where a path ends: anything but a letter, digit or underscore that would go on with its last
# name (/x/ws in /x/wsx/a.md is not the workspace). A dot, a dash or a quote after it ends it:
# hiding too much is the safe side.
_PATH_ENDS = r"(?!\w)"
