"""The TUI app's state has one owner per concern. Each object of operator_app/tui/app_state.py
names in its docstring ("Changed by: ...") the one module whose code changes it; host.py declares
which attribute of the app holds it, once. This test holds every assignment in operator_app/tui to
that: a field of a state object is set only by its owner (or by the object's own methods), the
objects themselves only by app.py, which creates them, and a mixin never sets an attribute of the
app of its own (Textual's own, such as `sub_title`, are the app's to set)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.app import App

TUI = Path(__file__).resolve().parents[2] / "operator_app" / "tui"
# Calls that change the container or event they are made on.
MUTATORS = frozenset(
    {"add", "append", "clear", "discard", "extend", "insert", "pop", "popitem", "remove", "set"}
    | {"setdefault", "update"}
)


def owners_of_states(source: str) -> dict[str, frozenset[str]]:
    """State class -> the modules its "Changed by:" line names (none: only its own methods)."""
    found = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        doc = " ".join((ast.get_docstring(node) or "").split())
        match = re.search(r"Changed by: ([^(]*)", doc)
        assert match is not None, f"{node.name} does not say which module changes it"
        named = match.group(1)
        is_own = named.startswith(("its own methods", "nothing"))
        found[node.name] = frozenset() if is_own else frozenset(re.findall(r"\w+\.py", named))
    return found


def state_attributes(host_source: str, states: dict[str, frozenset[str]]) -> dict[str, str]:
    """Attribute of the app -> the state class it holds, as AppHost declares them."""
    found = {}
    for node in ast.walk(ast.parse(host_source)):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id in states
        ):
            found[node.target.id] = node.annotation.id
    return found


def chain(node: ast.expr) -> list[str]:
    """`self.book.states[n]` -> ["self", "book", "states"]; [] when it is not a name's chain."""
    names: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            names.insert(0, node.attr)
        node = node.value
    return [node.id, *names] if isinstance(node, ast.Name) else []


def targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        found = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        found = [node.target]
    elif isinstance(node, ast.Delete):
        found = list(node.targets)
    else:
        return []
    flat: list[ast.expr] = []
    while found:
        target = found.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            found.extend(target.elts)
        else:
            flat.append(target)
    return flat


def changes_in(function: ast.AST, attributes: dict[str, str]) -> list[tuple[int, list[str], bool]]:
    """(line, chain from `self`, whether by a call) of every change the function makes to
    something it reaches through `self`, a local name for one of the app's state objects
    (`known = self.undo_state`) counting as the chain it stands for."""
    aliases: dict[str, list[str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            named, value = node.targets[0], chain(node.value)
            if (
                isinstance(named, ast.Name)
                and value[:1] == ["self"]
                and value[1:2] in ([name] for name in attributes)
            ):
                aliases[named.id] = value
    found = []
    for node in ast.walk(function):
        changed, by_call = targets(node), False
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Attribute) and called.attr in MUTATORS:
            changed, by_call = [called.value], True
        for target in changed:
            names = chain(target)
            if len(names) > 1 and names[0] in aliases:  # (binding the name again changes nothing)
                names = aliases[names[0]] + names[1:]
            if names[:1] == ["self"] and len(names) > 1:
                found.append((node.lineno, names, by_call))
    return found


def violations(
    module: str, source: str, attributes: dict[str, str], owners: dict[str, frozenset[str]]
) -> list[str]:
    """What `module` (a file name in operator_app/tui) changes that is not its own to change."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or module == "app_state.py":
            continue
        mixin = any(isinstance(base, ast.Name) and base.id == "AppHost" for base in node.bases)
        for function in node.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for line, names, by_call in changes_in(function, attributes):
                where = f"{module}:{line}: self.{'.'.join(names[1:])}"
                held = attributes.get(names[1])
                if held is not None and len(names) == 2 and by_call:
                    continue  # a state object's own method: it keeps its fields as they belong
                if held is None:
                    if mixin and len(names) == 2 and not hasattr(App, names[1]):
                        found.append(f"{where}: a mixin sets an attribute of the app")
                elif len(names) == 2 and module != "app.py":
                    found.append(f"{where}: only app.py creates the state objects")
                elif len(names) > 2 and module not in owners[held]:
                    owned = ", ".join(sorted(owners[held])) or f"{held}'s own methods"
                    found.append(f"{where}: {held} is changed by {owned} only")
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


def tui_state() -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    owners = owners_of_states((TUI / "app_state.py").read_text(encoding="utf-8"))
    return state_attributes((TUI / "host.py").read_text(encoding="utf-8"), owners), owners


def test_each_state_object_is_changed_by_its_owner_only() -> None:
    attributes, owners = tui_state()
    found = [
        problem
        for path in sorted(TUI.rglob("*.py"))
        for problem in violations(path.name, path.read_text(encoding="utf-8"), attributes, owners)
    ]
    assert found == []


def test_every_state_object_is_declared_once_and_has_an_owner() -> None:
    attributes, owners = tui_state()
    assert sorted(attributes.values()) == sorted(owners), "host.py declares each state once"
    app = ast.parse((TUI / "app.py").read_text(encoding="utf-8"))
    redeclared = [
        node.lineno
        for node in ast.walk(app)
        if isinstance(node, ast.AnnAssign)
        and chain(node.target) in (["self", name] for name in attributes)
    ]
    assert redeclared == [], "app.py declares again what host.py declares"


# As copy_undo.py: what it may change (its UndoState, even through a local name, Textual's own
# title, the book through the book's methods) and what it may not.
MIXIN = """
class CopyUndoMixin(AppHost):
    def checked(self) -> None:
        known = self.undo_state
        known.can_undo = True
        self.title = "Operator"
        self.book.clear()

    def trespasses(self) -> None:
        self.waiting.write = None
        asking = self.waiting
        asking.quit_question = None
        self.copies.texts.add("x")
        self._can_undo = True
        self.book.states[3] = None
        self.waiting = None
"""


def test_the_check_sees_a_change_made_by_another_module() -> None:
    owners = {"WaitingWrite": frozenset({"waiting_write.py"}), "OwnCopies": frozenset()}
    owners |= {"UndoState": frozenset({"copy_undo.py"}), "MessageBook": frozenset()}
    attributes = {"waiting": "WaitingWrite", "copies": "OwnCopies"}
    attributes |= {"undo_state": "UndoState", "book": "MessageBook"}
    waiting, own = "WaitingWrite is changed by waiting_write.py only", "'s own methods only"
    assert violations("copy_undo.py", MIXIN, attributes, owners) == [
        f"copy_undo.py:10: self.waiting.write: {waiting}",
        f"copy_undo.py:12: self.waiting.quit_question: {waiting}",
        f"copy_undo.py:13: self.copies.texts: OwnCopies is changed by OwnCopies{own}",
        "copy_undo.py:14: self._can_undo: a mixin sets an attribute of the app",
        f"copy_undo.py:15: self.book.states: MessageBook is changed by MessageBook{own}",
        "copy_undo.py:16: self.waiting: only app.py creates the state objects",
    ]
