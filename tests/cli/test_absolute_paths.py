"""Absolute paths a model sends, through the real `operator-app exec`, in both dialects: one inside
the workspace is refused with the path to send instead; one outside is quoted as the model wrote
it. What a model is told never holds this machine's paths (the workspace's is made relative, the
state folder's named), and only whole paths are replaced: a path that merely begins like the
workspace's or the state folder's is the model's own, shown as it is."""

from __future__ import annotations

from pathlib import Path

from tests.support.blocks import block
from tests.support.string_exec import Workspace, chan, context


def test_string_an_absolute_path_inside_the_workspace_names_the_path_to_send(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"README.md": "# Hello\n"})
    run = w.exec(chan(f"/open {w.ws}/README.md:L1") + chan(f"/open {w.ws}"))
    inside, root = run.results
    assert inside["error_code"] == "INVALID_PATH"
    assert inside["summary"].endswith(
        "an absolute path is not taken, even one inside the workspace"
    )
    assert context(inside) == "send it from the root: ~/README.md"
    assert context(root) == "send it from the root: ~/"


def test_string_a_path_beside_the_workspace_or_the_state_folder_is_quoted_whole(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"README.md": "# Hello\n"})
    beside_state = f"{w.state}olen.md"  # /…/state + "olen.md": begins like the state folder
    beside_ws = f"{w.ws}x/a.md"  # /…/ws + "x/a.md"
    run = w.exec(chan(f"/cp README.md {beside_state}") + chan(f"/open {beside_ws}"))
    copied, opened = run.results
    assert copied["error_code"] == opened["error_code"] == "INVALID_PATH"
    assert f"requested: {beside_state}" in context(copied)
    assert f"requested: {beside_ws}" in context(opened)


def test_operator_cmd_a_path_beside_the_state_folder_is_quoted_whole(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.txt": "a\n"})
    beside = f"{w.state}olen.md"
    (result,) = w.exec(block("c1", "fs.read", path=beside)).results
    assert result["error_code"] == "ERR_PATH_OUTSIDE_WORKSPACE"
    assert result["summary"].startswith(f"ERR_PATH_OUTSIDE_WORKSPACE: {beside} is absolute")
    (inside,) = w.exec(block("c2", "fs.read", path=f"{w.ws}/a.txt")).results
    assert inside["summary"].endswith("paths are relative to the workspace root: send a.txt")
    assert str(w.ws) not in inside["summary"] and str(tmp_path) not in inside["summary"]


def test_what_a_model_is_told_holds_no_machine_path_however_it_ends(tmp_path: Path) -> None:
    """The workspace's and the state folder's paths are replaced wherever they end a name (a
    quote, an ellipsis, punctuation, a dot or dash joined on), and kept only inside a longer
    name of the model's own."""
    from operator_app.engine.state.internal_failure import without_machine_paths

    ws, state = tmp_path / "ws", tmp_path / "st"
    text = (
        f"'cd {ws}...' {ws}? {{{ws}}} {ws}! {ws}* {ws}|x {state}.lock {state}-old {ws}/a.md "
        f"{ws} | {tmp_path}/stolen.md {tmp_path}/wsx/a.md"
    )
    told = without_machine_paths(text, ws, state)
    assert told == (
        "'cd ....' .? {.} .! .* .|x <Operator's state folder>.lock <Operator's state folder>-old "
        f"a.md . | {tmp_path}/stolen.md {tmp_path}/wsx/a.md"
    )
