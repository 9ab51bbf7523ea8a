"""Issue 33, item 5, through `operator-app exec`: String can insert and find sections. Operator's
own /insert puts its content after a :L line or a #block (before it with --before), asked about,
undone and held to the line-number rule like /replace; reST and AsciiDoc section titles are
blocks, and the `#` lines of a code sample never are."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.string_exec import Workspace, chan, content, context

NOTES = "# Notes\n\n## Install\n\npip install x\n\n## Use\n\nrun x\n"

README_RST = """\
=====
Tool
=====

Install with pip::

    # not a title: a comment of the sample
    pip install tool

Installation
============

From source:

.. code-block:: sh

    # clone it
    git clone tool

Usage
-----

Run it.

Advanced
========

More.
"""

README_ADOC = """\
= Tool

== Installation

----
# a comment of the listing
== not a title either
----

From source.

=== From pip

pip install tool

== Usage

Run it.
"""


def test_insert_after_and_before_a_line(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.py": "one\ntwo\nthree\n"})
    after = w.exec(chan("/insert a.py:L2\nafter_two")).one
    assert after["summary"] == "\u2713 a.py:L2 \u2014 Added 1 line as :L3; lines after 2 moved +1"
    assert w.read("a.py") == "one\ntwo\nafter_two\nthree\n"
    before = w.exec(chan("/insert a.py:L1 --before\nfirst\nsecond")).one
    assert before["ok"] and "Added 2 lines as :L1-L2; all lines moved +2" in before["summary"]
    assert w.read("a.py") == "first\nsecond\none\ntwo\nafter_two\nthree\n"
    # The diff shows the new lines among the kept ones.
    assert "1 +\u2502 first" in content(before) and "3 \u2502 one" in content(before)


def test_insert_at_the_end_keeps_the_file_s_last_line_break_or_its_absence(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"nl.txt": "a\nb\n", "bare.txt": "a\nb", "crlf.txt": b"a\r\nb\r\n"})
    run = w.exec(
        chan("/insert nl.txt:L2\nc")
        + chan("/insert bare.txt:L2\nc")
        + chan("/insert crlf.txt:L1\nc")
    )
    assert all(r["ok"] for r in run.results), run.results
    assert w.read("nl.txt") == "a\nb\nc\n"
    assert w.read("bare.txt") == "a\nb\nc"
    assert (w.ws / "crlf.txt").read_bytes() == b"a\r\nc\r\nb\r\n"


def test_insert_under_a_heading_and_before_the_next_one(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"notes.md": NOTES})
    run = w.exec(
        chan("/insert notes.md#use --before\n## Configure\n\nset x\n")
        + chan("/insert notes.md#install\npip install y")
    )
    assert [r["ok"] for r in run.results] == [True, True], run.results
    assert w.read("notes.md") == (
        "# Notes\n\n## Install\n\npip install x\npip install y\n\n"
        "## Configure\n\nset x\n## Use\n\nrun x\n"
    )


def test_insert_into_the_topic_s_current_document_and_undo_it(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"c.txt": "1\n2\n3\n"})
    run = w.exec(chan("/open c.txt") + chan("/insert :L2-L3 before\nx"))
    assert run.results[1]["ok"], run.results[1]
    assert w.read("c.txt") == "1\nx\n2\n3\n"
    undone = w.exec(chan("/undo")).one
    assert undone["ok"], undone
    assert w.read("c.txt") == "1\n2\n3\n"


def test_a_declined_insert_leaves_the_file(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"c.txt": "1\n2\n"})
    declined = w.exec(chan("/insert c.txt:L1\nx"), approve="none").one
    assert declined["error_code"] == "REJECTED"
    assert w.read("c.txt") == "1\n2\n"


@pytest.mark.parametrize(
    ("block", "code", "says"),
    [
        ("/insert c.txt\nx", "INVALID_PARAMS", "/insert names the line or block to insert after"),
        ("/insert c.txt:L1", "INVALID_PARAMS", "/insert needs the lines to insert"),
        ("/insert c.txt:L1 --sideways\nx", "INVALID_PARAMS", "--sideways is not an option"),
        ("/insert c.txt:L1 --before --after\nx", "INVALID_PARAMS", "either before or after"),
        ("/insert c.txt@c1:L1\nx", "INVALID_PARAMS", "a kept version cannot be changed"),
        ("/insert c.txt:L9\nx", "LINE_OUT_OF_RANGE", "line 9 does not exist"),
        ("/insert c.txt#nope\nx", "BLOCK_NOT_FOUND", "block #nope not found"),
        ("/insert gone.txt:L1\nx", "NOT_FOUND", "file not found"),
    ],
)
def test_insert_errors_leave_the_file(tmp_path: Path, block: str, code: str, says: str) -> None:
    w = Workspace(tmp_path, {"c.txt": "1\n2\n"})
    refused = w.exec(chan(block)).one
    assert refused["error_code"] == code, refused
    assert says in refused["summary"] + context(refused), refused
    assert w.read("c.txt") == "1\n2\n"


def test_an_insert_numbered_before_an_earlier_change_of_the_message_is_held(
    tmp_path: Path,
) -> None:
    w = Workspace(tmp_path, {"c.txt": "1\n2\n3\n"})
    run = w.exec(chan("/insert c.txt:L1\nx") + chan("/insert c.txt:L2\ny"))
    assert run.results[0]["ok"] and run.results[1]["error_code"] == "LINES_MOVED"
    assert w.read("c.txt") == "1\nx\n2\n3\n"


def test_rest_titles_are_blocks_and_code_samples_are_not(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"README.rst": README_RST})
    run = w.exec(chan("/open README.rst#installation") + chan("/open README.rst#clone-it"))
    opened, missing = run.results
    assert opened["ok"], opened
    assert content(opened).split("\n")[:2] == ["Installation", "============"]
    assert "git clone tool" in content(opened) and "Usage" in content(opened)
    assert "Advanced" not in content(opened)  # the next title of the same level ends it
    assert missing["error_code"] == "BLOCK_NOT_FOUND"
    assert "available blocks: #tool, #installation, #usage, #advanced" in context(missing)


def test_asciidoc_titles_are_blocks_and_listing_lines_are_not(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"guide.adoc": README_ADOC})
    run = w.exec(
        chan("/open guide.adoc#installation")
        + chan("/open guide.adoc#not-a-title-either")
        + chan("/insert guide.adoc#from-pip\npipx install tool")
    )
    opened, missing, inserted = run.results
    assert content(opened).split("\n")[0] == "== Installation"
    assert "pip install tool" in content(opened) and "== Usage" not in content(opened)
    assert missing["error_code"] == "BLOCK_NOT_FOUND"
    assert "available blocks: #tool, #installation, #from-pip, #usage" in context(missing)
    assert inserted["ok"], inserted
    assert "pip install tool\npipx install tool\n\n== Usage" in w.read("guide.adoc")


def test_help_and_the_prompt_name_insert(tmp_path: Path) -> None:
    from operator_app.protocol.chanflow.spec import string_prompt

    w = Workspace(tmp_path)
    helped = w.exec(chan("/help")).one["details"]
    assert "/insert path:L5 | /insert path#block\n" in helped
    assert "(--before: before it)" in helped
    assert "/insert path:L5 | path#block + content *: the content goes after" in string_prompt()


def test_a_marked_block_takes_the_lines_inside_its_markers(tmp_path: Path) -> None:
    notes = (
        "<!-- #decisions -->\n- ship it\n<!-- /decisions -->\n<!-- #empty -->\n<!-- /empty -->\n"
    )
    w = Workspace(tmp_path, {"notes.md": notes})
    run = w.exec(
        chan("/insert notes.md#empty\n- first")
        + chan("/insert notes.md#decisions\n- last")
        + chan("/insert notes.md#decisions --before\n- top")
    )
    assert all(r["ok"] for r in run.results), run.results
    assert w.read("notes.md") == (
        "<!-- #decisions -->\n- top\n- ship it\n- last\n<!-- /decisions -->\n"
        "<!-- #empty -->\n- first\n<!-- /empty -->\n"
    )
