"""Issue 33, item 3, through `operator-app exec`: String content as models write it. A /write,
/append, /replace, /edit or /insert whose whole content is one fenced code block writes what is
inside the fence, and its response says the fence was left out; content that holds fences among
other text (a Markdown file's own samples), an unclosed fence or two blocks is written as sent,
byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.string_exec import Workspace, chan, context

FENCE_NOTE = "note: the content was one fenced code block"
CODE = "def greet(name):\n    return f'hi {name}'\n"

# A Markdown file whose text has fences among its prose: written as sent, fences and all.
README = (
    "# Tool\n"
    "\n"
    "Install it:\n"
    "\n"
    "```sh\n"
    "pip install tool\n"
    "```\n"
    "\n"
    "~~~python\n"
    "    import tool\n"
    "~~~\n"
    "Done.\n"
)


@pytest.mark.parametrize(
    "fenced",
    [
        "```python\n" + CODE + "```",
        "~~~py\n" + CODE + "~~~",
        "\n```\n" + CODE + "```\n\n",  # blank lines around the block are not content
        "````python\n" + CODE + "````",
        "  ```python\n  def greet(name):\n      return f'hi {name}'\n  ```",  # indent taken off
    ],
    ids=["backticks", "tildes", "blank-lines-around", "four-backticks", "indented-fence"],
)
def test_write_of_one_fenced_block_writes_what_is_inside(tmp_path: Path, fenced: str) -> None:
    w = Workspace(tmp_path)
    written = w.exec(chan(f"/write src/greet.py\n{fenced}")).one
    assert written["ok"], written
    assert (w.ws / "src/greet.py").read_bytes() == CODE.encode()
    assert FENCE_NOTE in context(written)


def test_each_changing_command_takes_the_inside_of_a_fence(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"a.py": "one\ntwo\nthree\n", "b.py": "x = 1\n", "c.py": "old\n"})
    run = w.exec(
        chan("/replace a.py:L2\n```python\nTWO\n```")
        + chan("/append b.py\n```python\ny = 2\n```")
        + chan("/edit c.py\n```\nnew\n```")
        + chan("/insert a.py:L1\n```python\nafter_one\n```")
    )
    assert all(r["ok"] for r in run.results), run.results
    assert all(FENCE_NOTE in context(r) for r in run.results)
    assert w.read("a.py") == "one\nafter_one\nTWO\nthree\n"
    assert w.read("b.py") == "x = 1\ny = 2\n"
    assert w.read("c.py") == "new\n"


def test_fences_among_other_text_are_written_as_sent(tmp_path: Path) -> None:
    w = Workspace(tmp_path)
    written = w.exec(chan("/write README.md\n" + README)).one
    assert written["ok"] and FENCE_NOTE not in context(written)
    assert (w.ws / "README.md").read_bytes() == README.encode()


@pytest.mark.parametrize(
    "content",
    [
        "```python\nx = 1\n",  # never closed: where it ends would be a guess
        "```python\nx = 1\n```\ntext after\n",  # text follows the block
        "```\na\n```\n```\nb\n```\n",  # two blocks
        "```py`thon\nx = 1\n```\n",  # a backtick in the info string: not a fence
        "    ```\n    x = 1\n    ```\n",  # four spaces: an indented code block
        "~~~\nx = 1\n```\n",  # closed by the other character: not closed
        "````\nx = 1\n```\n",  # a shorter fence does not close a longer one
    ],
    ids=["unclosed", "text-after", "two-blocks", "backtick-info", "indented", "mixed", "short"],
)
def test_content_that_is_not_one_fenced_block_is_written_as_sent(
    tmp_path: Path, content: str
) -> None:
    w = Workspace(tmp_path)
    written = w.exec(chan("/write f.md\n" + content)).one
    assert written["ok"] and FENCE_NOTE not in context(written)
    assert w.read("f.md") == content


def test_a_longer_fence_around_a_markdown_sample_keeps_the_sample(tmp_path: Path) -> None:
    inner = "Use:\n\n```sh\nrun\n```\n"
    w = Workspace(tmp_path)
    written = w.exec(chan(f"/write usage.md\n````markdown\n{inner}````")).one
    assert written["ok"] and FENCE_NOTE in context(written)
    assert w.read("usage.md") == inner


def test_an_empty_fenced_block_writes_an_empty_file(tmp_path: Path) -> None:
    w = Workspace(tmp_path, {"empty.py": "old\n"})
    written = w.exec(chan("/write empty.py\n```python\n```")).one
    assert written["ok"] and FENCE_NOTE in context(written)
    assert w.read("empty.py") == ""
