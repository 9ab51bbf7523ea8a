"""The workspace boundary on real folders: path checks, symlinks, special files, races, the walk."""

from __future__ import annotations

import os
import signal
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from operator_app.engine.boundary.workspace import (
    MAX_PATH_CHARS,
    MAX_PATH_COMPONENTS,
    Target,
    WalkItem,
    Workspace,
    WorkspaceUnusable,
)
from operator_app.protocol.errors import ErrorCode, OperatorError

not_as_root = pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permission bits")


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail instead of hanging: a blocking open of a FIFO would otherwise stall the suite."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError("operation blocked (FIFO opened without O_NONBLOCK?)")

    # Saved and restored so a suite-wide timer on SIGALRM (pytest-timeout) keeps running.
    previous = signal.signal(signal.SIGALRM, expired)
    outer_left, _ = signal.setitimer(signal.ITIMER_REAL, 5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left:
            signal.setitimer(signal.ITIMER_REAL, outer_left)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret\n")
    return tmp_path / "ws"


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace(root)


def write(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def error_of(call: Callable[[], object]) -> OperatorError:
    with pytest.raises(OperatorError) as caught:
        result = call()
        if isinstance(result, Iterator):
            list(result)
    assert "\n" not in caught.value.message
    return caught.value


def code_of(call: Callable[[], object]) -> ErrorCode:
    return error_of(call).code


def walk(ws: Workspace, raw: str = ".", **kwargs: bool) -> list[WalkItem]:
    return list(ws.walk_files(ws.target(raw), **kwargs))


def walk_target(ws: Workspace, t: Target) -> list[WalkItem]:
    return list(ws.walk_files(t))


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


needs_proc = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="counts fds through /proc"
)


# -- the workspace itself -------------------------------------------------------------------------


def test_root_is_resolved(tmp_path: Path, root: Path) -> None:
    (tmp_path / "alias").symlink_to(root)
    assert Workspace(tmp_path / "alias").root == Path(os.path.realpath(root))


@pytest.mark.parametrize("name", ["missing", "file.txt"])
def test_unusable_root(tmp_path: Path, name: str) -> None:
    write(tmp_path / "file.txt")
    with pytest.raises(WorkspaceUnusable):
        Workspace(tmp_path / name)


# -- target(): validation -------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["", " ", "\t", "  \n"])
def test_empty_path(ws: Workspace, raw: str) -> None:
    assert code_of(lambda: ws.target(raw)) is ErrorCode.ERR_INVALID_PATH


@pytest.mark.parametrize(
    "raw", ["a\x00b", "a\nb", "a\tb", "src/\x1b[31m", "a\x7f", "a\x85b", "a\rb"]
)
def test_control_characters(ws: Workspace, raw: str) -> None:
    error = error_of(lambda: ws.target(raw))
    assert error.code is ErrorCode.ERR_INVALID_PATH
    assert "control character" in error.message


def test_a_path_through_a_link_to_dot_resolves_up_to_the_component_limit(
    root: Path, ws: Workspace
) -> None:
    # Each prefix used to be resolved from the root again: 4,000 components through s -> . took
    # about 50 s. Resolution is one pass now, and the path's size is capped.
    write(root / "a.txt", "a\n")
    (root / "s").symlink_to(".")
    deepest = "s/" * (MAX_PATH_COMPONENTS - 1) + "a.txt"
    t = ws.target(deepest)
    assert t.abs == ws.root / "a.txt" and ws.read_file(t, max_bytes=None) == b"a\n"
    missing = error_of(
        lambda: ws.read_file(
            ws.target("s/" * (MAX_PATH_COMPONENTS - 2) + "no/a.txt"), max_bytes=None
        )
    )
    assert missing.code is ErrorCode.ERR_NOT_FOUND and "there is no " in missing.message
    deeper = error_of(lambda: ws.target("s/" + deepest))
    assert deeper.code is ErrorCode.ERR_INVALID_PATH
    assert (
        f"{MAX_PATH_COMPONENTS + 1} components; the limit is {MAX_PATH_COMPONENTS}"
        in deeper.message
    )
    longer = error_of(lambda: ws.target("s/" * 4000 + "a.txt"))
    assert (
        longer.code is ErrorCode.ERR_INVALID_PATH
        and f"the limit is {MAX_PATH_CHARS}" in longer.message
    )


def test_backslash(ws: Workspace) -> None:
    error = error_of(lambda: ws.target("src\\app.py"))
    assert error.code is ErrorCode.ERR_INVALID_PATH
    assert "use / as the separator" in error.message and "src/app.py" in error.message


@pytest.mark.parametrize("raw", ["/etc/passwd", "/", "//etc"])
def test_absolute(ws: Workspace, raw: str) -> None:
    error = error_of(lambda: ws.target(raw))
    assert error.code is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    assert "relative to the workspace root; use . for the root" in error.message


def test_absolute_inside_suggests_relative(ws: Workspace) -> None:
    error = error_of(lambda: ws.target(f"{ws.root}/src/app.py"))
    assert error.code is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    assert "send src/app.py" in error.message and str(ws.root) not in error.message


@pytest.mark.parametrize("raw", ["~", "~/notes.txt", "~root/.ssh/id_rsa"])
def test_tilde(ws: Workspace, raw: str) -> None:
    assert code_of(lambda: ws.target(raw)) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE


@pytest.mark.parametrize("raw", ["..", "../x", "a/../../x", "./../ws/x", "a/b/../../../x"])
def test_dotdot_escape(ws: Workspace, raw: str) -> None:
    error = error_of(lambda: ws.target(raw))
    assert error.code is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    assert "climbs above the workspace root" in error.message


@pytest.mark.parametrize(
    ("raw", "rel", "parts"),
    [
        ("a/../b", "b", ("b",)),
        ("src/./a.py", "src/a.py", ("src", "a.py")),
        ("./src//a.py/", "src/a.py", ("src", "a.py")),
        (".", ".", ()),
        ("./", ".", ()),
        ("a/..", ".", ()),
        ("...", "...", ("...",)),
        ("a/~b", "a/~b", ("a", "~b")),
    ],
)
def test_normalisation(ws: Workspace, raw: str, rel: str, parts: tuple[str, ...]) -> None:
    t = ws.target(raw)
    assert (t.rel, t.parts) == (rel, parts)
    assert t.abs == ws.root.joinpath(*parts)


def test_sibling_with_common_prefix_is_outside(tmp_path: Path, root: Path, ws: Workspace) -> None:
    write(tmp_path / "ws-evil" / "secret.txt")
    assert (
        code_of(lambda: ws.target("../ws-evil/secret.txt")) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    )
    (root / "evil").symlink_to(tmp_path / "ws-evil")
    assert code_of(lambda: ws.target("evil/secret.txt")) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    assert code_of(lambda: ws.target("evil")) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE


def test_trailing_space_and_quote_are_kept(root: Path, ws: Workspace) -> None:
    write(root / "a.txt", "real\n")
    for raw in ["a.txt ", 'a.txt"', "a.txt'"]:
        t = ws.target(raw)
        assert t.rel == raw
        assert code_of(lambda t=t: ws.read_file(t, max_bytes=None)) is ErrorCode.ERR_NOT_FOUND
    write(root / "a.txt ", "spaced\n")
    assert ws.read_file(ws.target("a.txt "), max_bytes=None) == b"spaced\n"


# -- target(): symlinks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "points_to", "raw"),
    [
        ("leak.txt", "outside/secret.txt", "leak.txt"),  # final component, file
        ("out", "outside", "out"),  # final component, folder
        ("out", "outside", "out/secret.txt"),  # middle component
        ("out", "outside", "out/new/file.txt"),  # middle, missing rest
        ("dangling", "outside/missing.txt", "dangling"),  # dangling, pointing outside
        ("dangling", "outside/missing", "dangling/x.txt"),
        ("up", "..", "up/outside/secret.txt"),  # relative link climbing out
    ],
)
def test_symlink_leading_outside(
    tmp_path: Path, root: Path, ws: Workspace, link: str, points_to: str, raw: str
) -> None:
    (root / "sub").mkdir()
    for where in (root / link, root / "sub" / link):
        where.symlink_to(tmp_path / points_to if points_to != ".." else "..")
    error = error_of(lambda: ws.target(raw))
    assert error.code is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    assert "resolves through a symlink to outside the workspace" in error.message
    if points_to != "..":
        assert code_of(lambda: ws.target(f"sub/{raw}")) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE


def test_out_and_back_in_is_refused(tmp_path: Path, root: Path, ws: Workspace) -> None:
    write(root / "real.txt")
    (root / "out").symlink_to(tmp_path / "outside")
    (tmp_path / "outside" / "back").symlink_to(root / "real.txt")
    error = error_of(lambda: ws.target("out/back"))
    assert error.code is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE
    assert "(out is a symlink" in error.message


def test_symlink_inside_to_inside_reads(root: Path, ws: Workspace) -> None:
    write(root / "real" / "a.txt", "inside\n")
    (root / "lnk").symlink_to("real")
    (root / "file-link").symlink_to("real/a.txt")
    (root / "real" / "up").symlink_to("../../ws/real")
    for raw in ["lnk/a.txt", "file-link", "real/up/a.txt", "lnk/up/up/a.txt"]:
        t = ws.target(raw)
        assert t.rel == raw
        assert t.abs == ws.root / "real" / "a.txt"
        assert ws.read_file(t, max_bytes=None) == b"inside\n"
    assert [e.name for e in ws.list_dir(ws.target("lnk"))] == ["a.txt", "up"]


def test_symlink_loop_is_refused_at_open(root: Path, ws: Workspace) -> None:
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    t = ws.target("a/x.txt")
    assert code_of(lambda: ws.read_file(t, max_bytes=None)) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE


# -- reading --------------------------------------------------------------------------------------


def test_read_file_and_size(root: Path, ws: Workspace) -> None:
    write(root / "src" / "app.py", "print(1)\n")
    t = ws.target("src/app.py")
    assert ws.read_file(t, max_bytes=None) == b"print(1)\n"
    assert ws.read_file(t, max_bytes=9) == b"print(1)\n"
    assert ws.file_size(t) == 9
    error = error_of(lambda: ws.read_file(t, max_bytes=8))
    assert error.code is ErrorCode.ERR_FILE_TOO_LARGE
    assert error.message == "src/app.py is 9 bytes, over the 8-byte limit"


def test_read_large_file_whole(root: Path, ws: Workspace) -> None:
    data = os.urandom(3 * (1 << 20) + 17)
    (root / "big.bin").write_bytes(data)
    assert ws.read_file(ws.target("big.bin"), max_bytes=None) == data


@pytest.mark.parametrize("raw", ["src", ".", "src/"])
def test_read_a_folder(root: Path, ws: Workspace, raw: str) -> None:
    (root / "src").mkdir()
    t = ws.target(raw)
    for call in (lambda: ws.read_file(t, max_bytes=None), lambda: ws.file_size(t)):
        error = error_of(call)
        assert error.code is ErrorCode.ERR_NOT_A_FILE
        assert "fs.list" in error.message


def test_fifo_is_refused_without_blocking(root: Path, ws: Workspace, deadline: None) -> None:
    os.mkfifo(root / "pipe")
    t = ws.target("pipe")
    error = error_of(lambda: ws.read_file(t, max_bytes=None))
    assert error.code is ErrorCode.ERR_SPECIAL_FILE
    assert "fifo" in error.message
    assert code_of(lambda: ws.file_size(t)) is ErrorCode.ERR_SPECIAL_FILE
    assert code_of(lambda: ws.list_dir(t)) is ErrorCode.ERR_NOT_A_DIRECTORY
    assert walk(ws, "pipe") == [WalkItem("pipe", "skipped", 0, "special")]
    assert stat.S_ISFIFO(ws.lstat(t).st_mode)  # type: ignore[union-attr]


def test_unix_socket_is_refused(
    root: Path, ws: Workspace, deadline: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # Bound by a relative name: a socket's path holds at most 107 bytes, which the test's
        # folder under a long TMPDIR exceeds.
        monkeypatch.chdir(root)
        server.bind("sock")
        assert (
            code_of(lambda: ws.read_file(ws.target("sock"), max_bytes=None))
            is ErrorCode.ERR_SPECIAL_FILE
        )
        assert walk(ws) == [WalkItem("sock", "skipped", 0, "special")]
    finally:
        server.close()


def test_device_is_refused(root: Path, ws: Workspace, deadline: None) -> None:
    try:
        os.mknod(root / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot create device nodes here")
    error = error_of(lambda: ws.read_file(ws.target("null"), max_bytes=None))
    assert error.code is ErrorCode.ERR_SPECIAL_FILE
    assert "character device" in error.message
    assert walk(ws) == [WalkItem("null", "skipped", 0, "special")]


def test_not_found_lists_close_names(root: Path, ws: Workspace) -> None:
    for name in ["app.py", "api.py", "other.txt"]:
        write(root / "src" / name)
    t = ws.target("src/ap.py")
    error = error_of(lambda: ws.read_file(t, max_bytes=None))
    assert error.code is ErrorCode.ERR_NOT_FOUND
    assert error.message == (
        "src/ap.py does not exist; close names: src/app.py, src/api.py; "
        "list the folder with fs.list"
    )
    assert ws.close_names(t) == ["src/app.py", "src/api.py"]


def test_not_found_in_missing_folder(root: Path, ws: Workspace) -> None:
    write(root / "src" / "app.py")
    t = ws.target("srcs/app.py")
    error = error_of(lambda: ws.read_file(t, max_bytes=None))
    assert error.code is ErrorCode.ERR_NOT_FOUND
    assert error.message == (
        "srcs/app.py does not exist: there is no srcs; close names: src; "
        "list the folder with fs.list"
    )
    assert code_of(lambda: ws.list_dir(ws.target("srcs"))) is ErrorCode.ERR_NOT_FOUND


def test_close_names_ignore_case_and_escape_control_characters(root: Path, ws: Workspace) -> None:
    write(root / "README.md")
    write(root / "setup.py")
    assert ws.close_names(ws.target("readme.md")) == ["README.md"]
    assert ws.close_names(ws.target("README.md")) == []
    assert ws.close_names(ws.target("zzzzzzzz")) == []
    write(root / "odd" / "new\nline.txt")
    assert ws.close_names(ws.target("odd/new line.txt")) == ["odd/new\nline.txt"]
    error = error_of(lambda: ws.read_file(ws.target("odd/new line.txt"), max_bytes=None))
    assert "close names: odd/new\\x0aline.txt;" in error.message


def test_not_a_directory(root: Path, ws: Workspace) -> None:
    write(root / "notes.txt")
    error = error_of(lambda: ws.read_file(ws.target("notes.txt/x"), max_bytes=None))
    assert error.code is ErrorCode.ERR_NOT_A_DIRECTORY
    assert "goes through notes.txt, which is a file" in error.message
    error = error_of(lambda: ws.list_dir(ws.target("notes.txt")))
    assert error.code is ErrorCode.ERR_NOT_A_DIRECTORY
    assert error.message == "notes.txt is a file, not a folder; read it with fs.read"
    assert code_of(lambda: walk(ws, "notes.txt/x")) is ErrorCode.ERR_NOT_A_DIRECTORY
    assert ws.lstat(ws.target("notes.txt/x")) is None


@not_as_root
def test_permission_denied(root: Path, ws: Workspace) -> None:
    locked = write(root / "locked.txt")
    locked.chmod(0)
    (root / "closed").mkdir()
    (root / "closed").chmod(0)
    try:
        error = error_of(lambda: ws.read_file(ws.target("locked.txt"), max_bytes=None))
        assert error.code is ErrorCode.ERR_PERMISSION_DENIED
        assert "ask the person" in error.message
        assert code_of(lambda: ws.list_dir(ws.target("closed"))) is ErrorCode.ERR_PERMISSION_DENIED
        assert WalkItem("closed", "skipped", 0, "unreadable") in walk(ws)
    finally:
        (root / "closed").chmod(0o755)


# -- opening what was checked ----------------------------------------------------------------------


def test_folder_swapped_for_symlink_after_check(tmp_path: Path, root: Path, ws: Workspace) -> None:
    write(root / "sub" / "secret.txt", "inside\n")
    write(tmp_path / "outside" / "sub" / "secret.txt", "outside\n")
    t = ws.target("sub/secret.txt")
    folder = ws.target("sub")
    (root / "sub").rename(root / "sub-was")
    (root / "sub").symlink_to(tmp_path / "outside" / "sub")
    for call in (
        lambda: ws.read_file(t, max_bytes=None),
        lambda: ws.file_size(t),
        lambda: ws.list_dir(folder),
        lambda: ws.open_dir(folder),
        lambda: walk_target(ws, folder),
        lambda: walk_target(ws, t),
        lambda: ws.open_parent_dir(t, create=True),
    ):
        error = error_of(call)
        assert error.code is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE, error
    assert [e.name for e in ws.list_dir(ws.target("sub-was"))] == ["secret.txt"]


def test_file_swapped_for_symlink_after_check(tmp_path: Path, root: Path, ws: Workspace) -> None:
    write(root / "a.txt")
    t = ws.target("a.txt")
    (root / "a.txt").unlink()
    (root / "a.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    for call in (
        lambda: ws.read_file(t, max_bytes=None),
        lambda: ws.file_size(t),
        lambda: walk(ws, "a.txt"),
    ):
        assert code_of(call) is ErrorCode.ERR_PATH_OUTSIDE_WORKSPACE


def test_file_swapped_for_fifo_after_check(root: Path, ws: Workspace, deadline: None) -> None:
    write(root / "a.txt")
    t = ws.target("a.txt")
    (root / "a.txt").unlink()
    os.mkfifo(root / "a.txt")
    assert code_of(lambda: ws.read_file(t, max_bytes=None)) is ErrorCode.ERR_SPECIAL_FILE


def test_lstat(root: Path, ws: Workspace) -> None:
    write(root / "real.txt")
    (root / "link.txt").symlink_to("real.txt")
    assert stat.S_ISREG(ws.lstat(ws.target("real.txt")).st_mode)  # type: ignore[union-attr]
    assert stat.S_ISLNK(ws.lstat(ws.target("link.txt")).st_mode)  # type: ignore[union-attr]
    assert stat.S_ISDIR(ws.lstat(ws.target(".")).st_mode)  # type: ignore[union-attr]
    assert ws.lstat(ws.target("missing.txt")) is None
    assert ws.lstat(ws.target("missing/deeper.txt")) is None


def test_open_parent_dir_creates_and_reports(root: Path, ws: Workspace) -> None:
    t = ws.target("new/deeper/file.txt")
    fd, name, created = ws.open_parent_dir(t, create=True)
    try:
        assert name == "file.txt"
        assert created == ["new", "new/deeper"]
        assert os.path.samestat(os.fstat(fd), os.stat(root / "new" / "deeper"))
    finally:
        os.close(fd)
    fd, _, created = ws.open_parent_dir(t, create=True)
    os.close(fd)
    assert created == []


def test_open_parent_dir_keeps_a_final_symlink_visible(root: Path, ws: Workspace) -> None:
    write(root / "real" / "a.txt")
    (root / "lnk").symlink_to("real")
    (root / "real" / "alias.txt").symlink_to("a.txt")
    fd, name, created = ws.open_parent_dir(ws.target("lnk/alias.txt"), create=False)
    try:
        assert (name, created) == ("alias.txt", [])
        assert os.path.samestat(os.fstat(fd), os.stat(root / "real"))
        assert stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    finally:
        os.close(fd)


def test_open_parent_dir_errors(root: Path, ws: Workspace) -> None:
    write(root / "plain")
    assert (
        code_of(lambda: ws.open_parent_dir(ws.target("gone/x.txt"), create=False))
        is ErrorCode.ERR_NOT_FOUND
    )
    assert (
        code_of(lambda: ws.open_parent_dir(ws.target("plain/x/y.txt"), create=True))
        is ErrorCode.ERR_NOT_A_DIRECTORY
    )
    assert (
        code_of(lambda: ws.open_parent_dir(ws.target("."), create=True)) is ErrorCode.ERR_NOT_A_FILE
    )
    assert sorted(os.listdir(root)) == ["plain"]


def test_open_dir(root: Path, ws: Workspace) -> None:
    (root / "src").mkdir()
    fd = ws.open_dir(ws.target("src"))
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(root / "src"))
    finally:
        os.close(fd)


# -- listing ---------------------------------------------------------------------------------------


def test_list_dir(root: Path, ws: Workspace) -> None:
    write(root / "b.txt", "12345")
    (root / "a").mkdir()
    (root / "c").symlink_to("b.txt")
    os.mkfifo(root / "d")
    write(root / ".git" / "HEAD")
    entries = [(e.name, e.kind, e.size) for e in ws.list_dir(ws.target("."))]
    assert entries == [
        (".git", "dir", 0),
        ("a", "dir", 0),
        ("b.txt", "file", 5),
        ("c", "symlink", 0),
        ("d", "other", 0),
    ]


# -- walking ---------------------------------------------------------------------------------------


def test_walk_order_is_full_path_string_order(root: Path, ws: Workspace) -> None:
    for rel in [
        "a/b.txt",
        "a.txt",
        "a-b/c.txt",
        "B.txt",
        "b/z.txt",
        "b/a/y.txt",
        "b.txt",
        "a/a/a.txt",
    ]:
        write(root / rel)
    rels = [item.rel for item in walk(ws)]
    assert rels == sorted(rels)
    assert rels == [
        "B.txt",
        "a-b/c.txt",
        "a.txt",
        "a/a/a.txt",
        "a/b.txt",
        "b.txt",
        "b/a/y.txt",
        "b/z.txt",
    ]
    assert [item.rel for item in walk(ws)] == rels


def test_walk_reports_sizes_and_prefixes(root: Path, ws: Workspace) -> None:
    write(root / "src" / "a.py", "abc")
    assert walk(ws, "src") == [WalkItem("src/a.py", "file", 3, None)]
    assert walk(ws, "./src/") == [WalkItem("src/a.py", "file", 3, None)]
    assert walk(ws, "src/a.py") == [WalkItem("src/a.py", "file", 3, None)]
    (root / "lnk").symlink_to("src")
    assert walk(ws, "lnk") == [WalkItem("lnk/a.py", "file", 3, None)]


def test_walk_skips_symlinks_and_specials_without_following(
    tmp_path: Path, root: Path, ws: Workspace, deadline: None
) -> None:
    write(root / "real.txt")
    (root / "to-file").symlink_to("real.txt")
    (root / "to-dir").symlink_to(tmp_path / "outside")
    (root / "dangling").symlink_to("nowhere")
    os.mkfifo(root / "pipe")
    assert walk(ws) == [
        WalkItem("dangling", "skipped", 0, "symlink"),
        WalkItem("pipe", "skipped", 0, "special"),
        WalkItem("real.txt", "file", 2, None),
        WalkItem("to-dir", "skipped", 0, "symlink"),
        WalkItem("to-file", "skipped", 0, "symlink"),
    ]


@pytest.fixture
def git_tree(root: Path) -> Path:
    write(root / ".gitignore", "*.log\n!keep.log\nbuild/\n/top.txt\n*.tmp\r\n")
    write(root / "sub" / ".gitignore", "local.txt\n!important.log\n")
    for rel in [
        "x.log", "keep.log", "top.txt", "local.txt", "a.tmp", "src/app.py",
        "build/out.o", "build/deep/more.o",
        "sub/top.txt", "sub/local.txt", "sub/important.log", "sub/other.log", "sub/build/x.o",
        ".git/HEAD", ".git/objects/ab/cdef",
    ]:  # fmt: skip
        write(root / rel)
    return root


def test_walk_honours_gitignore(git_tree: Path, ws: Workspace) -> None:
    assert walk(ws) == [
        WalkItem(".gitignore", "file", 39, None),
        WalkItem("a.tmp", "skipped", 0, "gitignore"),
        WalkItem("build", "skipped", 0, "gitignore"),
        WalkItem("keep.log", "file", 2, None),
        WalkItem("local.txt", "file", 2, None),
        WalkItem("src/app.py", "file", 2, None),
        WalkItem("sub/.gitignore", "file", 25, None),
        WalkItem("sub/build", "skipped", 0, "gitignore"),
        WalkItem("sub/important.log", "file", 2, None),
        WalkItem("sub/local.txt", "skipped", 0, "gitignore"),
        WalkItem("sub/other.log", "skipped", 0, "gitignore"),
        WalkItem("sub/top.txt", "file", 2, None),
        WalkItem("top.txt", "skipped", 0, "gitignore"),
        WalkItem("x.log", "skipped", 0, "gitignore"),
    ]


def test_walk_of_a_subfolder_applies_the_rules_above_it(git_tree: Path, ws: Workspace) -> None:
    assert [(i.rel, i.reason) for i in walk(ws, "sub")] == [
        ("sub/.gitignore", None),
        ("sub/build", "gitignore"),
        ("sub/important.log", None),
        ("sub/local.txt", "gitignore"),
        ("sub/other.log", "gitignore"),
        ("sub/top.txt", None),
    ]


def test_walk_of_an_ignored_folder_named_explicitly(git_tree: Path, ws: Workspace) -> None:
    assert [i.rel for i in walk(ws, "build")] == ["build/deep/more.o", "build/out.o"]
    assert walk(ws, "x.log") == [WalkItem("x.log", "file", 2, None)]


def test_ignored_folder_is_not_descended(git_tree: Path, ws: Workspace, deadline: None) -> None:
    os.mkfifo(git_tree / "build" / "pipe")
    (git_tree / "build" / "deep").chmod(0)
    try:
        items = walk(ws)
    finally:
        (git_tree / "build" / "deep").chmod(0o755)
    assert [i for i in items if i.rel.startswith("build")] == [
        WalkItem("build", "skipped", 0, "gitignore")
    ]


def test_walk_without_git_rules(git_tree: Path, ws: Workspace) -> None:
    rels = [i.rel for i in walk(ws, ignore_git=False)]
    assert ".git/HEAD" in rels and ".git/objects/ab/cdef" in rels
    assert "x.log" in rels and "build/deep/more.o" in rels
    assert all(i.kind == "file" for i in walk(ws, ignore_git=False))


def test_walk_missing_target(ws: Workspace) -> None:
    assert code_of(lambda: walk(ws, "nope")) is ErrorCode.ERR_NOT_FOUND


@needs_proc
def test_walk_closes_its_descriptors(git_tree: Path, ws: Workspace) -> None:
    before = open_fds()
    walk(ws)
    assert open_fds() == before
    items = ws.walk_files(ws.target("."))
    next(items)
    next(items)
    assert open_fds() > before
    items.close()  # type: ignore[attr-defined]
    assert open_fds() == before
    for call in (
        lambda: ws.read_file(ws.target("nope/x"), max_bytes=None),
        lambda: ws.read_file(ws.target("sub"), max_bytes=None),
        lambda: ws.list_dir(ws.target("keep.log")),
    ):
        code_of(call)
    assert open_fds() == before


def test_walk_handles_deep_trees(root: Path, ws: Workspace) -> None:
    deep = root.joinpath(*["d"] * 60)
    write(deep / "leaf.txt")
    assert [i.rel for i in walk(ws)] == ["/".join(["d"] * 60 + ["leaf.txt"])]


def test_target_type_is_frozen(ws: Workspace) -> None:
    t = ws.target("a")
    with pytest.raises(AttributeError):
        t.rel = "b"  # type: ignore[misc]
    assert isinstance(t, Target)
