"""protocol/chanflow/fences.py (pure): String content that is one fenced code block means the
lines inside it, whatever those lines are; anything else is not unfenced. The exec tests
(tests/cli/test_string_fences.py) hold the commands to it; these hold the reading itself."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from operator_app.protocol.chanflow.fences import unfence

# Lines a model may put inside a fence, fence-like ones included (shorter, other character,
# with an info string after them), but never the line that closes the block.
LINE = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n")),
    st.sampled_from(["```", "~~~~", "```sh", "  ```python", "", "    indented"]),
)


@given(body=st.lists(LINE, max_size=12), info=st.sampled_from(["", "python", "sh title"]))
def test_a_four_backtick_fence_gives_back_every_line_inside_it(body: list[str], info: str) -> None:
    inside = "".join(line + "\n" for line in body)
    unfenced = unfence(f"````{info}\n{inside}````\n")
    assert unfenced is not None
    assert unfenced.text == inside
    assert unfenced.fence == f"````{info}".strip()


@given(text=st.text(alphabet="ab \n`~"))
def test_content_is_unfenced_only_when_it_opens_and_ends_with_a_fence(text: str) -> None:
    unfenced = unfence(text)
    if unfenced is not None:
        lines = text.split("\n")
        filled = [index for index, line in enumerate(lines) if line.strip()]
        first, last = lines[filled[0]], lines[filled[-1]]
        assert first.lstrip(" ").startswith(("```", "~~~"))
        assert last.strip()[:3] in ("```", "~~~")
        # Every line between the two fence lines, and nothing else.
        assert unfenced.text.count("\n") == filled[-1] - filled[0] - 1


def test_what_is_not_one_block() -> None:
    for text in ("", "\n\n", "```", "```python\n", "x\n```\ny\n```", "```\na\n```\nb"):
        assert unfence(text) is None, text
