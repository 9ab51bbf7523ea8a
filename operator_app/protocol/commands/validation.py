"""`validate_fields()`: a block's parsed fields in, a command model (with the keys it ignored) or
an OperatorError out. The checks every action shares come first (the required fields, the
version, a known action, a path for fs.* and none for the rest, path_to only where the action
takes a second path, each field given once), each with an error that says what to do; a key the
action does not take is ignored unless it would change what the command does (extra_fields.py);
then the action's model validates its own fields, and a pydantic error becomes the field's own
ERR code. Only the chosen action's model is declared (catalog.py).
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import ValidationError

from .. import grammar
from ..errors import ErrorCode, OperatorError
from ..parser import Fields
from .base import Command
from .catalog import ACTION_NAMES, model_for
from .keys import alias_map, field_meta

# What models call the actions in other tools: a close spelling would point elsewhere
# ("fs.grep" reads like "fs.read", "fs.cat" like "fs.stat").
_ACTION_SYNONYMS = {
    "cat": "fs.read",
    "readfile": "fs.read",
    "open": "fs.read",
    "view": "fs.readSlice",
    "head": "fs.readSlice",
    "readlines": "fs.readSlice",
    "grep": "fs.search",
    "find": "fs.find",
    "glob": "fs.find",
    "locate": "fs.find",
    "findFiles": "fs.find",
    "grepTree": "fs.searchTree",
    "rg": "fs.searchTree",
    "ripgrep": "fs.searchTree",
    "searchFiles": "fs.searchTree",
    "ls": "fs.list",
    "dir": "fs.list",
    "listdir": "fs.list",
    "tree": "fs.tree",
    "outline": "fs.tree",
    "edit": "fs.applyEdits",
    "replace": "fs.applyEdits",
    "writefile": "fs.write",
    "create": "fs.write",
    "createfile": "fs.write",
    "diff": "fs.patch",
    "applypatch": "fs.patch",
    "rm": "fs.delete",
    "remove": "fs.delete",
    "unlink": "fs.delete",
    "deletefile": "fs.delete",
    "exists": "fs.stat",
    "info": "fs.stat",
}


_PATH_SYNONYMS = frozenset(
    {"file", "filename", "filepath", "file_path", "dir", "directory", "folder", "target", "path"}
)
# What models call the second path of a copy, move or rename.
_PATH_TO_SYNONYMS = frozenset(
    {
        "to",
        "dest",
        "destination",
        "dst",
        "target",
        "new_path",
        "newpath",
        "pathto",
        "to_path",
        "topath",
        "path2",
        "new_name",
        "newname",
        "target_path",
        "targetpath",
        "destination_path",
    }
)
SECOND_PATH = "path_to"


class Validated(NamedTuple):
    command: Command
    ignored: tuple[str, ...]  # keys the action does not take, harmless: the result names them


def _suggest_action(action: str) -> str:
    folded = {name.casefold(): name for name in ACTION_NAMES}
    if action.casefold() in folded:
        return f"did you mean {folded[action.casefold()]}? (actions are case-sensitive) "
    bare = action.rsplit(".", 1)[-1].replace("_", "").replace("-", "").casefold()
    synonyms = {key.casefold(): target for key, target in _ACTION_SYNONYMS.items()}
    if bare in synonyms:
        return f"did you mean {synonyms[bare]}? "
    return _suggest(action, list(ACTION_NAMES))


def _suggest(word: str, options: list[str]) -> str:
    import difflib  # only when a name is wrong: not on every start

    close = difflib.get_close_matches(word, options, n=3, cutoff=0.6)
    if not close:
        return ""
    # Equally similar by difflib's ratio ("fs.reed": fs.read and fs.tree), the fewest edits wins.
    best = min(close, key=lambda option: _edits(word, option))
    return f"did you mean {best}? "


def _edits(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions from a to b."""
    row = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, char_b in enumerate(b, 1):
            previous, row[j] = (
                row[j],
                min(row[j] + 1, row[j - 1] + 1, previous + (char_a != char_b)),
            )
    return row[-1]


def validate_command(fields: Fields) -> Command:
    return validate_fields(fields).command


def validate_fields(fields: Fields) -> Validated:
    values = fields.values
    _check_required(values)
    model = _model_of(values["action"])
    _check_workspace_keys(values, model)
    _check_path(values["action"], values)
    accepted = alias_map(model)
    _check_second_path(values["action"], values, accepted)
    data, ignored = _by_field(values["action"], values, accepted)
    try:
        return Validated(model.model_validate(data), ignored)
    except ValidationError as exc:
        raise _from_pydantic(model, exc) from None


def _check_required(values: dict[str, str]) -> None:
    """version, id and action are there, and the version is one this Operator speaks."""
    missing = [name for name in grammar.REQUIRED_FIELDS if not values.get(name)]
    if missing:
        # "Version: 1" is the likeliest way to miss a field that looks present: say so.
        miscased = [
            f"{key} is not {name}"
            for name in missing
            for key in values
            if key != name and key.lower() == name
        ]
        hint = f" (keys are case-sensitive: {', '.join(miscased)})" if miscased else ""
        raise OperatorError(
            ErrorCode.ERR_MISSING_REQUIRED_FIELDS,
            (
                f"missing {', '.join(missing)}{hint}; every OPERATOR_CMD needs version: 1, id: "
                "<unique id> and action: <action>"
            ),
        )
    if values["version"] != grammar.SUPPORTED_VERSION:
        raise OperatorError(
            ErrorCode.ERR_UNSUPPORTED_VERSION,
            f"version {values['version']!r} is not supported; use version: 1",
        )


def _model_of(action: str) -> type[Command]:
    """The model of an action a command may name (not a reserved one, and one that exists)."""
    if action in grammar.RESERVED_ACTIONS:
        raise OperatorError(
            ErrorCode.ERR_RESERVED_ACTION,
            (
                f"{action} is reserved for errors Operator reports itself; send one of: "
                f"{', '.join(ACTION_NAMES)}"
            ),
        )
    model = model_for(action)
    if model is None:
        raise OperatorError(
            ErrorCode.ERR_UNKNOWN_ACTION,
            (
                f"action {action} is not defined; {_suggest_action(action)}Actions: "
                f"{', '.join(ACTION_NAMES)}"
            ),
        )
    return model


def _check_workspace_keys(values: dict[str, str], model: type[Command]) -> None:
    # A field an action declares is its own, even with a workspace-like name (shell.run's cwd).
    workspace_keys = sorted(grammar.WORKSPACE_FIELDS.intersection(values) - set(model.model_fields))
    if workspace_keys:
        raise OperatorError(
            ErrorCode.ERR_WORKSPACE_FIELD,
            (
                f"{workspace_keys[0]} is not a command field: the workspace is chosen in Operator, "
                f"and paths are relative to it; remove the {workspace_keys[0]} line"
            ),
        )


def _check_path(action: str, values: dict[str, str]) -> None:
    """A path for an fs.* action, none for the others."""
    is_fs = action.startswith(grammar.FS_PREFIX)
    if is_fs and not values.get("path"):
        raise OperatorError(
            ErrorCode.ERR_ACTION_REQUIRES_PATH,
            (
                f"{action} requires path: <path relative to the workspace root> (use . for the "
                f"root){_why_no_path(values)}"
            ),
        )
    if not is_fs and "path" in values:
        raise OperatorError(
            ErrorCode.ERR_ACTION_FORBIDS_PATH,
            f"{action} does not take a path; remove the path line",
        )


def _why_no_path(values: dict[str, str]) -> str:
    """What to say about a missing path: the path under another name ("file: README.md") is the
    likeliest reason, or misspelt ("pth: README.md"), or a path line left empty."""
    other = next(
        (key for key in values if key != "path" and key.casefold() in _PATH_SYNONYMS), None
    )
    if other is None and "path" not in values:
        from .extra_fields import misspelling_of

        other = next(
            (
                key
                for key in values
                if key not in (*grammar.REQUIRED_FIELDS, SECOND_PATH)
                and misspelling_of(key, "path")
            ),
            None,
        )
    if other:
        return f"; write path: instead of {other}:"
    if "path" in values:
        return "; the path line is empty"
    return ""


def _by_field(
    action: str, values: dict[str, str], accepted: dict[str, str]
) -> tuple[dict[str, str], tuple[str, ...]]:
    """The values by the field each key sets (an alias counts as its field; two keys setting one
    field are refused), and the keys the action does not take and that change nothing (any other
    key is refused, extra_fields.py)."""
    renamed: dict[str, str] = {}
    ignored: list[str] = []
    for key in values:
        target = accepted.get(key)
        if target is None:
            from .extra_fields import refuse_extra

            error = refuse_extra(action, key, accepted)
            if error is not None:
                raise error
            ignored.append(key)
            continue
        if target in renamed:
            raise OperatorError(
                ErrorCode.ERR_DUPLICATE_FIELD,
                (f"{key} and {renamed[target]} both set {target}; keep one of them"),
            )
        renamed[target] = key
    return {target: values[key] for target, key in renamed.items()}, tuple(ignored)


def _check_second_path(action: str, values: dict[str, str], accepted: dict[str, str]) -> None:
    """path_to where the action takes one path is refused (it would be ignored, and the model would
    think the entry went somewhere); where the action needs it, it must be there and not empty."""
    if SECOND_PATH not in accepted:
        if SECOND_PATH in values:
            raise OperatorError(
                ErrorCode.ERR_UNEXPECTED_PATH_TO,
                (
                    f"{action} takes one path; remove the path_to line (fs.copy, fs.move and "
                    "fs.rename take path_to)"
                ),
            )
        return
    if not values.get(SECOND_PATH):
        # The destination under another name ("dest: b.txt") is the likeliest reason it is missing.
        other = next((key for key in values if key.casefold() in _PATH_TO_SYNONYMS), None)
        if other:
            instead = f"; write path_to: instead of {other}:"
        elif SECOND_PATH in values:
            instead = "; the path_to line is empty"
        else:
            instead = ""
        raise OperatorError(
            ErrorCode.ERR_MISSING_PATH_TO,
            (f"{action} requires path_to: <the new path, relative to the workspace root>{instead}"),
        )


def _from_pydantic(model: type[Command], exc: ValidationError) -> OperatorError:
    error = exc.errors()[0]
    name = str(error["loc"][0]) if error["loc"] else ""
    code = field_meta(model, name).get("code") if name in model.model_fields else None
    doc = model.model_fields[name].description if name in model.model_fields else ""
    if error["type"] == "missing":
        aliases = field_meta(model, name).get("aliases", []) if name in model.model_fields else []
        also = f" (or {' / '.join(aliases)})" if aliases else ""
        return OperatorError(
            ErrorCode(code or ErrorCode.ERR_MISSING_REQUIRED_FIELDS),
            (f'{model.ACTION} requires {name}; add the line "{name}: <{doc}>"{also}'),
        )
    return OperatorError(
        ErrorCode(code or ErrorCode.ERR_NON_KEY_VALUE_LINE), f"{name}: {error['msg']}"
    )
