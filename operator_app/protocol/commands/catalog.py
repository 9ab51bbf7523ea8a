"""Which actions there are, in the order the spec and the help list them, and which family module
declares each one's model. Naming the actions needs no model: validating a command imports only
its own family (declaring a pydantic model is the costly part of exec's start), and
`all_models()` imports every family for what needs them all (the spec text, the help screen).

A family is a module of this package ending with `MODELS`, the tuple of its models. A new action
is a model in the family it belongs to and a line here; a new family is a new module with its own
base class and a line per action here (transfer.py, the actions that take a second path, is one)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Command

FAMILY_OF: dict[str, str] = {
    "operator.getInterfaceSpec": "info",
    "operator.getCommentStyle": "info",
    "fs.list": "reading",
    "fs.read": "reading",
    "fs.readSlice": "reading",
    "fs.search": "reading",
    "fs.stat": "reading",
    "fs.searchTree": "navigation",
    "fs.find": "navigation",
    "fs.tree": "navigation",
    "fs.listRegions": "regions",
    "fs.readRegion": "regions",
    "fs.insertRegion": "regions",
    "fs.replaceRegion": "regions",
    "fs.deleteRegion": "regions",
    "fs.write": "writing",
    "fs.patch": "writing",
    "fs.applyEdits": "writing",
    "fs.delete": "writing",
    "fs.copy": "transfer",
    "fs.move": "transfer",
    "fs.rename": "transfer",
    "shell.run": "shell",
}
ACTION_NAMES: tuple[str, ...] = tuple(FAMILY_OF)
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(FAMILY_OF.values()))


def family_models(family: str) -> tuple[type[Command], ...]:
    models: tuple[type[Command], ...] = importlib.import_module(f"{__package__}.{family}").MODELS
    return models


_FOUND: dict[str, type[Command]] = {}  # every block asks: the import machinery once per action


def model_for(action: str) -> type[Command] | None:
    """The model of `action`, declared on first use; None for an action that does not exist."""
    model = _FOUND.get(action)
    if model is not None:
        return model
    family = FAMILY_OF.get(action)
    if family is None:
        return None
    model = _FOUND[action] = next(
        model for model in family_models(family) if action == model.ACTION
    )
    return model


def all_models() -> dict[str, type[Command]]:
    """action -> model for every action, in ACTION_NAMES order."""
    by_action = {model.ACTION: model for family in FAMILIES for model in family_models(family)}
    return {action: by_action[action] for action in ACTION_NAMES}
