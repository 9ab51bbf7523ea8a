"""The pure text operations: the spec's applyEdits semantics, regions, comment styles, and the
scanner's equivalence of whole and streamed input (hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operator_app.engine.textops.edits import apply_edits
from operator_app.engine.textops.hints import closest_line
from operator_app.engine.textops.regions import (
    insert_region,
    read_region,
    replace_region,
    scan_regions,
)
from operator_app.protocol.comments import (
    LANGUAGES,
    all_styles_payload,
    language_for_path,
    resolve_language,
)
from operator_app.protocol.edits import parse_edits
from operator_app.protocol.errors import ErrorCode, OperatorError


def edits(*items: dict[str, object]) -> str:
    return json.dumps({"version": 1, "edits": list(items)})


def apply(text: str, *items: dict[str, object]) -> str:
    return apply_edits(text, parse_edits(edits(*items)), label="f.txt").text


def test_the_spec_golden_example() -> None:
    assert (
        apply("Alpha\nBeta", {"op": "insertAfter", "anchor": "Beta", "text": "\nGamma"})
        == "Alpha\nBeta\nGamma"
    )


@pytest.mark.parametrize(
    "text, insert, expected",
    [
        (
            "Alpha\nBeta\n",
            "Gamma",
            "Alpha\nBeta\nGamma\n",
        ),  # the anchor ends a line: "\n" prepended
        ("Alpha\nBeta", "Gamma", "Alpha\nBeta\nGamma"),  # ends the text: same rule
        ("Alpha Beta gamma\n", "X", "Alpha BetaX gamma\n"),  # mid-line: inserted as is
        ("Beta\n", "\nGamma", "Beta\nGamma\n"),  # already starts with "\n": nothing added
    ],
)
def test_insert_after_newline_rule(text: str, insert: str, expected: str) -> None:
    assert apply(text, {"op": "insertAfter", "anchor": "Beta", "text": insert}) == expected


def test_edits_apply_in_order_to_the_evolving_text_and_occurrence_counts() -> None:
    text = "a = 1\na = 1\n"
    result = apply(
        text,
        {"op": "replaceFirst", "find": "a = 1", "text": "b = 2"},
        {"op": "insertBefore", "anchor": "b = 2", "text": "# new\n"},
        {"op": "insertAfter", "anchor": "a = 1", "text": "c = 3", "occurrence": 1},
    )
    assert result == "# new\nb = 2\na = 1\nc = 3\n"
    assert (
        apply("x x x", {"op": "insertBefore", "anchor": "x", "text": "[", "occurrence": 3})
        == "x x [x"
    )
    assert (
        apply("x\ny\nz\n", {"op": "replaceRange", "startLine": 2, "endLine": 3, "text": "Y"})
        == "x\nY\n"
    )
    assert apply("a.a.a", {"op": "replaceAll", "find": "a", "text": "b"}) == "b.b.b"


@pytest.mark.parametrize(
    "items, code, words",
    [
        (
            [{"op": "insertAfter", "anchor": "nope", "text": "x"}],
            ErrorCode.ERR_ANCHOR_NOT_FOUND,
            "edit #1 (edits[0], insertAfter)",
        ),
        (
            [{"op": "insertAfter", "anchor": "x", "text": "y", "occurrence": 4}],
            ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE,
            "occurs 3 times",
        ),
        (
            [{"op": "replaceRange", "startLine": 2, "endLine": 9, "text": "y"}],
            ErrorCode.ERR_EDIT_FAILED,
            "(1 line)",
        ),
        (
            [
                {"op": "replaceFirst", "find": "x", "text": "y"},
                {"op": "replaceFirst", "find": "q", "text": "y"},
            ],
            ErrorCode.ERR_EDIT_FAILED,
            "edit #2 (edits[1], replaceFirst)",
        ),
    ],
)
def test_edit_failures_name_the_edit(
    items: list[dict[str, object]], code: ErrorCode, words: str
) -> None:
    with pytest.raises(OperatorError) as caught:
        apply("x x x", *items)
    assert caught.value.code is code and words in caught.value.message


@pytest.mark.parametrize(
    "document, words",
    [
        ("{", "not valid JSON"),
        ('{"version": "1", "edits": []}', "version must be the number 1"),
        ('{"version": 1, "edits": []}', "non-empty"),
        ('{"version": 1, "edits": [{"op": "moveLine"}]}', "ops: insertAfter"),
        ('{"version": 1, "edits": [{"op": "replaceFirst", "find": "a"}]}', "missing text"),
        (
            '{"version": 1, "edits": [{"op": "insertAfter", "anchor": "a", "text": "b", '
            '"occurrence": true}]}',
            "whole number",
        ),
        (
            '{"version": 1, "edits": [{"op": "replaceFirst", "find": "a", "text": "b", '
            '"occurrence": 2}]}',
            "does not take 'occurrence'",
        ),
        ("[" * 5000 + "]" * 5000, "nests too deeply"),
    ],
)
def test_invalid_edits_documents(document: str, words: str) -> None:
    with pytest.raises(OperatorError) as caught:
        parse_edits(document)
    assert caught.value.code is ErrorCode.ERR_INVALID_EDITS_JSON and words in caught.value.message


PY = LANGUAGES["python"]
HTML = LANGUAGES["html"]


def test_regions_keep_markers_and_new_markers_take_the_anchor_indentation() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    inserted = insert_region(
        text,
        PY,
        "helper",
        "def f(self)",
        "def g(self):\n    return 2\n",
        position="before",
        label="a.py",
    )
    assert inserted == (
        "class A:\n    # OPERATOR_BEGIN helper\ndef g(self):\n    return 2\n"
        "    # OPERATOR_END helper\n"
        "    def f(self):\n        return 1\n"
    )
    assert read_region(inserted, PY, "helper", label="a.py") == "def g(self):\n    return 2\n"
    html = "<body>\n  <!-- OPERATOR_BEGIN nav -->\n  <a/>\n  <!-- OPERATOR_END nav -->\n</body>"
    replaced = replace_region(html, HTML, "nav", "  <b/>\n", label="i.html")
    assert (
        replaced
        == "<body>\n  <!-- OPERATOR_BEGIN nav -->\n  <b/>\n  <!-- OPERATOR_END nav -->\n</body>"
    )
    scan = scan_regions("# OPERATOR_BEGIN a\n# OPERATOR_END a\n// OPERATOR_BEGIN b\n", PY)
    assert [r.marker_id for r in scan.regions] == [
        "a"
    ]  # other comment styles are not markers, but are pointed out
    assert scan.problems == (
        "marker lines were skipped: this file's markers are in another comment style (line 3: "
        '"// OPERATOR_BEGIN b"); pass comment_line_prefix: // to read them',
    )
    assert not scan_regions(
        '# OPERATOR_BEGIN a\nkey = "OPERATOR_BEGIN b"\n# OPERATOR_END a\n', PY
    ).problems  # not a comment


@given(
    st.lists(st.text(alphabet="ab \t#x", max_size=8), min_size=1, max_size=8),
    st.text(alphabet="cd\n ", max_size=20),
)
@settings(max_examples=150, deadline=None)
def test_replace_then_read_returns_the_content(lines: list[str], content: str) -> None:
    text = (
        "\n".join(
            [
                "start",
                "# OPERATOR_BEGIN r",
                *[line for line in lines if "OPERATOR" not in line],
                "# OPERATOR_END r",
                "end",
            ]
        )
        + "\n"
    )
    expected = content if content.endswith("\n") or not content else content + "\n"
    assert (
        read_region(replace_region(text, PY, "r", content, label="f"), PY, "r", label="f")
        == expected
    )


def test_comment_styles() -> None:
    assert resolve_language("TypeScript") == "ts" and language_for_path("src/App.TSX") == "ts"
    assert language_for_path("Makefile") == "makefile" and language_for_path("data.json") is None
    assert LANGUAGES["ts"].payload("ts") == {"language": "ts", "type": "line", "line_prefix": "//"}
    assert LANGUAGES["html"].payload("html") == {
        "language": "html",
        "type": "block",
        "block_start": "<!--",
        "block_end": "-->",
    }
    styles = all_styles_payload()["styles"]
    assert [s["language"] for s in styles] == sorted(s["language"] for s in styles)
    with pytest.raises(OperatorError) as caught:
        resolve_language("klingon")
    assert caught.value.code is ErrorCode.ERR_UNKNOWN_LANGUAGE and "python" in caught.value.message


# --- bounds on what hostile edits and needles cost ------------------------------------------------


def test_edits_never_grow_the_text_past_the_write_limit() -> None:
    """A replaceAll is sized before its string is built (o -> 50 o's on 200,000 o's would be 10 MB,
    and o -> 5,000 o's a gigabyte); other edits are checked as they apply."""
    with pytest.raises(OperatorError) as caught:
        apply(
            "o" * 200_000 + "\n",
            {"op": "replaceFirst", "find": "o", "text": "o"},
            {"op": "replaceAll", "find": "o", "text": "o" * 50},
        )
    assert caught.value.code is ErrorCode.ERR_FILE_TOO_LARGE
    assert caught.value.message.startswith(
        "edit #2 (edits[1], replaceAll): replacing 200,000 occurrences of 1 character with "
        "50 characters would make f.txt 10,000,001 characters long (it is 200,001 before this "
        "edit), over the 8,000,000-byte limit"
    )
    chunk = "x" * 40_000
    with pytest.raises(OperatorError) as caught:
        apply(
            "start\n" + "y" * 7_900_000,
            *[{"op": "insertAfter", "anchor": "start", "text": chunk}] * 5,
        )
    assert caught.value.code is ErrorCode.ERR_FILE_TOO_LARGE and caught.value.message.startswith(
        "edit #3 (edits[2], insertAfter)"
    )
    assert (
        len(
            apply(
                "start\n" + "y" * 7_900_000,
                *[{"op": "insertAfter", "anchor": "start", "text": chunk}] * 2,
            )
        )
        < 8_000_000
    )


@pytest.mark.parametrize("field", ["anchor", "text"])
def test_a_lone_surrogate_in_the_edits_is_invalid_json_for_operator(field: str) -> None:
    item = {"op": "insertAfter", "anchor": "a", "text": "b"}
    document = json.dumps({"version": 1, "edits": [item]}).replace(f'"{item[field]}"', '"x\\ud800"')
    with pytest.raises(OperatorError) as caught:
        parse_edits(document)
    assert caught.value.code is ErrorCode.ERR_INVALID_EDITS_JSON
    assert (
        f"edit #1 (edits[0]) (insertAfter): {field} holds a lone surrogate \\ud800 at character 2"
        in caught.value.message
    )
    assert json.loads('"\\ud83d\\ude00"') in apply(
        "a", {"op": "insertAfter", "anchor": "a", "text": "\ud83d\ude00"}
    )


DEMO_APP = (
    Path(__file__).resolve().parents[2] / "fixtures" / "demo-workspace" / "src" / "app.py"
).read_text()


@pytest.mark.parametrize(
    "typed, number, line",
    [
        ("def mian(", 12, "def main(argv: list[str]) -> int:"),
        ("def man(", 12, "def main(argv: list[str]) -> int:"),
        ("retrun 0", 15, "    return 0"),
        ("improt sys", 3, "import sys"),
        ("print(greet(nme))", 14, "    print(greet(name))"),
    ],
)
def test_the_closest_line_hint_sees_through_typos_in_a_part_of_a_long_line(
    typed: str, number: int, line: str
) -> None:
    assert closest_line(DEMO_APP, typed) == (number, line)


def test_the_closest_line_hint_stays_quiet_when_nothing_is_close() -> None:
    assert (
        closest_line(DEMO_APP, "zebra crossing") is None and closest_line(DEMO_APP, "   \n") is None
    )


@pytest.mark.timeout(60)
def test_the_closest_line_hint_is_bounded_on_long_needles_and_big_files() -> None:
    """15,000 words against 200,000 lines: every line against every word took minutes."""
    from operator_app.engine.textops import hints

    before = hints.work.compared
    assert (
        closest_line("zzzzzzzzzz\n" * 200_000, " ".join(f"w{i:05d}" for i in range(15_000))) is None
    )
    lines = "".join(f"value_{i % 97} = compute(item_{i})\n" for i in range(200_000))
    assert closest_line(lines, "value_13 = compute(item_199)") is not None
    assert closest_line("ab" * 4_000_000, "ab" * 30_000) is not None  # one 8 MB line
    assert hints.work.compared - before <= 3 * (hints.COMPARE_BUDGET + hints.MAX_WINDOW)


def test_regions_in_another_comment_style_are_pointed_at() -> None:
    text = "import os\n// OPERATOR_BEGIN a\nx = 1\n// OPERATOR_END a\n"
    with pytest.raises(OperatorError) as caught:
        read_region(text, PY, "a", label="m.py")
    assert caught.value.code is ErrorCode.ERR_REGION_MARKER_NOT_FOUND
    assert caught.value.message == (
        'region "a" not found in m.py with markers like "# OPERATOR_BEGIN <id>"; '
        'region "a" is marked in another comment style (line 2: "// OPERATOR_BEGIN a"); '
        "pass comment_line_prefix: // to read it"
    )
    html = "<div>\n<!-- OPERATOR_BEGIN nav -->\n</div>\n<!-- OPERATOR_END nav -->\n"
    with pytest.raises(OperatorError) as caught:
        replace_region(html, PY, "other", "x\n", label="p.py")
    assert (
        "pass comment_block_start: <!-- and comment_block_end: --> to read them"
        in caught.value.message
    )
    with pytest.raises(OperatorError) as caught:
        insert_region(text, PY, "a", "import os", "y = 2\n", label="m.py")
    assert (
        caught.value.code is ErrorCode.ERR_REGION_MARKER_ALREADY_EXISTS
        and "comment_line_prefix: //" in caught.value.message
    )


def test_a_long_find_text_is_not_echoed_whole() -> None:
    with pytest.raises(OperatorError) as caught:
        apply("zzz\n" * 100, {"op": "replaceFirst", "find": "w00001 " * 5_000, "text": "x"})
    assert caught.value.code is ErrorCode.ERR_EDIT_FAILED
    assert (
        '..." (35,000 characters) not found in f.txt' in caught.value.message
        and len(caught.value.message) < 600
    )
