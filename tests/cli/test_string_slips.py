"""The slips a model trained on String's documents makes, each with a clear error or the seeds'
behaviour, through the real `operator-app exec`: words after a path, /write without content,
/set with its value on the next line or with nothing after =, mode=edit on an edit's answer,
/open @shortcut, a path with a bidirectional control (refused in both dialects), a name in
another Unicode normalization (found), and a large file whose advice works."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tests.support.blocks import block
from tests.support.string_exec import S, Workspace, chan, content, context


def test_words_after_a_path_are_refused_and_a_quoted_path_has_spaces(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"notes/old notes.md": "old\n"})
    refused = w.exec(chan("/write notes/x.md hello world")).one
    assert refused["error_code"] == "INVALID_PARAMS"
    assert refused["summary"] == (
        "\u2717 INVALID_PARAMS: /write takes one path, and 'hello world' follows notes/x.md on "
        "the command line"
    )
    assert "the content goes on the lines after the command line" in context(refused)
    assert not (w.ws / "notes" / "x.md hello world").exists() and not (w.ws / "notes/x.md").exists()
    quoted = w.exec(chan('/write "notes/new notes.md"\nhello world')).one
    assert quoted["ok"] and w.read("notes/new notes.md") == "hello world\n"
    existing = w.exec(chan("/open notes/old notes.md")).one  # a name with spaces that exists
    assert existing["ok"] and content(existing) == "old"
    # /open takes no content: only the quoting is advised, quoting the path whole.
    opened = w.exec(chan('/open ~/"day log/plan one.md"')).one
    assert opened["error_code"] == "INVALID_PARAMS"
    assert "content" not in context(opened)
    assert context(opened) == (
        'a path with spaces is written in quotes, whole: /open "~/day log/plan one.md"'
    )


def test_write_without_content_is_refused_and_one_empty_line_empties(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.md": "keep\n"})
    refused = w.exec(chan("/write a.md")).one
    assert (
        refused["error_code"] == "INVALID_PARAMS"
        and "for an empty file, one empty line" in (refused["summary"])
    )
    assert w.read("a.md") == "keep\n"
    emptied = w.exec(f"<{S}=string:t>/write a.md\n\n</{S}>\n").one
    assert emptied["ok"] and w.read("a.md") == ""
    # A new empty file is a change: not "(no change: the file already holds this)".
    made = w.exec(f"<{S}=string:t>/write b.md\n\n</{S}>\n").one
    assert made["ok"] and w.read("b.md") == "" and content(made) == "(a new, empty file)"
    again = w.exec(f"Once more.\n<{S}=string:t>/write b.md\n\n</{S}>\n").one
    assert content(again) == "(no change: the file already holds this)"


def test_set_takes_its_value_on_the_next_line_and_refuses_nothing_after_equals(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"Seoul.md": "Han river\n"})
    run = w.exec(chan("/set {city}\nSeoul") + chan("/open {city}.md"))
    assert [r["ok"] for r in run.results] == [True, True]
    assert run.results[0]["summary"] == '\u2713 {city} = "Seoul"'
    assert content(run.results[1]) == "Han river"
    empty = w.exec(chan("/set {city} =")).one
    assert empty["error_code"] == "INVALID_PARAMS"
    assert (
        'no value after =: /set {city} = "value" (an empty value is written "")'
        in (empty["summary"])
    )
    assert w.exec(chan('/set {city} = ""')).one["summary"] == '\u2713 {city} = ""'


def test_an_edits_answer_carries_mode_edit(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.md": "one\ntwo\n"})
    run = w.exec(chan("/edit a.md") + chan("/replace a.md:L2\nTWO") + chan("/open a.md"))
    tags = [line for line in run.copy_text.split("\n") if line.startswith(f"<{S}=")]
    assert [tag.endswith(" mode=edit>") for tag in tags] == [True, True, False]


def test_open_of_a_shortcut_says_file_topics_have_none(tmp_path: Path) -> None:
    w = Workspace(tmp_path)
    refused = w.exec(chan("/open @docs")).one
    assert refused["error_code"] == "NOT_FOUND"
    assert refused["summary"] == "\u2717 NOT_FOUND: shortcut not found"
    assert context(refused).split("\n") == [
        "@docs is not defined: file topics have no shortcuts",
        "name a path (/open ~/notes.md), or find a file by name: /find NAME",
    ]


def test_a_bidirectional_control_in_a_name_is_refused_in_both_dialects(tmp_path: Path) -> None:
    trojan = "invoice\u202etxt.exe"
    w = Workspace(tmp_path, {trojan: "x\n"})
    refused = w.exec(chan(f"/open {trojan}") + chan("/write new\u2066.md\nx")).results
    for result in refused:
        assert result["error_code"] == "INVALID_PATH", result
        assert "invisible bidirectional control (U+" in result["summary"]
    assert "(U+202E RIGHT-TO-LEFT OVERRIDE) at position 7" in refused[0]["summary"]
    assert '"invoice\\u202etxt.exe"' in refused[0]["summary"]
    assert not any("\u2066" in p.name for p in w.ws.iterdir())
    # OPERATOR_CMD takes ASCII only in a block: such a path never reaches the workspace.
    operator = w.exec(block("r1", "fs.read", path=trojan)).one
    assert operator["error_code"] == "ERR_NON_ASCII_IN_CMD"


def test_a_name_in_another_unicode_normalization_is_found(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "café.md")
    w = Workspace(tmp_path, {decomposed: "menu\n"})
    composed = unicodedata.normalize("NFC", "café.md")
    assert composed != decomposed
    opened = w.exec(chan(f"/open {composed}")).one
    assert opened["ok"] and content(opened) == "menu"
    changed = w.exec("Adding.\n" + chan(f"/append {composed}\nsoup")).one
    assert changed["ok"] and sorted(p.name for p in w.ws.iterdir()) == [decomposed]
    assert w.read(decomposed) == "menu\nsoup\n"


def test_a_large_files_advice_works(tmp_path: Path) -> None:
    lines = [
        f"line {n} of a generated log, padded to a realistic width......" for n in range(1, 50_001)
    ]
    w = Workspace(tmp_path, {"big.log": "\n".join(lines) + "\n"})
    assert (w.ws / "big.log").stat().st_size > 3_000_000
    whole = w.exec(chan("/open big.log")).one
    assert whole["error_code"] == "LOAD_ERROR"
    assert context(whole) == "open some lines of it: /open ~/big.log:L1-L400 (it has 50,000 lines)"
    advised = w.exec(chan("/open ~/big.log:L1-L400")).one
    assert advised["ok"], advised
    shown = content(advised).split("\n")
    assert (
        len(shown) == 400
        and shown[0] == "  1 \u2502 line 1 of a generated log, padded to a realistic width......"
    )
    tail = w.exec(chan("/open big.log:L49999-L50000")).one
    assert content(tail).split("\n")[-1].startswith("50000 \u2502 line 50000 ")
