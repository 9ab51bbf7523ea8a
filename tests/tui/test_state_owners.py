"""The TUI app's state has one owner per concern. Each object of operator_app/tui/app_state.py
names in its docstring ("Changed by: ...") the one module whose code changes it: the controller
that owns it. This test holds every change in operator_app/tui to that:

- a field of a state object is set only by its owner (or by the object's own methods);
- the state objects are created by app.py only, which hands each to its owner and to the
  controllers that read it; a controller binds one to an attribute in its `__init__` only;
- a controller never sets an attribute of the app (Textual's own, such as `sub_title`, are the
  app's to set) nor of another controller: it calls their methods.

What an attribute holds is read from the code's annotations: a class's annotated attributes and
the annotated parameters of its `__init__` that it binds to attributes (a local name bound to one
of them counts as the attribute: `known = self.undo`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.app import App

TUI = Path(__file__).resolve().parents[2] / "operator_app" / "tui"
APP = "AppLink"  # the app as the controllers see it (app_link.py)
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


def type_name(annotation: ast.expr | None) -> str | None:
    """`MessageBook`, `"MessageBook"` -> "MessageBook"; None for anything else."""
    if isinstance(annotation, ast.Name):
        return annotation.id
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value if annotation.value.isidentifier() else None
    return None


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


def bound_pairs(node: ast.Assign) -> list[tuple[ast.expr, ast.expr]]:
    """`self.a, self.b = a, b` -> [(self.a, a), (self.b, b)]."""
    (target,) = node.targets if len(node.targets) == 1 else (None,)
    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
        return list(zip(target.elts, node.value.elts, strict=False))
    return [(target, node.value)] if target is not None else []


def attributes_of(cls: ast.ClassDef) -> dict[str, str]:
    """Attribute -> the type name it is annotated with, as the class declares it."""
    found: dict[str, str] = {}
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            named = type_name(node.annotation)
            if named is not None:
                found[node.target.id] = named
    init = next(
        (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )
    if init is None:
        return found
    params = {
        arg.arg: named
        for arg in [*init.args.args, *init.args.kwonlyargs]
        if (named := type_name(arg.annotation)) is not None
    }
    for node in ast.walk(init):
        if isinstance(node, ast.AnnAssign) and chain(node.target)[:1] == ["self"]:
            named = type_name(node.annotation)
            if named is not None and len(chain(node.target)) == 2:
                found[chain(node.target)[1]] = named
        if isinstance(node, ast.Assign):
            for target, value in bound_pairs(node):
                names = chain(target)
                if names[:1] != ["self"] or len(names) != 2:
                    continue
                if isinstance(value, ast.Name) and value.id in params:
                    found[names[1]] = params[value.id]
                elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                    found[names[1]] = value.func.id
    return found


def changes_in(function: ast.AST, watched: set[str]) -> list[tuple[int, list[str], bool]]:
    """(line, chain from `self`, whether by a call) of every change the function makes to
    something it reaches through one of the `watched` attributes of `self` (or sets on `self`
    itself), a local name bound to `self.<watched>...` counting as the chain it stands for."""
    aliases: dict[str, list[str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            named, value = node.targets[0], chain(node.value)
            if (
                isinstance(named, ast.Name)
                and value[:1] == ["self"]
                and value[1:2] in ([name] for name in watched)
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
    module: str,
    source: str,
    owners: dict[str, frozenset[str]],
    controllers: frozenset[str],
) -> list[str]:
    """What `module` (a file name in operator_app/tui) changes that is not its own to change.
    `controllers`: the classes that take the app (an AppLink) in their `__init__`."""
    found = []
    for cls in ast.walk(ast.parse(source)):
        if not isinstance(cls, ast.ClassDef) or module == "app_state.py":
            continue
        held = attributes_of(cls)
        for function in cls.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for line, names, by_call in changes_in(function, set(held)):
                where = f"{module}:{line}: self.{'.'.join(names[1:])}"
                kind = held.get(names[1])
                if kind in owners:
                    if len(names) == 2 and by_call:
                        continue  # a state object's own method: it keeps its fields as they belong
                    if len(names) == 2 and function.name != "__init__":
                        found.append(f"{where}: a state object is bound in __init__ only")
                    elif len(names) > 2 and module not in owners[kind]:
                        owned = ", ".join(sorted(owners[kind])) or f"{kind}'s own methods"
                        found.append(f"{where}: {kind} is changed by {owned} only")
                elif kind == APP and len(names) > 2 and not by_call:
                    if not hasattr(App, names[2]):
                        found.append(f"{where}: a controller sets an attribute of the app")
                elif kind in controllers and len(names) > 2 and not by_call:
                    found.append(f"{where}: a controller sets an attribute of another")
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


def creations(module: str, source: str, states: dict[str, frozenset[str]]) -> list[str]:
    """Where `module` creates a state object (`MessageBook()`)."""
    return [
        f"{module}:{node.lineno}: {node.func.id}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in states
    ]


def controllers_in(sources: dict[str, str]) -> frozenset[str]:
    """The classes whose `__init__` takes the app (an AppLink)."""
    return frozenset(
        cls.name
        for source in sources.values()
        for cls in ast.walk(ast.parse(source))
        if isinstance(cls, ast.ClassDef) and APP in attributes_of(cls).values()
    )


def tui_sources() -> dict[str, str]:
    return {
        str(path.relative_to(TUI)): path.read_text(encoding="utf-8")
        for path in sorted(TUI.rglob("*.py"))
    }


def test_each_state_object_is_changed_by_its_owner_only() -> None:
    owners = owners_of_states((TUI / "app_state.py").read_text(encoding="utf-8"))
    sources = tui_sources()
    controllers = controllers_in(sources)
    found = [
        problem
        for module, source in sources.items()
        for problem in violations(module, source, owners, controllers)
    ]
    assert found == []


def test_only_the_app_creates_the_state_objects_and_each_has_an_owner() -> None:
    owners = owners_of_states((TUI / "app_state.py").read_text(encoding="utf-8"))
    made = [
        where
        for module, source in tui_sources().items()
        if module != "app_state.py"
        for where in creations(module, source, owners)
    ]
    assert sorted(where.split(": ")[1] for where in made) == sorted(owners), made
    assert all(where.startswith("app.py:") for where in made), made
    tui = {path.name for path in TUI.rglob("*.py")}
    for state, modules in owners.items():
        assert modules <= tui, f"{state} names an owner that is not a module of the TUI"


def test_the_controllers_are_plain_objects_routed_by_the_app() -> None:
    """No mixins: the app's one base is App, and each controller's is none (it is composed)."""
    sources = tui_sources()
    app = next(
        node
        for node in ast.walk(ast.parse(sources["app.py"]))
        if isinstance(node, ast.ClassDef) and node.name == "OperatorApp"
    )
    assert [ast.unparse(base) for base in app.bases] == ["App[None]"]
    controllers = controllers_in(sources)
    assert len(controllers) >= 7
    for source in sources.values():
        for cls in ast.walk(ast.parse(source)):
            if isinstance(cls, ast.ClassDef) and cls.name in controllers:
                assert cls.bases == [], f"{cls.name} is composed, not inherited"
    assert not (TUI / "host.py").exists()


# As a controller of undo.py: what it may change (its UndoState, even through a local name,
# Textual's own title, the book through the book's methods) and what it may not.
CONTROLLER = """
class UndoControl:
    retries: int

    def __init__(
        self, app: AppLink, book: MessageBook, known: UndoState, waiting: WaitingWrite,
        copies: OwnCopies, consent: WaitingWriteControl,
    ) -> None:
        self.app, self.book, self.known = app, book, known
        self.waiting, self.copies = waiting, copies
        self.consent = consent

    def checked(self) -> None:
        known = self.known
        known.can_undo = True
        self.app.sub_title = "Operator"
        self.book.clear()
        self.app.notify("fine")
        self.retries = 1

    def trespasses(self) -> None:
        self.waiting.write = None
        asking = self.waiting
        asking.quit_question = None
        self.copies.texts.add("x")
        self.app.can_undo = True
        self.book.states[3] = None
        self.waiting = None
        self.consent.asked = None
"""


def test_the_check_sees_a_change_made_by_another_module() -> None:
    owners = {"WaitingWrite": frozenset({"waiting_write.py"}), "OwnCopies": frozenset()}
    owners |= {"UndoState": frozenset({"undo.py"}), "MessageBook": frozenset()}
    controllers = frozenset({"UndoControl", "WaitingWriteControl"})
    waiting, own = "WaitingWrite is changed by waiting_write.py only", "'s own methods only"
    assert violations("undo.py", CONTROLLER, owners, controllers) == [
        f"undo.py:22: self.waiting.write: {waiting}",
        f"undo.py:24: self.waiting.quit_question: {waiting}",
        f"undo.py:25: self.copies.texts: OwnCopies is changed by OwnCopies{own}",
        "undo.py:26: self.app.can_undo: a controller sets an attribute of the app",
        f"undo.py:27: self.book.states: MessageBook is changed by MessageBook{own}",
        "undo.py:28: self.waiting: a state object is bound in __init__ only",
        "undo.py:29: self.consent.asked: a controller sets an attribute of another",
    ]
    made = creations("undo.py", "def f():\n    return UndoState(), Row()\n", owners)
    assert made == ["undo.py:2: UndoState"]


# What a worker may ask of the app: everything else runs on the UI thread (app_link.py).
THREAD_SAFE = frozenset({"post_message", "on_ui_thread", "stopping"})


def worker_methods(cls: ast.ClassDef) -> set[str]:
    """The methods whose docstring says they run on a worker."""
    return {
        node.name
        for node in cls.body
        if isinstance(node, ast.FunctionDef)
        and (ast.get_docstring(node) or "").startswith("On a worker")
    }


def run_in_thread(call: ast.Call) -> list[str]:
    """The methods of `self` an `in_thread(...)` call runs: `self.m`, `lambda: self.m(...)` or
    `partial(self.m, ...)`; "?" when it runs something else."""
    work = call.args[0] if call.args else None
    if isinstance(work, ast.Lambda) and isinstance(work.body, ast.Call):
        work = work.body.func
    elif isinstance(work, ast.Call) and chain(work.func) == ["partial"] and work.args:
        work = work.args[0]
    names = chain(work) if work is not None else []
    return [names[1]] if len(names) == 2 and names[0] == "self" else ["?"]


def ui_side(names: list[str]) -> bool:
    """Whether `self.panes.x` or `self.app.x` (`names`) is the UI thread's to use."""
    if len(names) < 3 or names[0] != "self":
        return False
    return names[1] == "panes" or (names[1] == "app" and names[2] not in THREAD_SAFE)


def thread_problems(module: str, source: str) -> list[str]:
    """Where a worker of `module` touches what belongs to the UI thread, and where `in_thread`
    runs what does not say it runs on a worker."""
    found = []
    for cls in ast.walk(ast.parse(source)):
        if not isinstance(cls, ast.ClassDef):
            continue
        workers = worker_methods(cls)
        for function in cls.body:
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and chain(node.func)[-1:] == ["in_thread"]:
                    for name in run_in_thread(node):
                        if name not in workers:
                            found.append(f"{module}:{node.lineno}: in_thread runs {name}")
                if function.name not in workers:
                    continue
                names = chain(node) if isinstance(node, ast.Attribute) else []
                if ui_side(names):
                    found.append(f"{module}:{node.lineno}: a worker uses {'.'.join(names[:3])}")
                called = chain(node.func) if isinstance(node, ast.Call) else []
                if called[:1] == ["self"] and len(called) == 2 and called[1] not in workers:
                    # (a method handed to on_ui_thread is not called here: it runs on the UI)
                    found.append(f"{module}:{node.lineno}: a worker calls self.{called[1]}")
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


def test_workers_post_messages_and_touch_no_widget() -> None:
    sources = tui_sources()
    assert [p for module, s in sources.items() for p in thread_problems(module, s)] == []
    workers = sum(
        len(worker_methods(cls))
        for source in sources.values()
        for cls in ast.walk(ast.parse(source))
        if isinstance(cls, ast.ClassDef)
    )
    assert workers >= 8  # the check sees them: each controller's workers say so


WORKERS = """
class CopyControl:
    def copy(self) -> None:
        self.app.in_thread(partial(self._deliver, 1), group="copy")
        self.app.in_thread(lambda: self.show(2), group="copy")

    def _deliver(self, n: int) -> None:
        \"\"\"On a worker.\"\"\"
        self.app.post_message(n)
        self.panes.status("copied")
        self.app.notify("copied")
        self.show(n)

    def show(self, n: int) -> None:
        self.panes.status(str(n))
"""


def test_the_thread_check_sees_a_worker_on_the_ui_side() -> None:
    assert thread_problems("copies.py", WORKERS) == [
        "copies.py:5: in_thread runs show",
        "copies.py:10: a worker uses self.panes.status",
        "copies.py:11: a worker uses self.app.notify",
        "copies.py:12: a worker calls self.show",
    ]
