"""The cost check of a regex: true query (protocol/regex_cost.py) on its own: ordinary queries
pass, and the bound holds even if the `regex` module's parser moved."""

from __future__ import annotations

import pytest

from operator_app.protocol.errors import ErrorCode, OperatorError
from operator_app.protocol.regex_cost import check_regex_cost


@pytest.mark.parametrize(
    "query",
    [r"def \w+\(", r"(?i)todo|fixme", r"\b[A-Z]{2,5}-\d{1,6}\b", r"(?:ab){e<=2}", r"x{1000}"],
)
def test_ordinary_queries_pass(query: str) -> None:
    check_regex_cost(query, 0)


def test_without_the_regex_parser_a_costly_query_is_still_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Should a new `regex` move its parser, the cost is bounded from the text itself."""
    from operator_app.protocol import regex_cost

    def moved(text: str, flags: int) -> object:
        raise AttributeError("_parse_pattern")

    monkeypatch.setattr(regex_cost, "_parse", moved)
    regex_cost.check_regex_cost(r"def \w+\(", 0)  # an ordinary query still passes
    for query in ("(?:a{3000}){3000}", "(?R)?a", "a{400}b{400}"):
        with pytest.raises(OperatorError) as raised:
            regex_cost.check_regex_cost(query, 0)
        assert raised.value.code is ErrorCode.ERR_PATTERN_TOO_COSTLY
