"""The rename recovery and undo put entries back with never replaces what is at its destination:
in one step where the system has one (renameat2 / renameatx_np), and by a hard link or an empty
folder made first where it has not; either way an occupied destination is FileExistsError, with
both entries as they were."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from operator_app.engine.boundary.fsops import DIR_FLAGS
from operator_app.engine.ondisk.noreplace import _system_call, rename_by_link, rename_noreplace

Rename = Callable[[int, str, int, str], None]
WAYS = {"system call": rename_noreplace, "link or empty folder": rename_by_link}


@pytest.fixture
def folders(tmp_path: Path) -> Iterator[tuple[Path, int, Path, int]]:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    dst.mkdir()
    src_fd, dst_fd = os.open(src, DIR_FLAGS), os.open(dst, DIR_FLAGS)
    try:
        yield src, src_fd, dst, dst_fd
    finally:
        os.close(src_fd)
        os.close(dst_fd)


def make(kind: str, path: Path, text: str) -> None:
    if kind == "file":
        path.write_text(text)
    elif kind == "folder":
        path.mkdir()
        (path / "inner.txt").write_text(text)
    else:
        path.symlink_to(f"target-{text}")


def content(kind: str, path: Path) -> str:
    if kind == "file":
        return path.read_text()
    if kind == "folder":
        return (path / "inner.txt").read_text()
    return os.readlink(path).removeprefix("target-")


def test_this_system_has_the_one_step_rename() -> None:
    if os.uname().sysname not in ("Linux", "Darwin"):
        pytest.skip("renameat2 and renameatx_np are Linux's and macOS's")
    assert _system_call() is not None


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("kind", ["file", "folder", "symlink"])
def test_an_entry_moves_to_a_free_name(
    way: str, kind: str, folders: tuple[Path, int, Path, int]
) -> None:
    src, src_fd, dst, dst_fd = folders
    make(kind, src / "entry", "moved")
    WAYS[way](src_fd, "entry", dst_fd, "back")
    assert not os.path.lexists(src / "entry") and content(kind, dst / "back") == "moved"
    assert (dst / "back").is_symlink() == (kind == "symlink")


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("kind", ["file", "folder", "symlink"])
@pytest.mark.parametrize("there", ["file", "folder", "symlink"])
def test_an_occupied_name_is_never_replaced(
    way: str, kind: str, there: str, folders: tuple[Path, int, Path, int]
) -> None:
    src, src_fd, dst, dst_fd = folders
    make(kind, src / "entry", "old")
    make(there, dst / "back", "saved meanwhile")
    with pytest.raises(FileExistsError):
        WAYS[way](src_fd, "entry", dst_fd, "back")
    assert content(kind, src / "entry") == "old"
    assert content(there, dst / "back") == "saved meanwhile"
    assert sorted(os.listdir(dst)) == ["back"]  # no folder made for the move is left behind


def test_an_empty_folder_at_the_name_is_no_free_name_either(
    folders: tuple[Path, int, Path, int],
) -> None:
    """A plain rename of a folder replaces an empty one: what someone made there is theirs."""
    src, src_fd, dst, dst_fd = folders
    make("folder", src / "entry", "old")
    (dst / "back").mkdir()
    with pytest.raises(FileExistsError):
        rename_noreplace(src_fd, "entry", dst_fd, "back")
    assert (src / "entry" / "inner.txt").exists() and list((dst / "back").iterdir()) == []
