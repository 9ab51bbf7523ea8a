"""One frozen pydantic model per action: fields, aliases, defaults, limits and the error code of
each field are declared here once. `validate_command()` turns parsed fields into a command or an
`OperatorError`; `spec.py` renders the ACTIONS section of the interface text from the same
declarations, and the TUI's help reads them too.

Field metadata lives in `json_schema_extra`: `code` (the ERR code for a missing or bad value),
`aliases`, and `doc` (the spec's wording).
"""

# No "from __future__ import annotations" here: pydantic would then compile and eval every
# field annotation of every model at import, a third of the cost of declaring them.

import os
import re
import sys
import types
from typing import Any, ClassVar, Literal, Self


def _skip_pydantic_plugin_discovery() -> None:
    """Operator loads no pydantic plugins. PYDANTIC_DISABLE_PLUGINS stops pydantic from loading
    them, but its plugin loader module still imports importlib.metadata (and email, socket...)
    the first time a model validates: 20-40 ms of every `exec` start, a tenth of the start-up
    budget. A stand-in module answers `get_plugins` (what pydantic's validator asks for) with
    none; any other name it is asked for loads the real module, so a pydantic release that wants
    more from it still works."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    name = "pydantic.plugin._loader"
    if name in sys.modules:
        return
    # The package is imported by pydantic's own import right after (no extra cost). The stand-in
    # is also bound on it, as an import binds a submodule: `import pydantic.plugin._loader` then
    # `pydantic.plugin._loader.x`, in any code of this process, must not raise AttributeError.
    import pydantic.plugin as package

    def real_attribute(attribute: str) -> Any:
        if attribute.startswith("__"):  # the import system probing (__path__, __spec__...)
            raise AttributeError(attribute)
        import importlib

        if sys.modules.get(name) is loader:  # only the stand-in gives way: a real module is never loaded twice
            del sys.modules[name]
        return getattr(importlib.import_module(name), attribute)

    loader = types.ModuleType(name)
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    loader.__getattr__ = real_attribute  # type: ignore[method-assign]
    sys.modules[name] = loader
    package._loader = loader  # type: ignore[attr-defined]


_skip_pydantic_plugin_discovery()

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from . import grammar
from .codec import decode_b64_text
from .errors import ErrorCode, OperatorError
from .parser import Fields

_WHOLE_NUMBER_RE = re.compile(r"[0-9]+")
# Any size of number is taken ("lines: 99999999999" is clamped, a huge start is past the end) and
# shown back as written; only beyond the interpreter's limit on digit strings (4300) is it capped.
_MAX_DIGITS = 4000
_HUGE_NUMBER = 10**_MAX_DIGITS
_MARKER_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def spec_field(
    default: Any = ...,
    *,
    doc: str,
    code: ErrorCode | None = None,
    aliases: tuple[str, ...] = (),
) -> Any:
    return Field(default, description=doc, json_schema_extra={"code": code, "aliases": list(aliases)})


def _whole_number(value: str, *, field: str, code: ErrorCode) -> int:
    digits = value.lstrip("0")
    if not _WHOLE_NUMBER_RE.fullmatch(value) or not digits:
        raise OperatorError(code, f"{field} must be a whole number >= 1, got {value!r}")
    return int(digits) if len(digits) <= _MAX_DIGITS else _HUGE_NUMBER


# Validators shared by several actions: plain functions, attached with field_validator(...)(fn).


def _resolve_language(cls: type, value: str | None) -> str | None:
    if value is None:
        return None
    from .comments import resolve_language

    return resolve_language(value)


def _non_empty_query(cls: type, value: str) -> str:
    if not value:
        raise OperatorError(ErrorCode.ERR_MISSING_QUERY, "query is empty; give the substring to look for (query: <text>)")
    return value


def _decode_content(cls: type, value: str) -> str:
    return decode_b64_text(value, field="content_b64")


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    ACTION: ClassVar[str] = ""
    WRITES: ClassVar[bool] = False  # needs the person's consent before it changes anything
    NOTES: ClassVar[tuple[str, ...]] = ()  # spec lines after the fields: result, behaviour, limits

    version: str
    id: str
    action: str

    @property
    def path_or_none(self) -> str | None:
        return getattr(self, "path", None)


class FsCommand(Command):
    path: str = spec_field(doc="path relative to the workspace root", code=ErrorCode.ERR_ACTION_REQUIRES_PATH)


class CommentStyleFields(FsCommand):
    comment_line_prefix: str | None = spec_field(None, doc='line comment prefix (e.g. "//" or "#")', code=ErrorCode.ERR_INVALID_COMMENT_STYLE)
    comment_block_start: str | None = spec_field(None, doc='block comment start (e.g. "/*" or "<!--")', code=ErrorCode.ERR_INVALID_COMMENT_STYLE)
    comment_block_end: str | None = spec_field(None, doc='block comment end (e.g. "*/" or "-->")', code=ErrorCode.ERR_INVALID_COMMENT_STYLE)
    language: str | None = spec_field(None, doc="explicit mapping key, see operator.getCommentStyle", code=ErrorCode.ERR_UNKNOWN_LANGUAGE)

    _known_language = field_validator("language")(_resolve_language)

    @model_validator(mode="after")
    def _one_style(self) -> Self:
        line = self.comment_line_prefix is not None
        start, end = self.comment_block_start is not None, self.comment_block_end is not None
        given = [name for name, on in (("comment_line_prefix", line), ("comment_block_start", start),
                                       ("comment_block_end", end), ("language", self.language is not None)) if on]
        hint = "give comment_line_prefix, or comment_block_start with comment_block_end, or language"
        if start != end:
            raise OperatorError(ErrorCode.ERR_INVALID_COMMENT_STYLE, f"{given[0]} given without its partner; {hint}")
        if (line and start) or (self.language is not None and (line or start)):
            raise OperatorError(ErrorCode.ERR_INVALID_COMMENT_STYLE, f"{', '.join(given)} given together; {hint}")
        for name in ("comment_line_prefix", "comment_block_start", "comment_block_end"):
            value = getattr(self, name)
            if value is not None and (not value or "OPERATOR_" in value):
                raise OperatorError(ErrorCode.ERR_INVALID_COMMENT_STYLE, f"{name} {value!r} is not a usable comment delimiter; {hint}")
        return self


class MarkerFields(CommentStyleFields):
    marker_id: str = spec_field(doc="region id (A-Z a-z 0-9 _ . -)", code=ErrorCode.ERR_MISSING_MARKER_ID)

    @field_validator("marker_id")
    @classmethod
    def _marker_id(cls, value: str) -> str:
        if not value:
            raise OperatorError(ErrorCode.ERR_MISSING_MARKER_ID, "marker_id is empty; name the region, e.g. marker_id: setup")
        if not _MARKER_ID_RE.fullmatch(value):
            fixed = re.sub(r"[^A-Za-z0-9_.-]+", "-", value).strip("-")[:100]
            example = f", e.g. marker_id: {fixed}" if fixed else ""
            raise OperatorError(ErrorCode.ERR_INVALID_MARKER_ID, (
                f"marker_id {value!r} may only use A-Z a-z 0-9 _ . - (at most 100 characters){example}"
            ))
        return value


def _b64(value: str | None, field: str) -> str | None:
    return None if value is None else decode_b64_text(value, field=field)


# --- the actions --------------------------------------------------------------------------


class GetInterfaceSpec(Command):
    ACTION = "operator.getInterfaceSpec"
    NOTES = ("Result: details_b64 contains this interface specification (base64 UTF-8)",)
    action: Literal["operator.getInterfaceSpec"]


class GetCommentStyle(Command):
    ACTION = "operator.getCommentStyle"
    NOTES = (
        "Result: details_b64 contains JSON describing comment styles.",
        "If language is provided, the payload is a single style object:",
        '- {"language":"<id>","type":"line","line_prefix":"//"}',
        '- {"language":"<id>","type":"block","block_start":"<!--","block_end":"-->"}',
        'The "language" field uses the resolved mapping key (e.g., "ts" for "typescript").',
        'If language is omitted, returns {"styles":[...]} with all supported default mappings',
        "(each also lists its file extensions and aliases).",
    )
    action: Literal["operator.getCommentStyle"]
    language: str | None = spec_field(None, doc='language or alias (e.g., "ts", "python", "html")', code=ErrorCode.ERR_UNKNOWN_LANGUAGE)

    _known_language = field_validator("language")(_resolve_language)


class FsList(FsCommand):
    ACTION = "fs.list"
    NOTES = (
        "Result: details_b64 contains directory entries, one per line, sorted by name;",
        'folders end with "/", symlinks with "@" (path "." lists the workspace root).',
    )
    action: Literal["fs.list"]


class FsRead(FsCommand):
    ACTION = "fs.read"
    MAX_BYTES: ClassVar[int] = 200_000
    NOTES = (
        "Result: details_b64 contains full file content (base64 UTF-8)",
        f"Size limit: {MAX_BYTES} bytes.",
        "If file exceeds size limits, returns ok:false with summary:",
        '"File too large for fs.read (<bytes> bytes). Use fs.readSlice."',
    )
    action: Literal["fs.read"]


class FsReadSlice(FsCommand):
    ACTION = "fs.readSlice"
    MAX_BYTES: ClassVar[int] = 2_000_000
    MAX_LINES: ClassVar[int] = 400
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus numbered lines ("<line>: <text>")',
        f"lines above {MAX_LINES} are clamped to {MAX_LINES} and the header says so.",
        "A start past the last line returns ERR_INVALID_READSLICE_PARAMS with the file's line count.",
        f"Size limit: {MAX_BYTES} bytes.",
        "If file exceeds size limits, returns ERR_FILE_TOO_LARGE.",
    )
    action: Literal["fs.readSlice"]
    start: int = spec_field(1, doc="1-based line, default 1", code=ErrorCode.ERR_INVALID_READSLICE_PARAMS, aliases=("line", "from"))
    lines: int = spec_field(120, doc="default 120, max 400", code=ErrorCode.ERR_INVALID_READSLICE_PARAMS, aliases=("count", "len"))

    @field_validator("start", "lines", mode="before")
    @classmethod
    def _number(cls, value: Any, info: Any) -> int:
        return _whole_number(str(value), field=info.field_name, code=ErrorCode.ERR_INVALID_READSLICE_PARAMS)


class FsSearch(FsCommand):
    ACTION = "fs.search"
    MAX_BYTES: ClassVar[int] = 2_000_000
    MAX_MATCHES: ClassVar[int] = 50
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus matching lines with line numbers ("<line>: <text>")',
        f'Results are capped at {MAX_MATCHES} matches; header includes "(truncated)" when clipped.',
        "The match is a case-sensitive substring. A folder path returns ERR_SEARCH_PATH_IS_DIR.",
        f"Size limit: {MAX_BYTES} bytes.",
        "If file exceeds size limits, returns ERR_FILE_TOO_LARGE.",
    )
    action: Literal["fs.search"]
    query: str = spec_field(doc="required substring", code=ErrorCode.ERR_MISSING_QUERY, aliases=("q",))

    _non_empty = field_validator("query")(_non_empty_query)


class FsStat(FsCommand):
    ACTION = "fs.stat"
    NOTES = (
        "Result: details_b64 contains JSON: {path,size,isFile,isDir,mtimeMs,ctimeMs}",
        "A symlink that stays inside the workspace is followed: the keys describe what it points to.",
    )
    action: Literal["fs.stat"]


class FsSearchTree(FsCommand):
    ACTION = "fs.searchTree"
    MAX_MATCHES: ClassVar[int] = 200
    MAX_FILES: ClassVar[int] = 300
    MAX_FILE_BYTES: ClassVar[int] = 500_000
    NOTES = (
        'Result: details_b64 contains header lines starting with "#" plus matches in the form "<path>:<line>: <text>"',
        f"Limits: max {MAX_MATCHES} matches, max {MAX_FILES} files scanned, skip files over {MAX_FILE_BYTES} bytes.",
        "Results may be truncated. Skips .git, what .gitignore files ignore, symlinks, binary and non-UTF-8 files;",
        "files are visited in a fixed order (sorted by path), so the same query gives the same result.",
    )
    action: Literal["fs.searchTree"]
    query: str = spec_field(doc="required substring", code=ErrorCode.ERR_MISSING_QUERY, aliases=("q",))

    _non_empty = field_validator("query")(_non_empty_query)


class FsListRegions(CommentStyleFields):
    ACTION = "fs.listRegions"
    NOTES = (
        'Result: details_b64 contains JSON object {"regions":[...]} with marker_id and line ranges',
        '(start_line/end_line are the marker lines); "problems" lists unpaired or overlapping markers when there are any.',
    )
    action: Literal["fs.listRegions"]


class FsReadRegion(MarkerFields):
    ACTION = "fs.readRegion"
    NOTES = ("Result: details_b64 contains the content between markers (base64 UTF-8)",)
    action: Literal["fs.readRegion"]


class FsInsertRegion(MarkerFields):
    ACTION = "fs.insertRegion"
    WRITES = True
    NOTES = (
        "Behavior: inserts a new marker block before or after the line holding the occurrence-th",
        "occurrence of anchor and writes content between markers; the markers take that line's indentation.",
    )
    action: Literal["fs.insertRegion"]
    anchor: str = spec_field(doc="text on the line to insert next to", code=ErrorCode.ERR_MISSING_ANCHOR)
    content_b64: str = spec_field(doc="base64 UTF-8", code=ErrorCode.ERR_MISSING_CONTENT_B64)
    position: Literal["before", "after"] = spec_field("after", doc="before|after (default after)", code=ErrorCode.ERR_INVALID_INSERT_POSITION)
    occurrence: int = spec_field(1, doc="<number> (default 1)", code=ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE)

    @field_validator("anchor")
    @classmethod
    def _anchor(cls, value: str) -> str:
        if not value:
            raise OperatorError(ErrorCode.ERR_MISSING_ANCHOR, "anchor is empty; give text that appears on the line to insert next to")
        return value

    _content = field_validator("content_b64")(_decode_content)

    @field_validator("position", mode="before")
    @classmethod
    def _position(cls, value: Any) -> str:
        if value not in ("before", "after"):
            raise OperatorError(ErrorCode.ERR_INVALID_INSERT_POSITION, f"position must be before or after, got {value!r}")
        return str(value)

    @field_validator("occurrence", mode="before")
    @classmethod
    def _occurrence(cls, value: Any) -> int:
        return _whole_number(str(value), field="occurrence", code=ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE)


class FsReplaceRegion(MarkerFields):
    ACTION = "fs.replaceRegion"
    WRITES = True
    NOTES = ("Behavior: replaces lines between markers, preserves the marker lines",)
    action: Literal["fs.replaceRegion"]
    content_b64: str = spec_field(doc="base64 UTF-8", code=ErrorCode.ERR_MISSING_CONTENT_B64)

    _content = field_validator("content_b64")(_decode_content)


class FsDeleteRegion(MarkerFields):
    ACTION = "fs.deleteRegion"
    WRITES = True
    NOTES = ("Behavior: removes lines between markers, preserves the marker lines",)
    action: Literal["fs.deleteRegion"]


class FsWrite(FsCommand):
    ACTION = "fs.write"
    WRITES = True
    NOTES = (
        "Payload: content_b64 (preferred, base64 UTF-8, multi-line allowed) OR content (single-line only)",
        "Behavior: overwrites or creates the file (and its missing parent folders). An existing file keeps",
        "its line endings (LF/CRLF), BOM and final-newline state.",
        "If payload is missing, returns ERR_MISSING_WRITE_CONTENT.",
    )
    action: Literal["fs.write"]
    content_b64: str | None = spec_field(None, doc="base64 UTF-8 (preferred)", code=ErrorCode.ERR_MISSING_WRITE_CONTENT)
    content: str | None = spec_field(None, doc="single-line text only", code=ErrorCode.ERR_MISSING_WRITE_CONTENT)

    @field_validator("content_b64")
    @classmethod
    def _decode(cls, value: str | None) -> str | None:
        return _b64(value, "content_b64")

    @model_validator(mode="after")
    def _one_payload(self) -> Self:
        if self.content_b64 is None and self.content is None:
            raise OperatorError(ErrorCode.ERR_MISSING_WRITE_CONTENT, (
                "fs.write needs content_b64 (base64 UTF-8, preferred) or content (one line of text)"
            ))
        if self.content_b64 is not None and self.content is not None:
            raise OperatorError(ErrorCode.ERR_DUPLICATE_FIELD, "give content_b64 or content, not both; keep content_b64")
        return self

    @property
    def text(self) -> str:
        return self.content_b64 if self.content_b64 is not None else self.content or ""


class FsPatch(FsCommand):
    ACTION = "fs.patch"
    WRITES = True
    NOTES = (
        "Behavior: strict unified diff for a single file; supports @@ -a,b +c,d @@ hunks; context must match exactly.",
        "Hunks apply at the lines their headers state (no fuzz); header counts must match the hunk bodies;",
        '"\\ No newline at end of file" is honoured; --- /dev/null creates a file that does not exist.',
        "All hunks apply or none. On a mismatch the error names the hunk and line and, when the hunk's lines",
        "match elsewhere, the corrected @@ header.",
    )
    action: Literal["fs.patch"]
    patch_b64: str = spec_field(doc="base64 UTF-8 unified diff", code=ErrorCode.ERR_MISSING_PATCH_B64)

    @field_validator("patch_b64")
    @classmethod
    def _decode(cls, value: str) -> str:
        if not value:
            raise OperatorError(ErrorCode.ERR_MISSING_PATCH_B64, "patch_b64 is empty; send the unified diff base64-encoded")
        return decode_b64_text(value, field="patch_b64")


class FsApplyEdits(FsCommand):
    ACTION = "fs.applyEdits"
    WRITES = True
    NOTES = (
        'Decoded JSON format: {"version":1,"edits":[...]}',
        "Edit objects (op): insertAfter, insertBefore, replaceFirst, replaceAll, replaceRange.",
        "For insert*: anchor (string), text (string), optional occurrence (number>=1).",
        "For replace*: find (string), text (string).",
        "For replaceRange: startLine (1-based), endLine (1-based), text (string).",
        'Behavior note: for insertAfter, if the anchor ends a line and text does not start with "\\n", Operator will prepend "\\n".',
        "Edits apply in order, each to the text the previous ones produced.",
        "Strict semantics: first failure aborts and no changes are written (the error names the edit).",
    )
    action: Literal["fs.applyEdits"]
    edits_b64: Any = spec_field(doc="base64 UTF-8 JSON", code=ErrorCode.ERR_MISSING_EDITS_B64)

    @field_validator("edits_b64", mode="before")
    @classmethod
    def _decode(cls, value: str) -> Any:
        if not value:
            raise OperatorError(ErrorCode.ERR_MISSING_EDITS_B64, "edits_b64 is empty; send the edits JSON base64-encoded")
        from .edits import parse_edits

        return parse_edits(decode_b64_text(value, field="edits_b64"))


class FsDelete(FsCommand):
    ACTION = "fs.delete"
    WRITES = True
    NOTES = (
        "Behavior: moves the file or folder to the trash (never a permanent delete); the workspace root is refused.",
    )
    action: Literal["fs.delete"]


ACTIONS: dict[str, type[Command]] = {
    model.ACTION: model
    for model in (
        GetInterfaceSpec, GetCommentStyle, FsList, FsRead, FsReadSlice, FsSearch, FsStat, FsSearchTree,
        FsListRegions, FsReadRegion, FsInsertRegion, FsReplaceRegion, FsDeleteRegion,
        FsWrite, FsPatch, FsApplyEdits, FsDelete,
    )
}


# --- validation ---------------------------------------------------------------------------


def field_meta(model: type[Command], name: str) -> dict[str, Any]:
    extra = model.model_fields[name].json_schema_extra
    return extra if isinstance(extra, dict) else {}


def alias_map(model: type[Command]) -> dict[str, str]:
    """Every accepted key (field names and aliases) -> the field it fills."""
    names = {name: name for name in model.model_fields}
    for name in model.model_fields:
        for alias in field_meta(model, name).get("aliases", []):
            names[alias] = name
    return names


# What models call the actions in other tools: a close spelling would point elsewhere
# ("fs.grep" reads like "fs.read", "fs.cat" like "fs.stat").
_ACTION_SYNONYMS = {
    "cat": "fs.read", "readfile": "fs.read", "open": "fs.read", "view": "fs.readSlice", "head": "fs.readSlice",
    "readlines": "fs.readSlice", "grep": "fs.search", "find": "fs.searchTree", "grepTree": "fs.searchTree",
    "ls": "fs.list", "dir": "fs.list", "listdir": "fs.list", "tree": "fs.list", "edit": "fs.applyEdits",
    "replace": "fs.applyEdits", "writefile": "fs.write", "create": "fs.write", "createfile": "fs.write",
    "diff": "fs.patch", "applypatch": "fs.patch", "rm": "fs.delete", "remove": "fs.delete", "unlink": "fs.delete",
    "deletefile": "fs.delete", "exists": "fs.stat", "info": "fs.stat",
}


_PATH_SYNONYMS = frozenset({"file", "filename", "filepath", "file_path", "dir", "directory", "folder", "target", "path"})


def _suggest_action(action: str) -> str:
    folded = {name.casefold(): name for name in ACTIONS}
    if action.casefold() in folded:
        return f"did you mean {folded[action.casefold()]}? (actions are case-sensitive) "
    bare = action.rsplit(".", 1)[-1].replace("_", "").replace("-", "").casefold()
    synonyms = {key.casefold(): target for key, target in _ACTION_SYNONYMS.items()}
    if bare in synonyms:
        return f"did you mean {synonyms[bare]}? "
    return _suggest(action, list(ACTIONS))


def _suggest(word: str, options: list[str]) -> str:
    import difflib  # only when a name is wrong: not on every start

    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f"did you mean {close[0]}? " if close else ""


def validate_command(fields: Fields) -> Command:
    values = fields.values
    missing = [name for name in grammar.REQUIRED_FIELDS if not values.get(name)]
    if missing:
        # "Version: 1" is the likeliest way to miss a field that looks present: say so.
        miscased = [f"{key} is not {name}" for name in missing for key in values if key != name and key.lower() == name]
        hint = f" (keys are case-sensitive: {', '.join(miscased)})" if miscased else ""
        raise OperatorError(ErrorCode.ERR_MISSING_REQUIRED_FIELDS, (
            f"missing {', '.join(missing)}{hint}; every OPERATOR_CMD needs version: 1, id: <unique id> and action: <action>"
        ))
    if values["version"] != grammar.SUPPORTED_VERSION:
        raise OperatorError(ErrorCode.ERR_UNSUPPORTED_VERSION, f"version {values['version']!r} is not supported; use version: 1")
    action = values["action"]
    if action in grammar.RESERVED_ACTIONS:
        raise OperatorError(ErrorCode.ERR_RESERVED_ACTION, (
            f"{action} is reserved for errors Operator reports itself; send one of: {', '.join(ACTIONS)}"
        ))
    model = ACTIONS.get(action)
    if model is None:
        raise OperatorError(ErrorCode.ERR_UNKNOWN_ACTION, (
            f"action {action} is not defined; {_suggest_action(action)}Actions: {', '.join(ACTIONS)}"
        ))
    workspace_keys = sorted(grammar.WORKSPACE_FIELDS.intersection(values))
    if workspace_keys:
        raise OperatorError(ErrorCode.ERR_WORKSPACE_FIELD, (
            f"{workspace_keys[0]} is not a command field: the workspace is chosen in Operator, and paths are relative to it; "
            f"remove the {workspace_keys[0]} line"
        ))
    is_fs = action.startswith(grammar.FS_PREFIX)
    if is_fs and not values.get("path"):
        # The path under another name ("file: README.md") is the likeliest reason it is missing.
        other = next((key for key in values if key != "path" and key.casefold() in _PATH_SYNONYMS), None)
        instead = f"; write path: instead of {other}:" if other else "; the path line is empty" if "path" in values else ""
        raise OperatorError(ErrorCode.ERR_ACTION_REQUIRES_PATH, (
            f"{action} requires path: <path relative to the workspace root> (use . for the root){instead}"
        ))
    if not is_fs and "path" in values:
        raise OperatorError(ErrorCode.ERR_ACTION_FORBIDS_PATH, f"{action} does not take a path; remove the path line")
    accepted = alias_map(model)
    renamed: dict[str, str] = {}
    for key, value in values.items():
        target = accepted.get(key)
        if target is None and "content" in accepted and fields.lines.get(key) == fields.lines.get("content", -1) + 1:
            # "content: Dear team," then "Regards: Bob": a second line of content that happens to
            # hold a colon, not a misspelt field. The spec's own wording for the mistake.
            raise OperatorError(ErrorCode.ERR_CONTENT_HAS_NEWLINES, "content contains newline; use content_b64.", (
                f"content starts on line {fields.lines['content']} and continues on line {fields.lines[key]}"
            ))
        if target is None:
            raise OperatorError(ErrorCode.ERR_UNKNOWN_FIELD, (
                f"{action} does not take {key}; {_suggest(key, list(accepted))}fields of {action}: "
                f"{', '.join(k for k in accepted if k not in grammar.REQUIRED_FIELDS)}"
            ))
        if target in renamed:
            raise OperatorError(ErrorCode.ERR_DUPLICATE_FIELD, (
                f"{key} and {renamed[target]} both set {target}; keep one of them"
            ))
        renamed[target] = key
    data = {target: values[key] for target, key in renamed.items()}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _from_pydantic(model, exc) from None


def _from_pydantic(model: type[Command], exc: ValidationError) -> OperatorError:
    error = exc.errors()[0]
    name = str(error["loc"][0]) if error["loc"] else ""
    code = field_meta(model, name).get("code") if name in model.model_fields else None
    doc = model.model_fields[name].description if name in model.model_fields else ""
    if error["type"] == "missing":
        aliases = field_meta(model, name).get("aliases", []) if name in model.model_fields else []
        also = f" (or {' / '.join(aliases)})" if aliases else ""
        return OperatorError(ErrorCode(code or ErrorCode.ERR_MISSING_REQUIRED_FIELDS), (
            f"{model.ACTION} requires {name}; add the line \"{name}: <{doc}>\"{also}"
        ))
    return OperatorError(ErrorCode(code or ErrorCode.ERR_NON_KEY_VALUE_LINE), f"{name}: {error['msg']}")
