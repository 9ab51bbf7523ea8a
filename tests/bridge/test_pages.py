"""Page messages to stream operations (pure): the whole text re-sent on every change feeds only
what is new; a rewritten or regrown text starts a new Operator message with the whole text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from operator_app.bridge.pages import End, Feed, Open, PageMessages

KEY = ("chatgpt.com/c/1", 3)
BLOCK = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"


def fed(ops: list) -> str:
    return "".join(op.chunk for op in ops if isinstance(op, Feed))


def test_nothing_opens_while_the_text_holds_no_marker_then_the_whole_text_goes_in() -> None:
    pages = PageMessages()
    assert pages.update(KEY, "Let me look", generating=True, source="bridge ChatGPT") == []
    ops = pages.update(
        KEY, "Let me look at it.\nOPERATOR_CMD\n", generating=True, source="bridge ChatGPT"
    )
    assert ops == [Open(1, KEY, "bridge ChatGPT"), Feed(1, "Let me look at it.\nOPERATOR_CMD\n")]


def test_a_marker_split_between_two_updates_is_seen() -> None:
    pages = PageMessages()
    assert pages.update(KEY, "Here:\nOPERATOR_", generating=True, source="s") == []
    ops = pages.update(KEY, "Here:\nOPERATOR_CMD\nversion: 1\n", generating=True, source="s")
    assert isinstance(ops[0], Open) and fed(ops) == "Here:\nOPERATOR_CMD\nversion: 1\n"


def test_growth_feeds_only_what_is_new_and_the_same_text_again_does_nothing() -> None:
    pages = PageMessages()
    pages.update(KEY, BLOCK, generating=True, source="s")
    assert pages.update(KEY, BLOCK + "More", generating=True, source="s") == [Feed(1, "More")]
    assert pages.update(KEY, BLOCK + "More", generating=True, source="s") == []
    assert pages.update(KEY, BLOCK + "More", generating=False, source="s") == [End(1)]
    # A reload, a re-render, a second tab: the same finished text changes nothing.
    assert pages.update(KEY, BLOCK + "More", generating=False, source="s") == []
    assert pages.update(KEY, BLOCK + "More", generating=True, source="s") == []


def test_a_text_changed_before_its_end_ends_the_message_and_a_new_one_gets_the_whole_text() -> None:
    pages = PageMessages()
    pages.update(KEY, BLOCK + "first draft", generating=True, source="s")
    ops = pages.update(KEY, BLOCK + "second draft", generating=True, source="s")
    assert ops == [End(1), Open(2, KEY, "s"), Feed(2, BLOCK + "second draft")]


def test_a_text_that_grows_after_its_message_ended_opens_a_new_message_with_the_whole_text() -> (
    None
):
    pages = PageMessages()
    pages.update(KEY, BLOCK, generating=False, source="s")
    ops = pages.update(KEY, BLOCK + "continued", generating=True, source="s")
    assert ops == [Open(2, KEY, "s"), Feed(2, BLOCK + "continued")]


def test_a_text_the_seen_one_starts_with_is_no_news() -> None:
    """A re-render, or a reload in the middle of an answer, shows less than was already seen."""
    pages = PageMessages()
    pages.update(KEY, BLOCK + "More text", generating=True, source="s")
    assert pages.update(KEY, BLOCK[:20], generating=True, source="s") == []
    assert pages.update(KEY, BLOCK + "More text and then some", generating=True, source="s") == [
        Feed(1, " and then some")
    ]
    assert pages.update(KEY, BLOCK, generating=False, source="s") == [End(1)]


def test_a_rewritten_text_without_a_marker_opens_nothing() -> None:
    pages = PageMessages()
    pages.update(KEY, BLOCK, generating=True, source="s")
    assert pages.update(KEY, "Sorry, let me start over.", generating=True, source="s") == [End(1)]


def test_a_later_message_of_the_conversation_ends_the_earlier_one_still_open() -> None:
    pages = PageMessages()
    pages.update(("c", 0), BLOCK, generating=True, source="s")
    pages.update(("other", 0), BLOCK, generating=True, source="s")
    ops = pages.update(("c", 1), BLOCK, generating=True, source="s")
    assert ops == [End(1), Open(3, ("c", 1), "s"), Feed(3, BLOCK)]
    assert sorted(pages.open_serials()) == [2, 3]
    assert sorted(op.serial for op in pages.end_all()) == [2, 3]


@given(
    st.text(alphabet="ab\nOPERATOR_CMDEND", max_size=300),
    st.lists(st.integers(0, 300), max_size=12),
)
def test_any_sequence_of_growing_updates_feeds_exactly_the_final_text(
    tail: str, cuts: list[int]
) -> None:
    text = "OPERATOR_CMD\n" + tail
    pages = PageMessages()
    ops = []
    for cut in sorted(cuts) + [len(text)]:
        ops += pages.update(KEY, text[:cut], generating=True, source="s")
    ops += pages.update(KEY, text, generating=False, source="s")
    opens = [op for op in ops if isinstance(op, Open)]
    assert len(opens) == 1
    assert fed(ops) == text
    assert ops[-1] == End(opens[0].serial)


def test_a_message_the_person_closed_takes_no_more_growth_but_a_rewrite_opens_a_new_one() -> None:
    pages = PageMessages()
    pages.update(KEY, BLOCK, generating=True, source="s")
    assert pages.close(1) == [End(1)] and pages.close(1) == []
    assert pages.update(KEY, BLOCK + "more", generating=True, source="s") == []
    assert pages.update(KEY, BLOCK + "more", generating=False, source="s") == []
    ops = pages.update(KEY, "Again:\n" + BLOCK, generating=True, source="s")
    assert ops == [Open(2, KEY, "s"), Feed(2, "Again:\n" + BLOCK)]


def test_ended_page_messages_beyond_the_limit_are_forgotten_least_recent_first() -> None:
    pages = PageMessages()
    for position in range(4):  # each later position ends the one before; the last one ends itself
        pages.update(("c", position), BLOCK, generating=position != 3, source="s")
    pages.update(("c", 0), BLOCK, generating=False, source="s")  # seen again: now the most recent
    assert pages.forget_ended(keep=2) == [2, 3]
    assert (
        pages.get(("c", 1)) is None
        and pages.get(("c", 2)) is None
        and pages.get(("c", 0)) is not None
    )


def test_a_restored_page_message_takes_no_news_from_the_same_text() -> None:
    pages = PageMessages()
    assert pages.restore(KEY, BLOCK, 2, closed=False) == [1, 2]
    assert pages.update(KEY, BLOCK, generating=False, source="s") == []
    assert pages.update(KEY, BLOCK + "more", generating=False, source="s") == [
        Open(3, KEY, "s"),
        Feed(3, BLOCK + "more"),
        End(3),
    ]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "x\n", BLOCK, "Again:\n" + BLOCK, "cut"]),
            st.booleans(),
            st.sampled_from(["grow", "rewrite", "shrink", "close"]),
        ),
        max_size=10,
    )
)
def test_would_open_says_exactly_whether_an_update_opens_a_message(
    steps: list[tuple[str, bool, str]],
) -> None:
    """The bridge asks before it takes an answer that ended while Operator was not listening: the
    question must agree with what the update then does."""
    pages = PageMessages()
    text = ""
    for part, generating, how in steps:
        if how == "close":
            for serial in pages.open_serials():
                pages.close(serial)
            continue
        if how == "grow":
            text += part
        elif how == "rewrite":
            text = part
        else:  # shrink
            text = text[: len(text) // 2]
        asked = pages.would_open(KEY, text)
        assert asked == any(
            isinstance(op, Open)
            for op in pages.update(KEY, text, generating=generating, source="s")
        )
