"""The style gates the README's test command runs, so CI fails on a regression: ruff's lint and
format check (settings in pyproject.toml), mypy --strict on the package, and one rule ruff has no
check for: no conditional expression nested in another (`a if x else b if y else c` reads as a
riddle; an `if` statement or a lookup says it plainly). The browser extension's JavaScript has
the same complexity bound as the Python (15), measured by lizard, which also counts `&&`, `||`
and `?:` as branches."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("operator_app", "tests", "benchmarks", "docs", "run.py")


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, env=env
    )


def test_ruff_finds_nothing_to_say() -> None:
    done = _tool("ruff", "check", "--output-format", "concise", *CHECKED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_formatted() -> None:
    done = _tool("ruff", "format", "--check", *CHECKED)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_strict_passes() -> None:
    done = _tool("mypy", "--strict", "operator_app")
    assert done.returncode == 0, done.stdout + done.stderr


def nested_conditionals(source: str) -> list[int]:
    """Lines of conditional expressions with another one as a branch (not inside a call or a
    literal there, where it stands apart)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.IfExp) and any(
            isinstance(b, ast.IfExp) for b in (node.body, node.orelse)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_no_conditional_expression_is_nested_in_another() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in CHECKED
        for path in sorted(
            (ROOT / folder).rglob("*.py") if (ROOT / folder).is_dir() else [ROOT / folder]
        )
        for line in nested_conditionals(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_nesting_check_sees_a_nested_conditional() -> None:
    assert nested_conditionals("x = 1 if a else 2 if b else 3\ny = (1 if a else 2) + 3\n") == [1]
    assert nested_conditionals("z = (1 if a else 2) if b else 3\n") == [1]
    assert nested_conditionals("w = f(1 if a else 2) if b else 3\n") == []


EXTENSION = ROOT / "operator_app" / "bridge" / "extension"


def test_no_function_of_the_extension_is_too_complex() -> None:
    done = _tool("lizard", "--languages", "javascript", "-C", "15", "-w", str(EXTENSION))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == ""


def test_the_complexity_check_sees_a_complex_function(tmp_path: Path) -> None:
    branches = "".join(f"  if (x === {n}) return {n};\n" for n in range(16))
    (tmp_path / "tangled.js").write_text(f"function tangled(x) {{\n{branches}  return -1;\n}}\n")
    done = _tool("lizard", "--languages", "javascript", "-C", "15", "-w", str(tmp_path))
    assert done.returncode != 0 and "tangled has" in done.stdout
