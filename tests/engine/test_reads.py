"""Read actions through the engine API on real folders, where a symlink inside the workspace is
read through: what it leads to decides the answer, as for the path it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from operator_app.engine.boundary.workspace import Workspace
from operator_app.engine.executor import Engine
from operator_app.engine.state.session import Session
from tests.support.blocks import block


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('needle')\n")
    (root / "code").symlink_to("src")
    (root / "main.py").symlink_to("src/app.py")
    return root


def codes(ws: Path, state: Path, message: str) -> list[str | None]:
    return [r.error_code for r in Engine(Workspace(ws), Session(state)).run_text(message).results]


def test_a_link_to_a_folder_is_a_folder_for_every_file_action(ws: Path, tmp_path: Path) -> None:
    message = (
        block("s1", "fs.search", path="code", query="needle")
        + block("s2", "fs.search", path="src", query="needle")
        + block("r1", "fs.read", path="code")
        + block("r2", "fs.readSlice", path="code")
    )
    assert codes(ws, tmp_path / "state", message) == [
        "ERR_SEARCH_PATH_IS_DIR",
        "ERR_SEARCH_PATH_IS_DIR",
        "ERR_NOT_A_FILE",
        "ERR_NOT_A_FILE",
    ]


def test_a_link_to_a_file_is_read_through(ws: Path, tmp_path: Path) -> None:
    message = block("s", "fs.search", path="main.py", query="needle") + block(
        "r", "fs.read", path="code/app.py"
    )
    assert codes(ws, tmp_path / "state", message) == [None, None]
