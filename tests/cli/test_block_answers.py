"""Every block gets an answer, through the real `operator-app exec`: a String block that starts
before the last 200,000 characters of a message (so it is larger than what Operator reads)
gets BLOCK_TOO_LARGE naming the limit and what to do, in its own topic; near-miss tags and a
stray close tag get MALFORMED_TAG with the exact form (fixtures/cases/string/invalid/
MALFORMED_TAG has every kind); and nothing of such a block runs."""

from __future__ import annotations

from pathlib import Path

from tests.support.blocks import block
from tests.support.string_exec import S, Workspace, chan, context


def test_a_string_block_cut_by_the_window_is_answered_in_its_topic(tmp_path: Path) -> None:
    w = Workspace(tmp_path)
    message = (
        "Here is the whole file.\n"
        + f"<{S}=string:notes>/write big.txt\n"
        + "y" * 200_000
        + f"\n</{S}>\nAnd a look:\n"
        + chan("/ls")
    )
    run = w.exec(message)
    cut, listed = run.results
    assert (cut["error_code"], cut["topic"], cut["action"]) == (
        "BLOCK_TOO_LARGE",
        "file:notes",
        "/?",
    )
    assert cut["summary"] == (
        "\u2717 BLOCK_TOO_LARGE: the block ending at line 4 starts before the last 200,000 "
        "characters of the message, which are all Operator reads; nothing in it was run"
    )
    assert context(cut) == (
        "send it again near the end of a message; split a large content: /write the first part, "
        "then /append the rest, each block under 200,000 characters"
    )
    assert listed["ok"] and not (w.ws / "big.txt").exists()


def test_both_dialects_answer_a_block_the_window_cut(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.txt": "a\n"})
    cut_command = block("w1", "fs.write", path="a.txt", content="x" * 200_000)
    run = w.exec(cut_command + block("r1", "fs.stat", path="a.txt"))
    answered, stat = run.results
    assert answered["error_code"] == "ERR_BLOCK_TOO_LARGE" and stat["ok"]
    assert w.read("a.txt") == "a\n"


def test_a_stray_close_tag_is_answered(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.md": "a\n"})
    run = w.exec("I will open it: /open a.md</" + S + ">\n")
    (stray,) = run.results
    assert stray["error_code"] == "MALFORMED_TAG"
    assert stray["summary"] == (
        "\u2717 MALFORMED_TAG: a close tag at line 1 closes no block (no open tag came before "
        "it); nothing in the block was run"
    )
    assert f"<{S}=string:file:main>" in context(stray)
    # The response block shows it escaped (no tag but its own: tag_escape.py).
    assert f"write it exactly: <\\{S}=string:file:main>" in run.copy_text


def test_a_nested_tags_advice_followed_to_the_letter_writes_the_tags(tmp_path: Path) -> None:
    """The advice names no tag (a response shows every tag start with one more backslash, so a
    tag in it reached the model doubled and went into the file so); done as it says, the file
    gets the tags."""
    w = Workspace(tmp_path)
    tag = f"<{S}=string:notes>/ls</{S}>"
    nested = w.exec(f"<{S}=string:edge>\n/write tags.md\nExample: {tag}\n</{S}>\n")
    first = nested.results[0]
    told = f"{first['summary']}\n{first['details'] or ''}"
    assert first["error_code"] == "NESTED_BLOCK" and S not in told
    assert "put one backslash right after the < of each of its open and close tags" in told
    escaped = tag.replace("<", "<\\")
    done = w.exec(f"<{S}=string:edge>\n/write tags.md\nExample: {escaped}\n</{S}>\n")
    assert done.one["ok"] and w.read("tags.md") == f"Example: {tag}\n"
