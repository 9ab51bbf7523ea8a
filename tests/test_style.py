"""The style gates the README's test command runs, so CI fails on a regression: ruff's lint and
format check (settings in pyproject.toml), mypy --strict on the package, and two rules ruff has no
check for. No conditional expression is nested in another (`a if x else b if y else c` reads as a
riddle; an `if` statement or a lookup says it plainly). And one ruler for complexity, lizard's,
which counts each `and`, `or` (`&&`, `||`, `?:` in JavaScript) as a branch, as ruff's McCabe
check does not: no function of the package, the benchmarks or run.py above 15 or longer than 80
lines, and none of the browser extension's JavaScript above 15, but the ones listed in
EXCEPTIONS with their reason (docs/design.md, "Complexity")."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from pathlib import Path

import lizard
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


COMPLEXITY = 15  # lizard's cyclomatic complexity: McCabe's, plus one for each `and` and `or`
LENGTH = 80  # lines, from the `def` to the function's last line (nested functions included)
MEASURED = ("operator_app", "benchmarks", "run.py")  # the code that runs; tests/ is ruff's (C90)
EXTENSION = ROOT / "operator_app" / "bridge" / "extension"

# "path:function" (lizard's name: `outer.inner` for a nested one) -> why it may stay above the
# ruler. A function that no longer needs its line fails the test below until the line goes.
EXCEPTIONS: dict[str, str] = {}


def over_the_ruler(
    paths: list[Path], root: Path = ROOT, length: int | None = LENGTH
) -> dict[str, str]:
    """Each function in `paths` above COMPLEXITY or (unless `length` is None) longer than
    `length` lines, as "path:function" (the path from `root`) -> what the ruler measured."""
    found = {}
    for path in paths:
        for function in lizard.analyze_file(str(path)).function_list:
            complexity, lines = function.cyclomatic_complexity, function.length
            if complexity > COMPLEXITY or (length is not None and lines > length):
                name = f"{path.relative_to(root).as_posix()}:{function.name}"
                found[name] = f"line {function.start_line}: complexity {complexity}, {lines} lines"
    return found


def python_files(*names: str) -> list[Path]:
    return sorted(
        path
        for name in names
        for path in ((ROOT / name).rglob("*.py") if (ROOT / name).is_dir() else [ROOT / name])
    )


@functools.cache
def measured() -> dict[str, str]:
    """The package's, the benchmarks' and run.py's functions above the ruler (read once)."""
    return over_the_ruler(python_files(*MEASURED))


def test_no_function_is_too_complex_or_too_long() -> None:
    found = measured()
    unlisted = [f"{name}, {figures}" for name, figures in found.items() if name not in EXCEPTIONS]
    assert not unlisted, (
        f"above complexity {COMPLEXITY} or longer than {LENGTH} lines (split each into named "
        "steps, or list it in EXCEPTIONS with its reason):\n" + "\n".join(unlisted)
    )


def test_every_exception_is_still_needed() -> None:
    found = measured()
    stale = [name for name in EXCEPTIONS if name not in found]
    assert not stale, "within the ruler now (or gone): take off EXCEPTIONS:\n" + "\n".join(stale)


def test_no_function_of_the_extension_is_too_complex() -> None:
    """Length is not held here: each script is one function wrapped round the whole file, and
    a `create` is a closure holding its module's functions, so lizard's length is a module's."""
    scripts = sorted(EXTENSION.rglob("*.js"))
    assert scripts
    assert over_the_ruler(scripts, length=None) == {}


def test_the_ruler_counts_boolean_operators(tmp_path: Path) -> None:
    """Fifteen `and`s are no branch to McCabe (ruff's C90), and fifteen to lizard."""
    condition = " and ".join(f"x[{n}]" for n in range(16))
    (tmp_path / "tangled.py").write_text(f"def tangled(x):\n    return {condition}\n")
    (tmp_path / "plain.py").write_text("def plain(x):\n    return x[0] and x[1]\n")
    found = over_the_ruler([tmp_path / "tangled.py", tmp_path / "plain.py"], tmp_path)
    assert list(found) == ["tangled.py:tangled"]
    assert found["tangled.py:tangled"].endswith("complexity 16, 2 lines")


def test_the_ruler_measures_length(tmp_path: Path) -> None:
    steps = [f"    x += {n}\n" for n in range(79)]
    (tmp_path / "long.py").write_text("def long(x):\n" + "".join(steps) + "    return x\n")
    (tmp_path / "short.py").write_text("def short(x):\n" + "".join(steps[1:]) + "    return x\n")
    found = over_the_ruler([tmp_path / "long.py", tmp_path / "short.py"], tmp_path)
    assert found == {"long.py:long": "line 1: complexity 1, 81 lines"}


def test_the_ruler_sees_a_complex_script(tmp_path: Path) -> None:
    branches = "".join(f"  if (x === {n}) return {n};\n" for n in range(15))
    (tmp_path / "tangled.js").write_text(f"function tangled(x) {{\n{branches}  return -1;\n}}\n")
    (tmp_path / "plain.js").write_text("function plain(x) {\n  return x && 1;\n}\n")
    found = over_the_ruler([tmp_path / "tangled.js", tmp_path / "plain.js"], tmp_path, None)
    assert found == {"tangled.js:tangled": "line 1: complexity 16, 18 lines"}
