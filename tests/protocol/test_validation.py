"""Parsing and validation on their own (no filesystem): the messages that let the model fix a
block in one round trip, number fields, and strict base64."""

from __future__ import annotations

import pytest

from operator_app.protocol import commands as c
from operator_app.protocol.codec import decode_b64_text
from operator_app.protocol.errors import ErrorCode, OperatorError
from operator_app.protocol.parser import parse_fields
from operator_app.protocol.scanner import scan_message


def validate(*lines: str) -> c.Command:
    (found,) = scan_message("OPERATOR_CMD\n" + "\n".join(lines) + "\nEND_OPERATOR_CMD\n").blocks
    return c.validate_command(parse_fields(found))


def error_of(*lines: str) -> OperatorError:
    with pytest.raises(OperatorError) as caught:
        validate(*lines)
    return caught.value


HEAD = ("version: 1", "id: a1")


@pytest.mark.parametrize(
    "line, key",
    [
        ("marker-id: greeting", "marker_id"),
        ('"path": "README.md"', "path"),
        ("- path: README.md", "path"),
    ],
)
def test_a_key_that_is_no_identifier_gets_the_key_it_should_be(line: str, key: str) -> None:
    error = error_of(*HEAD, "action: fs.readRegion", line)
    assert error.code is ErrorCode.ERR_NON_KEY_VALUE_LINE
    assert f"did you mean {key}: ...?" in error.message


def test_prose_without_a_colon_gets_no_key_hint() -> None:
    error = error_of(*HEAD, "action: fs.read", "path = README.md")
    assert error.code is ErrorCode.ERR_NON_KEY_VALUE_LINE and "did you mean" not in error.message


def test_miscased_required_keys_are_named() -> None:
    error = error_of("Version: 1", "id: a1", "Action: fs.read", "path: x")
    assert error.code is ErrorCode.ERR_MISSING_REQUIRED_FIELDS
    assert (
        "missing version, action "
        "(keys are case-sensitive: Version is not version, Action is not action)"
    ) in error.message


@pytest.mark.parametrize(
    "value, expected",
    [("400", 400), ("401", 400), ("0010", 10), ("99999999999", 400), ("9" * 5000, 400)],
)
def test_read_slice_lines_above_the_maximum_are_clamped_however_large(
    value: str, expected: int
) -> None:
    command = validate(*HEAD, "action: fs.readSlice", "path: a.txt", f"lines: {value}")
    assert isinstance(command, c.FsReadSlice)
    assert min(command.lines, c.FsReadSlice.MAX_LINES) == expected


@pytest.mark.parametrize("value", ["0", "000", "-1", "+3", "1.5", "1e3", "ten", "12 lines"])
def test_read_slice_numbers_must_be_whole_and_positive(value: str) -> None:
    assert (
        error_of(*HEAD, "action: fs.readSlice", "path: a.txt", f"start: {value}").code
        is ErrorCode.ERR_INVALID_READSLICE_PARAMS
    )


@pytest.mark.parametrize(
    "value, why",
    [
        ("QQ", "is 2 characters long, not a multiple of 4"),
        ("=", "is 1 character long, not a multiple of 4"),
        ("QQ=", "not a multiple of 4"),
        ("QQ===", "not a multiple of 4"),
        ("QQ==QQ==", "padding in the middle"),
        ("Q===", "more than two '='"),
        ("QR==", "not canonical"),
        ("QQ== ", "a space at position 5"),
        ("Q\tQ==", "a tab at position 2"),
        ("P_8-", "'_' at position 2"),
        ("/w==", "not UTF-8"),
        ("gA==", "not UTF-8"),
    ],
)
def test_base64_is_strict_and_says_where_it_broke(value: str, why: str) -> None:
    with pytest.raises(OperatorError) as caught:
        decode_b64_text(value, field="content_b64")
    assert caught.value.code is ErrorCode.ERR_INVALID_BASE64 and why in caught.value.message


@pytest.mark.parametrize(
    "value, text", [("", ""), ("QQ==", "A"), ("QUI=", "AB"), ("QUJD", "ABC"), ("wqk=", "\u00a9")]
)
def test_canonical_base64_decodes(value: str, text: str) -> None:
    assert decode_b64_text(value, field="content_b64") == text


def test_a_result_never_holds_what_cannot_be_encoded() -> None:
    """A file name that is not UTF-8 reaches Python as lone surrogates; a result holding one must
    still render, serialise to JSON and be recorded (it crashed the whole exec before)."""
    import json

    from operator_app.protocol import render_results
    from operator_app.protocol.results import CommandResult, encodable

    result = CommandResult(
        id="l1",
        ok=True,
        summary="Listed caf\udce9",
        details="caf\udce9.txt\n\ud800",
        path="caf\udce9",
    )
    assert (result.summary, result.details, result.path) == (
        "Listed caf\\xe9",
        "caf\\xe9.txt\n\\ud800",
        "caf\\xe9",
    )
    render_results([result]).encode("utf-8")
    json.dumps(result.to_json(), ensure_ascii=False).encode("utf-8")
    assert encodable("plain") == "plain"
    # A result changed afterwards (a command's output added to its details, say) is checked
    # again: replace() runs the same check (msgspec 0.21 and later; pyproject asks for it).
    from msgspec.structs import replace

    changed = replace(result, details="out\udc80put", diff="+\ud800")
    assert (changed.details, changed.diff) == ("out\\x80put", "+\\ud800")


def test_the_catalog_names_each_model_in_the_family_that_declares_it() -> None:
    """Validating a command imports only its action's family, found through the catalog: a model
    missing from it could never be validated, and one listed under the wrong family never found."""
    import importlib

    from operator_app.protocol.commands.catalog import ACTION_NAMES, FAMILIES, FAMILY_OF, model_for

    declared = {
        model.ACTION: family
        for family in FAMILIES
        for model in importlib.import_module(f"operator_app.protocol.commands.{family}").MODELS
    }
    assert declared == FAMILY_OF
    assert list(c.ACTIONS) == list(ACTION_NAMES)
    assert all(
        model_for(action) is c.ACTIONS[action] and action == c.ACTIONS[action].ACTION
        for action in ACTION_NAMES
    )
    assert model_for("fs.nothing") is None
