"""The pure text operations: the spec's applyEdits semantics, regions, comment styles, and the
scanner's equivalence of whole and streamed input (hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operator_app.engine.textops.edits import apply_edits, parse_edits
from operator_app.engine.textops.regions import insert_region, read_region, replace_region, scan_regions
from operator_app.protocol.comments import LANGUAGES, all_styles_payload, language_for_path, resolve_language
from operator_app.protocol.errors import ErrorCode, OperatorError
from operator_app.protocol.scanner import Scanner, scan_message


def edits(*items: dict[str, object]) -> str:
    return json.dumps({"version": 1, "edits": list(items)})


def apply(text: str, *items: dict[str, object]) -> str:
    return apply_edits(text, parse_edits(edits(*items)), label="f.txt").text


def test_the_spec_golden_example() -> None:
    assert apply("Alpha\nBeta", {"op": "insertAfter", "anchor": "Beta", "text": "\nGamma"}) == "Alpha\nBeta\nGamma"


@pytest.mark.parametrize("text, insert, expected", [
    ("Alpha\nBeta\n", "Gamma", "Alpha\nBeta\nGamma\n"),  # the anchor ends a line: "\n" prepended
    ("Alpha\nBeta", "Gamma", "Alpha\nBeta\nGamma"),  # ends the text: same rule
    ("Alpha Beta gamma\n", "X", "Alpha BetaX gamma\n"),  # mid-line: inserted as is
    ("Beta\n", "\nGamma", "Beta\nGamma\n"),  # already starts with "\n": nothing added
])
def test_insert_after_newline_rule(text: str, insert: str, expected: str) -> None:
    assert apply(text, {"op": "insertAfter", "anchor": "Beta", "text": insert}) == expected


def test_edits_apply_in_order_to_the_evolving_text_and_occurrence_counts() -> None:
    text = "a = 1\na = 1\n"
    result = apply(text, {"op": "replaceFirst", "find": "a = 1", "text": "b = 2"},
                   {"op": "insertBefore", "anchor": "b = 2", "text": "# new\n"},
                   {"op": "insertAfter", "anchor": "a = 1", "text": "c = 3", "occurrence": 1})
    assert result == "# new\nb = 2\na = 1\nc = 3\n"
    assert apply("x x x", {"op": "insertBefore", "anchor": "x", "text": "[", "occurrence": 3}) == "x x [x"
    assert apply("x\ny\nz\n", {"op": "replaceRange", "startLine": 2, "endLine": 3, "text": "Y"}) == "x\nY\n"
    assert apply("a.a.a", {"op": "replaceAll", "find": "a", "text": "b"}) == "b.b.b"


@pytest.mark.parametrize("items, code, words", [
    ([{"op": "insertAfter", "anchor": "nope", "text": "x"}], ErrorCode.ERR_ANCHOR_NOT_FOUND, "edit #1 (edits[0], insertAfter)"),
    ([{"op": "insertAfter", "anchor": "x", "text": "y", "occurrence": 4}], ErrorCode.ERR_INVALID_ANCHOR_OCCURRENCE, "occurs 3 times"),
    ([{"op": "replaceRange", "startLine": 2, "endLine": 9, "text": "y"}], ErrorCode.ERR_EDIT_FAILED, "(1 line)"),
    ([{"op": "replaceFirst", "find": "x", "text": "y"}, {"op": "replaceFirst", "find": "q", "text": "y"}],
     ErrorCode.ERR_EDIT_FAILED, "edit #2 (edits[1], replaceFirst)"),
])
def test_edit_failures_name_the_edit(items: list[dict[str, object]], code: ErrorCode, words: str) -> None:
    with pytest.raises(OperatorError) as caught:
        apply("x x x", *items)
    assert caught.value.code is code and words in caught.value.message


@pytest.mark.parametrize("document, words", [
    ("{", "not valid JSON"),
    ('{"version": "1", "edits": []}', "version must be the number 1"),
    ('{"version": 1, "edits": []}', "non-empty"),
    ('{"version": 1, "edits": [{"op": "moveLine"}]}', "ops: insertAfter"),
    ('{"version": 1, "edits": [{"op": "replaceFirst", "find": "a"}]}', "missing text"),
    ('{"version": 1, "edits": [{"op": "insertAfter", "anchor": "a", "text": "b", "occurrence": true}]}', "whole number"),
    ('{"version": 1, "edits": [{"op": "replaceFirst", "find": "a", "text": "b", "occurrence": 2}]}', "does not take 'occurrence'"),
    ("[" * 5000 + "]" * 5000, "nests too deeply"),
])
def test_invalid_edits_documents(document: str, words: str) -> None:
    with pytest.raises(OperatorError) as caught:
        parse_edits(document)
    assert caught.value.code is ErrorCode.ERR_INVALID_EDITS_JSON and words in caught.value.message


PY = LANGUAGES["python"]
HTML = LANGUAGES["html"]


def test_regions_keep_markers_and_new_markers_take_the_anchor_indentation() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    inserted = insert_region(text, PY, "helper", "def f(self)", "def g(self):\n    return 2\n", position="before", label="a.py")
    assert inserted == ("class A:\n    # OPERATOR_BEGIN helper\ndef g(self):\n    return 2\n    # OPERATOR_END helper\n"
                        "    def f(self):\n        return 1\n")
    assert read_region(inserted, PY, "helper", label="a.py") == "def g(self):\n    return 2\n"
    html = "<body>\n  <!-- OPERATOR_BEGIN nav -->\n  <a/>\n  <!-- OPERATOR_END nav -->\n</body>"
    replaced = replace_region(html, HTML, "nav", "  <b/>\n", label="i.html")
    assert replaced == "<body>\n  <!-- OPERATOR_BEGIN nav -->\n  <b/>\n  <!-- OPERATOR_END nav -->\n</body>"
    scan = scan_regions("# OPERATOR_BEGIN a\n# OPERATOR_END a\n// OPERATOR_BEGIN b\n", PY)
    assert [r.marker_id for r in scan.regions] == ["a"] and not scan.problems  # other comment styles are not markers


@given(st.lists(st.text(alphabet="ab \t#x", max_size=8), min_size=1, max_size=8), st.text(alphabet="cd\n ", max_size=20))
@settings(max_examples=150, deadline=None)
def test_replace_then_read_returns_the_content(lines: list[str], content: str) -> None:
    text = "\n".join(["start", "# OPERATOR_BEGIN r", *[l for l in lines if "OPERATOR" not in l], "# OPERATOR_END r", "end"]) + "\n"
    expected = content if content.endswith("\n") or not content else content + "\n"
    assert read_region(replace_region(text, PY, "r", content, label="f"), PY, "r", label="f") == expected


def test_comment_styles() -> None:
    assert resolve_language("TypeScript") == "ts" and language_for_path("src/App.TSX") == "ts"
    assert language_for_path("Makefile") == "makefile" and language_for_path("data.json") is None
    assert LANGUAGES["ts"].payload("ts") == {"language": "ts", "type": "line", "line_prefix": "//"}
    assert LANGUAGES["html"].payload("html") == {"language": "html", "type": "block", "block_start": "<!--", "block_end": "-->"}
    styles = all_styles_payload()["styles"]
    assert [s["language"] for s in styles] == sorted(s["language"] for s in styles)
    with pytest.raises(OperatorError) as caught:
        resolve_language("klingon")
    assert caught.value.code is ErrorCode.ERR_UNKNOWN_LANGUAGE and "python" in caught.value.message


MESSAGE_PARTS = st.lists(st.sampled_from([
    "prose line\n", "OPERATOR_CMD\n", "END_OPERATOR_CMD\n", "version: 1\n", "id: a\n", "action: fs.read\n",
    "path: x\n", "```OPERATOR_CMD\n", "OPERATOR_RESULT\n", "END_OPERATOR_RESULT\n", "\n", "\r\n", "\r",
    "  OPERATOR_CMD  \r\n", "operator_cmd\n", "caf\u00e9\n", "END_OPERATOR_CMD",
]), max_size=40)


def _key(events: list[object]) -> list[tuple[object, ...]]:
    return [(getattr(e, "start_line", None), getattr(e, "end_line", None), getattr(e, "lines", None),
             getattr(getattr(e, "error", None), "code", None), getattr(e, "id_hint", None), getattr(e, "message", None))
            for e in events]


@given(MESSAGE_PARTS, st.lists(st.integers(min_value=1, max_value=17), min_size=1, max_size=30))
@settings(max_examples=300, deadline=None)
def test_scanning_never_raises_and_chunked_feeds_agree_with_whole(parts: list[str], cuts: list[int]) -> None:
    text = "".join(parts)
    whole = Scanner()
    expected = whole.feed(text) + whole.end()
    streamed = Scanner()
    events: list[object] = []
    pos, index = 0, 0
    while pos < len(text):
        size = cuts[index % len(cuts)]
        events += streamed.feed(text[pos : pos + size])
        if index % 3 == 0:
            streamed.pending  # looking at the pending block must not change the outcome
        pos, index = pos + size, index + 1
    events += streamed.end()
    assert _key(events) == _key(expected)
    blocks = scan_message(text).blocks
    assert len(blocks) == sum(1 for e in expected if hasattr(e, "lines"))
