"""The spec's "(optional additional key: value lines)": a harmless key an action does not take is
ignored and named, while a key that would change what the command does (a near miss of its own
fields, a field of another action, path_to on a one-path action) stays an error that names the
field meant. Validation alone, no filesystem."""

from __future__ import annotations

import pytest

from operator_app.protocol import commands as c
from operator_app.protocol.commands.extra_fields import ignored_clause
from operator_app.protocol.commands.validation import Validated, validate_fields
from operator_app.protocol.errors import ErrorCode, OperatorError
from operator_app.protocol.parser import parse_fields
from operator_app.protocol.scanner import scan_message

HEAD = ("version: 1", "id: a1")


def checked(*lines: str) -> Validated:
    (found,) = scan_message("OPERATOR_CMD\n" + "\n".join(lines) + "\nEND_OPERATOR_CMD\n").blocks
    return validate_fields(parse_fields(found))


def error_of(*lines: str) -> OperatorError:
    with pytest.raises(OperatorError) as caught:
        checked(*lines)
    return caught.value


ACTIONS = {  # a valid block of each kind, without the head
    "fs.read": ("action: fs.read", "path: README.md"),
    "fs.readSlice": ("action: fs.readSlice", "path: README.md", "lines: 5"),
    "fs.write": ("action: fs.write", "path: a.txt", "content: x"),
    "fs.patch": ("action: fs.patch", "path: a.txt", "patch_b64: LS0tIGEveAo="),
    "fs.list": ("action: fs.list", "path: ."),
    "operator.getCommentStyle": ("action: operator.getCommentStyle",),
}
HARMLESS = [
    "note",
    "notes",
    "reason",
    "description",
    "trace_id",
    "traceId",
    "requestId",
    "explanation",
    "purpose",
    "summary",
    "title",
    "why",
    "intent",
    "author",
    "step",
    "priority",
    "timestamp",
    "rationale",
    "tag",
    "recursive",
    "mode",
    "encoding",
    "format",
    "dry_run",
    "note_to_self",
    "comment",
]


@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize("key", HARMLESS)
def test_a_harmless_extra_key_is_ignored_and_named(action: str, key: str) -> None:
    result = checked(*HEAD, *ACTIONS[action], f"{key}: something the model wanted to say")
    assert result.command.action == action
    assert result.ignored == (key,)


def test_ignored_keys_keep_their_order_and_the_command_its_fields() -> None:
    result = checked(
        *HEAD,
        "action: fs.readSlice",
        "note: first",
        "path: README.md",
        "reason: second",
        "start: 3",
    )
    assert result.ignored == ("note", "reason")
    assert isinstance(result.command, c.FsReadSlice) and (
        result.command.path,
        result.command.start,
    ) == ("README.md", 3)


@pytest.mark.parametrize(
    ("action", "key", "meant"),
    [
        ("fs.insertRegion", "occurence", "occurrence"),
        ("fs.readSlice", "lenght", "lines"),
        ("fs.readSlice", "offset", "start"),
        ("fs.readSlice", "strat", "start"),
        ("fs.search", "Query", "query"),
        ("fs.write", "contents", "content"),
        ("fs.write", "context", "content"),
        ("fs.write", "content_text", "content"),
        ("fs.read", "new_path", "path"),
        ("fs.read", "Path", "path"),
    ],
)
def test_a_near_miss_of_an_own_field_is_an_error_naming_the_field(
    action: str, key: str, meant: str
) -> None:
    lines = {
        "fs.insertRegion": ("path: a.py", "marker_id: m", "anchor: x", "content_b64: eAo="),
        "fs.search": ("path: a.py", "q: x"),
        "fs.write": ("path: a.txt", "content_b64: eAo="),
    }.get(action, ("path: a.txt",))
    error = error_of(*HEAD, f"action: {action}", *lines, f"{key}: 1")
    assert error.code is ErrorCode.ERR_UNKNOWN_FIELD
    assert error.message.startswith(f"{action} does not take {key}; did you mean {meant}?")
    assert f"fields of {action}: path" in error.message


@pytest.mark.parametrize(
    ("action", "key", "owner"),
    [
        ("fs.read", "start_line", "fs.readSlice"),
        ("fs.read", "startLine", "fs.readSlice"),
        ("fs.read", "line_count", "fs.readSlice"),
        ("fs.read", "lines", "fs.readSlice"),
        ("fs.read", "query", "fs.search"),
        ("fs.patch", "content", "fs.write"),
        ("fs.patch", "content_b64", "fs.write"),
        ("fs.read", "context", "fs.write"),
        ("fs.write", "patch_b64", "fs.patch"),
        ("fs.write", "edits", "fs.applyEdits"),
        ("fs.write", "patch", "fs.patch"),
        ("fs.read", "to", "fs.copy"),
        ("fs.write", "overwrite", "fs.copy"),
        ("fs.list", "language", "operator.getCommentStyle"),
        ("fs.stat", "marker", "fs.readRegion"),
        ("fs.stat", "anchor_text", "fs.insertRegion"),
    ],
)
def test_a_field_of_another_action_is_an_error_naming_that_action(
    action: str, key: str, owner: str
) -> None:
    error = error_of(
        *HEAD,
        f"action: {action}",
        "path: a.txt",
        *(["content: x"] if action == "fs.write" else []),
        *(["patch_b64: LS0tIGEveAo="] if action == "fs.patch" else []),
        f"{key}: 3",
    )
    assert error.code is ErrorCode.ERR_UNKNOWN_FIELD
    assert error.message.startswith(f"{action} does not take {key}")
    assert (
        "a field of " in error.message
        and owner in error.message
        and "send the action that takes it" in error.message
    )


@pytest.mark.parametrize(
    "action", ["fs.read", "fs.write", "fs.delete", "fs.applyEdits", "operator.getInterfaceSpec"]
)
def test_path_to_on_an_action_with_one_path_is_unexpected(action: str) -> None:
    path = [] if action.startswith("operator.") else ["path: a.txt"]
    error = error_of(*HEAD, f"action: {action}", *path, "path_to: b.txt")
    assert error.code is ErrorCode.ERR_UNEXPECTED_PATH_TO
    assert error.message == (
        f"{action} takes one path; remove the path_to line "
        "(fs.copy, fs.move and fs.rename take path_to)"
    )


def test_a_key_value_line_after_content_is_a_field_and_a_plain_line_is_more_content() -> None:
    result = checked(
        *HEAD, "action: fs.write", "path: letter.txt", "content: Dear team,", "Regards: Bob"
    )
    assert result.command.text == "Dear team," and result.ignored == ("Regards",)  # type: ignore[attr-defined]
    error = error_of(
        *HEAD,
        "action: fs.write",
        "path: letter.txt",
        "content: Dear team,",
        "the release is ready.",
    )
    assert error.code is ErrorCode.ERR_CONTENT_HAS_NEWLINES
    assert error.context == "content starts on line 6 and continues on line 7"
    # A key: value line of a field the action takes, after content, is that field.
    result = checked(*HEAD, "action: fs.write", "content: hello", "path: letter.txt")
    assert result.command.path == "letter.txt" and result.ignored == ()  # type: ignore[attr-defined]


def test_workspace_keys_stay_refused() -> None:
    assert (
        error_of(*HEAD, "action: fs.read", "path: a", "workspace: /home/me").code
        is ErrorCode.ERR_WORKSPACE_FIELD
    )


@pytest.mark.parametrize(
    ("keys", "clause"),
    [
        ((), ""),
        (("note",), "; ignored field: note"),
        (("note", "reason"), "; ignored fields: note, reason"),
        (("a", "b", "c", "d", "e"), "; ignored fields: a, b, c and 2 more"),
        (("x" * 100,), "; ignored field: " + "x" * 37 + "..."),
    ],
)
def test_the_clause_is_short(keys: tuple[str, ...], clause: str) -> None:
    assert ignored_clause(keys) == clause
