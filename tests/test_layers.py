"""The import rules of the package, read from the package itself: every package's `__init__.py`
(and a top-level module that needs its own) ends its docstring with a line "May import: ..."
naming what its modules may import of operator_app besides their own package. This test holds
every import against those lines and walks the whole import graph for circles: a lazy import
inside a function is an arrow too, as is one under TYPE_CHECKING and importlib.import_module
with a literal name. docs/design.md describes the layers the lines add up to."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "operator_app"
_RULE_RE = re.compile(r"^May import: (.*?)\.?\s*$", re.M)
ANY = frozenset({"*"})


@dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. operator_app.engine.boundary.workspace
    path: Path
    is_package: bool

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]


def modules_of(root: Path) -> dict[str, Module]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = Module(".".join(parts), path, is_package)
    return found


def imported_names(module: Module, modules: dict[str, Module]) -> list[tuple[int, str]]:
    """(line, module of operator_app) for every import in the module, wherever it stands; a name
    imported from a package is that package's module when one has the name."""
    top = module.name.split(".")[0]
    found: set[tuple[int, str]] = set()
    for node in ast.walk(
        ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))
    ):
        if isinstance(node, ast.Import):
            found |= {(node.lineno, alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                named = f"{target}.{alias.name}"
                found.add((node.lineno, named if named in modules else target))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in ("import_module", "__import__")
                )
            )
        ):
            found.add((node.lineno, node.args[0].value))
    return sorted((line, name) for line, name in found if name.split(".")[0] == top)


def _expand(item: str, package: str, top: str) -> list[str]:
    """One item of a rule as dotted names: "engine.{a, b}" -> engine.a, engine.b; a leading dot is
    relative to the package the rule belongs to, as in Python ("..plan" is a sibling of it)."""
    head, _, braced = item.partition("{")
    names = [head + part.strip() for part in braced.rstrip("}").split(",")] if braced else [head]
    out = []
    for name in names:
        if name.startswith("."):
            dots = len(name) - len(name.lstrip("."))
            base = package.split(".")
            out.append(".".join(base[: len(base) - (dots - 1)] + [name[dots:]]))
        else:
            out.append(f"{top}.{name}")
    return out


def rule_of(module: Module) -> frozenset[str] | None:
    """What the module's own docstring allows, None when it has no rule line."""
    doc = ast.get_docstring(ast.parse(module.path.read_text(encoding="utf-8"))) or ""
    match = _RULE_RE.search(doc)
    if match is None:
        return None
    text = match.group(1).strip()
    if text.startswith("nothing else"):
        return frozenset()
    if text.startswith("any package"):
        return ANY
    top = module.name.split(".")[0]
    items = re.findall(r"[.\w]+(?:\{[^}]*\})?", text)
    return frozenset(name for item in items for name in _expand(item, module.package, top))


def governing(module: Module, modules: dict[str, Module]) -> tuple[str, frozenset[str]]:
    """(the scope inside which imports are free, the rule) of a module: its own rule line, else
    the nearest package's above it."""
    own = rule_of(module)
    if own is not None:
        return (module.package if module.is_package else module.name), own
    package = module.package
    while package:
        rule = rule_of(modules[package])
        if rule is not None:
            return package, rule
        package = package.rpartition(".")[0]
    raise AssertionError(f"{module.name}: no 'May import:' line in it or any package above it")


def _inside(name: str, scope: str) -> bool:
    return name == scope or name.startswith(scope + ".")


def wrong_arrows(root: Path) -> list[str]:
    modules = modules_of(root)
    problems = []
    for module in modules.values():
        if module.is_package and rule_of(module) is None:
            problems.append(f"{module.name}: its __init__.py docstring has no 'May import:' line")
            continue
        scope, allowed = governing(module, modules)
        if allowed is ANY:
            continue
        for line, target in imported_names(module, modules):
            if (
                target == root.name
                or _inside(target, scope)
                or any(_inside(target, a) for a in allowed)
            ):
                continue
            problems.append(
                f"{module.path.relative_to(root.parent)}:{line}: {module.name} imports {target}, "
                "which its rule does not allow "
                f"({scope}: {', '.join(sorted(allowed)) or 'nothing'})"
            )
    return problems


def circles(root: Path) -> list[list[str]]:
    """Every set of modules that import each other round in a loop (strongly connected, Tarjan)."""
    modules = modules_of(root)
    arrows = {name: set() for name in modules}
    for module in modules.values():
        for _, target in imported_names(module, modules):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != module.name:
                arrows[module.name].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:  # recursion depth is the package's import depth: small
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in sorted(arrows[name]):
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            members = []
            while True:
                member = stack.pop()
                members.append(member)
                if member == name:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for name in sorted(arrows):
        if name not in index:
            visit(name)
    return found


FRONT_ENDS = ("tui", "cli", "bridge", "entry")  # what stands above the engine and the protocol
FACES = ("engine", "protocol")  # whose __init__ holds the names front ends may use


def below_faces(root: Path) -> list[str]:
    """Imports of a front end that reach past the engine's or the protocol's face into a module
    below it (`from ..engine.executor import Engine` instead of `from ..engine import Engine`)."""
    modules = modules_of(root)
    top = root.name
    faces = [f"{top}.{face}" for face in FACES]
    problems = []
    for module in modules.values():
        if not any(_inside(module.name, f"{top}.{front}") for front in FRONT_ENDS):
            continue
        for line, target in imported_names(module, modules):
            for face in faces:
                if target != face and _inside(target, face):
                    problems.append(
                        f"{module.path.relative_to(root.parent)}:{line}: {module.name} imports "
                        f"{target}, below the face of {face} (import the name from {face})"
                    )
    return problems


def test_every_import_keeps_to_its_package_rule() -> None:
    assert wrong_arrows(PACKAGE) == []


def test_front_ends_use_the_faces_only() -> None:
    assert below_faces(PACKAGE) == []


def test_the_face_check_sees_an_import_below_a_face(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "engine/executor.py": "",
            "cli/main.py": "from ..engine import Engine\nfrom ..engine.executor import Engine\n",
            "tui/app.py": "def f():\n    from ..protocol import commands\n",
            "protocol/commands.py": "",
        },
    )
    problems = below_faces(root)
    assert len(problems) == 2, problems
    assert "operator_app.cli.main imports operator_app.engine.executor" in problems[0]
    assert "operator_app.tui.app imports operator_app.protocol.commands" in problems[1]


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert circles(PACKAGE) == []


def test_the_engine_packages_are_floors() -> None:
    """The engine's subpackages, by their rules, only import downwards: no two allow each other,
    even through a third."""
    modules = modules_of(PACKAGE)
    engine = {
        name: module
        for name, module in modules.items()
        if module.is_package and name.count(".") == 2 and name.startswith("operator_app.engine.")
    }
    allows = {
        name: {
            other
            for other in engine
            if other != name
            and any(_inside(a, other) or _inside(other, a) for a in rule_of(module) or ())
        }
        for name, module in engine.items()
    }
    seen: dict[str, set[str]] = {}

    def below(name: str, path: tuple[str, ...] = ()) -> set[str]:
        assert name not in path, (
            f"engine packages allow each other round: {' -> '.join(path + (name,))}"
        )
        if name not in seen:
            seen[name] = set(allows[name]).union(
                *(below(other, path + (name,)) for other in allows[name])
            )
        return seen[name]

    assert len(engine) >= 7
    for name in engine:
        below(name)


def test_the_entry_point_sits_above_both_front_ends() -> None:
    modules = modules_of(PACKAGE)
    entry = {target for _, target in imported_names(modules["operator_app.entry"], modules)}
    assert any(_inside(t, "operator_app.cli") for t in entry) and any(
        _inside(t, "operator_app.tui") for t in entry
    )
    main = {target for _, target in imported_names(modules["operator_app.__main__"], modules)}
    assert main == {"operator_app.entry"}


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "operator_app"
    rules = {
        "__init__.py": "nothing else of operator_app",
        "protocol/__init__.py": "nothing else of operator_app",
        "engine/__init__.py": "protocol",
        "engine/low/__init__.py": "protocol",
        "engine/high/__init__.py": "protocol, engine.low",
        "engine/high/kind/__init__.py": "protocol, engine.low, ..plan",
        "cli/__init__.py": "protocol, engine, settings",
        "tui/__init__.py": "protocol, engine, settings",
    }
    for name, text in {
        **{path: f'"""A package.\nMay import: {rule}."""\n' for path, rule in rules.items()},
        **files,
    }.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "protocol/commands.py": "def f():\n    from ..engine.low import edits\n",
                "engine/low/edits.py": "",
            },
            (
                "operator_app/protocol/commands.py:2: operator_app.protocol.commands imports "
                "operator_app.engine.low.edits"
            ),
        ),
        (
            {"engine/low/x.py": "from ..high import y\n", "engine/high/y.py": ""},
            "engine.low.x imports operator_app.engine.high.y",
        ),
        (
            {"engine/x.py": "from operator_app import tui\n"},
            "operator_app.engine.x imports operator_app.tui,",
        ),
        (
            {"cli/main.py": "import importlib\nimportlib.import_module('operator_app.tui.app')\n"},
            "operator_app.cli.main imports operator_app.tui.app,",
        ),
        (
            {"engine/high/kind/a.py": "from ..other import b\n", "engine/high/other.py": ""},
            "kind.a imports operator_app.engine.high.other,",
        ),
        (
            {
                "settings.py": (
                    '"""Settings.\nMay import: nothing else of operator_app."""\n'
                    "from .protocol.errors import E\n"
                )
            },
            "operator_app.settings imports operator_app.protocol.errors",
        ),
        (
            {"helpers/__init__.py": '"""No rule."""\n'},
            "operator_app.helpers: its __init__.py docstring has no 'May import:' line",
        ),
    ],
)
def test_the_check_sees_each_kind_of_wrong_arrow(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    problems = wrong_arrows(_tree(tmp_path, files))
    assert len(problems) == 1 and expected in problems[0], problems


def test_the_check_lets_the_allowed_arrows_pass(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "protocol/spec.py": "from . import commands\nfrom .errors import ErrorCode\n",
            "protocol/commands.py": "",
            "protocol/errors.py": "",
            "engine/executor.py": "from ..protocol import commands\nfrom .high import plan\n",
            "engine/low/edits.py": "from ...protocol.errors import E\n",
            "engine/high/plan.py": "from ..low import edits\n",
            "engine/high/kind/a.py": "from ..plan import P\nfrom ...low.edits import x\n",
            "cli/main.py": "from ..engine.executor import Engine\nfrom .. import __version__\n",
            "settings.py": '"""S.\nMay import: nothing else of operator_app."""\nimport json\n',
            "entry.py": (
                '"""E.\nMay import: any package of operator_app."""\n'
                "from .cli import main\nfrom .tui import app\n"
            ),
        },
    )
    assert wrong_arrows(root) == []


def test_the_walk_finds_a_circle_through_a_lazy_import(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "engine/low/a.py": "from . import b\n",
            "engine/low/b.py": "def f():\n    from .c import x\n",
            "engine/low/c.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n"
            ),
            "engine/low/d.py": "from . import a\n",
        },
    )
    assert circles(root) == [
        ["operator_app.engine.low.a", "operator_app.engine.low.b", "operator_app.engine.low.c"]
    ]
