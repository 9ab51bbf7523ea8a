"""The layers only point one way: the pure protocol core knows no filesystem and no front end, the
engine knows no front end, the headless cli knows nothing of the TUI, the browser bridge sits
beside cli and tui (it uses protocol, engine and settings; only the TUI and the entry point use
it), and settings.py is a leaf. Read from every module's own imports with ast (a lazy import
inside a function is an arrow too, and so is importlib.import_module("...") with a literal
name), not from a grep of the text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "operator_app"

# layer -> the layers it must never import. "entry" (operator_app/entry.py and __main__.py)
# stands above the front ends and may import any of them.
FORBIDDEN: dict[str, frozenset[str]] = {
    "protocol": frozenset({"engine", "cli", "tui", "bridge", "settings", "entry"}),
    "engine": frozenset({"cli", "tui", "bridge", "settings", "entry"}),
    "cli": frozenset({"tui", "bridge", "entry"}),
    "bridge": frozenset({"cli", "tui", "entry"}),
    "tui": frozenset({"cli", "entry"}),
    "settings": frozenset({"root", "protocol", "engine", "cli", "tui", "bridge", "entry"}),
    "root": frozenset({"protocol", "engine", "cli", "tui", "bridge", "settings", "entry"}),
    "entry": frozenset(),
}


def layer_of(module: str) -> str | None:
    """The layer of a dotted module name inside the package, None for anything outside it."""
    parts = module.split(".")
    if parts[0] != "operator_app":
        return None
    if len(parts) == 1:
        return "root"
    head = parts[1]
    if head in ("protocol", "engine", "cli", "tui", "bridge", "settings"):
        return head
    if head in ("entry", "__main__"):
        return "entry"
    return f"unplaced:{head}"  # a new top-level module: give it a layer here


def module_name(path: Path, root: Path) -> str:
    relative = path.relative_to(root.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, wherever it stands."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from operator_app import tui` names a module of another layer after the package.
            for alias in node.names:
                named = f"{target}.{alias.name}"
                found.append((node.lineno, named if layer_of(named) != layer_of(target) else target))
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            found.append((node.lineno, node.args[0].value))
    return sorted(set(found))


def wrong_arrows(root: Path) -> list[str]:
    problems = []
    for path in sorted(root.rglob("*.py")):
        source = module_name(path, root)
        here = layer_of(source)
        assert here is not None
        if here.startswith("unplaced:"):
            problems.append(f"{source}: a module outside the known layers ({here[9:]}); place it in test_layers.py")
            continue
        for line, target in imported_names(path, root):
            there = layer_of(target)
            if there is not None and there in FORBIDDEN[here]:
                problems.append(f"{path.relative_to(root.parent)}:{line}: {here} imports {target} ({there})")
    return problems


def test_no_arrow_points_against_the_layers() -> None:
    assert wrong_arrows(PACKAGE) == []


def test_the_entry_point_sits_above_both_front_ends() -> None:
    entry = {target for _, target in imported_names(PACKAGE / "entry.py", PACKAGE)}
    assert {layer_of(target) for target in entry} >= {"cli", "tui"}
    main = {target for _, target in imported_names(PACKAGE / "__main__.py", PACKAGE)}
    assert {layer_of(target) for target in main} == {"entry"}


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "operator_app"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        for parent in path.relative_to(root).parents:
            (root / parent / "__init__.py").touch()
    return root


@pytest.mark.parametrize(("files", "expected"), [
    ({"protocol/commands.py": "def f():\n    from ..engine.textops import edits\n"},
     "operator_app/protocol/commands.py:2: protocol imports operator_app.engine.textops"),
    ({"protocol/spec.py": "import operator_app.cli.main\n"}, "protocol imports operator_app.cli.main (cli)"),
    ({"engine/x.py": "from operator_app import tui\n"}, "engine imports operator_app.tui (tui)"),
    ({"cli/main.py": "def run():\n    from ..tui.launch import launch\n"}, "cli imports operator_app.tui.launch (tui)"),
    ({"cli/main.py": "import importlib\nimportlib.import_module('operator_app.tui.app')\n"},
     "cli imports operator_app.tui.app (tui)"),
    ({"cli/main.py": "from ..bridge import server\n"}, "cli imports operator_app.bridge (bridge)"),
    ({"engine/x.py": "from ..bridge.server import serve\n"}, "engine imports operator_app.bridge.server (bridge)"),
    ({"bridge/server.py": "from ..cli.envelope import respond\n"}, "bridge imports operator_app.cli.envelope (cli)"),
    ({"bridge/server.py": "from ..tui import app\n"}, "bridge imports operator_app.tui (tui)"),
    ({"settings.py": "from .protocol.errors import ErrorCode\n"}, "settings imports operator_app.protocol.errors"),
    ({"helpers.py": "x = 1\n"}, "a module outside the known layers (helpers)"),
])
def test_the_check_sees_each_kind_of_wrong_arrow(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    problems = wrong_arrows(_tree(tmp_path, files))
    assert len(problems) == 1 and expected in problems[0], problems


def test_the_check_lets_the_allowed_arrows_pass(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "protocol/spec.py": "from . import commands\nfrom .errors import ErrorCode\n",
        "protocol/commands.py": "", "protocol/errors.py": "",
        "engine/executor.py": "from ..protocol import commands\n",
        "cli/main.py": "from ..engine.executor import Engine\nfrom .. import __version__\n",
        "bridge/server.py": "from ..engine import executor\nfrom ..protocol import spec\nfrom .. import settings\n",
        "tui/app.py": "from ..bridge import server\nfrom ..settings import Settings\n",
        "entry.py": "from .cli import main\nfrom .tui import launch\nfrom .bridge import command\n",
        "__main__.py": "from .entry import main\n",
        "settings.py": "import json\n",
    })
    assert wrong_arrows(root) == []
