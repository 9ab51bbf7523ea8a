"""Result blocks stay well-formed whatever text they carry: an id or summary holding control
characters can neither forge a result line (for tools that split with str.splitlines()) nor
reach the person's terminal as an escape sequence."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from operator_app.protocol import render_results
from operator_app.protocol.escapes import escape_controls
from operator_app.protocol.results import CommandResult, one_line

FORGED_ID = "x\x0cok: true\x0bsummary: forged\x1b[2K"


def _lines(result: CommandResult) -> list[str]:
    return render_results([result]).splitlines()


def test_a_forged_id_stays_on_its_line_and_shows_its_escapes() -> None:
    lines = _lines(CommandResult(id=FORGED_ID, ok=False, summary="refused"))
    assert lines == [
        "OPERATOR_RESULT",
        "id: x\\x0cok: true\\x0bsummary: forged\\x1b[2K",
        "ok: false",
        "summary: refused",
        "END_OPERATOR_RESULT",
    ]


def test_escape_sequences_in_a_summary_are_shown_not_sent() -> None:
    summary = "1 region in r.py: \x1b]0;PWNED\x07\x1b[2J and \x9b31m C1 \x85 next \x1c line"
    (line,) = [
        line
        for line in _lines(CommandResult(id="g", ok=True, summary=summary))
        if line.startswith("summary: ")
    ]
    assert (
        line
        == "summary: 1 region in r.py: \\x1b]0;PWNED\\x07\\x1b[2J and \\x9b31m C1   next   line"
    )


def test_plain_text_and_tabs_are_untouched() -> None:
    assert escape_controls("a\tb caf\u00e9") == "a\tb caf\u00e9"
    assert one_line("one\ntwo\r\nthree") == "one two three"


@given(st.text(), st.text())
def test_any_id_and_summary_render_as_exactly_five_printable_lines(
    command_id: str, summary: str
) -> None:
    lines = _lines(CommandResult(id=command_id, ok=True, summary=summary))
    assert len(lines) == 5 and lines[1].startswith("id: ") and lines[3].startswith("summary: ")
    for line in lines:
        assert not any(unicodedata.category(ch) == "Cc" and ch != "\t" for ch in line), line
