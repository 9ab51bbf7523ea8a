"""One frozen pydantic model per action: fields, aliases, defaults, limits and the error code of
each field are declared once, in the family module of the action (info, reading, navigation,
regions, writing, transfer; catalog.py says which). `validate_command()` turns parsed fields into a
command or an `OperatorError`; spec.py renders the ACTIONS section of the interface text from the
same declarations, and the TUI's help reads them too.

Every name is also reachable here (`commands.FsRead`, `commands.ACTIONS`), but only on first use:
running one command declares the models of its own family, not all of them.
May import: protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .catalog import ACTION_NAMES, FAMILY_OF, all_models, model_for

if TYPE_CHECKING:
    from .base import Command, FsCommand
    from .info import GetCommentStyle, GetInterfaceSpec
    from .keys import alias_map, field_meta
    from .navigation import FsFind, FsSearchTree, FsTree
    from .reading import FsList, FsRead, FsReadSlice, FsSearch, FsStat
    from .regions import (
        CommentStyleFields,
        FsDeleteRegion,
        FsInsertRegion,
        FsListRegions,
        FsReadRegion,
        FsReplaceRegion,
        MarkerFields,
    )
    from .shell import ShellRun
    from .transfer import FsCopy, FsMove, FsRename, TwoPathCommand
    from .validation import Validated, validate_command, validate_fields
    from .writing import FsApplyEdits, FsDelete, FsPatch, FsWrite

    ACTIONS: dict[str, type[Command]]

_ELSEWHERE = {
    "Command": "base",
    "FsCommand": "base",
    "CommentStyleFields": "regions",
    "MarkerFields": "regions",
    "validate_command": "validation",
    "alias_map": "keys",
    "field_meta": "keys",
    "validate_fields": "validation",
    "Validated": "validation",
    "TwoPathCommand": "transfer",
}

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "FAMILY_OF",
    "Command",
    "CommentStyleFields",
    "FsApplyEdits",
    "FsCommand",
    "FsCopy",
    "FsDelete",
    "FsDeleteRegion",
    "FsFind",
    "FsInsertRegion",
    "FsList",
    "FsListRegions",
    "FsMove",
    "FsPatch",
    "FsRead",
    "FsReadRegion",
    "FsReadSlice",
    "FsRename",
    "FsReplaceRegion",
    "FsSearch",
    "FsSearchTree",
    "FsStat",
    "FsTree",
    "FsWrite",
    "GetCommentStyle",
    "GetInterfaceSpec",
    "MarkerFields",
    "ShellRun",
    "TwoPathCommand",
    "Validated",
    "alias_map",
    "all_models",
    "field_meta",
    "model_for",
    "validate_command",
    "validate_fields",
]


def __getattr__(name: str) -> Any:
    import importlib

    if name == "ACTIONS":
        return all_models()
    module = _ELSEWHERE.get(name)
    if module is not None:
        return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    for model in all_models().values():
        if model.__name__ == name:
            return model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
