"""The blocks String's #id names in a document (engine/textops/doc_blocks.py): comment-marked
blocks, OPERATOR_BEGIN/END regions, and heading sections by their slug (Markdown's, reST's,
AsciiDoc's: engine/textops/headings/)."""

from __future__ import annotations

from operator_app.engine.textops.doc_blocks import DocBlock, Syntax, find_blocks, slug
from operator_app.protocol.comments import LANGUAGES

DOC = """# Meeting notes

Intro.

<!-- #decisions -->
## Decisions
(none yet)
<!-- /decisions -->

## Actions
- call Bob

### Details
deep

```
## not a heading
```

## Actions
again


# Appendix
end
"""


def blocks(text: str, style: str | None = "markdown") -> dict[str, tuple[str, int, int]]:
    lines = text.split("\n")[:-1]
    syntax = None if style == "python" else "markdown"
    found = find_blocks(lines, LANGUAGES[style] if style else None, headings=syntax)
    return {b.id: (b.kind, b.first, b.last) for b in found}


def test_comment_blocks_headings_and_repeated_slugs() -> None:
    assert blocks(DOC) == {
        "meeting-notes": ("heading", 1, 21),
        "decisions": ("comment", 6, 7),  # the marked block wins over the heading inside it
        "actions": ("heading", 10, 18),  # the fenced "## not a heading" is inside it
        "details": ("heading", 13, 18),
        "actions-1": ("heading", 20, 21),  # blank lines before the next heading left out
        "appendix": ("heading", 24, 25),
    }


def test_regions_in_a_comment_style() -> None:
    code = "import os\n# OPERATOR_BEGIN setup\nx = 1\n# OPERATOR_END setup\n"
    assert blocks(code, "python") == {"setup": ("region", 3, 3)}
    assert find_blocks(code.split("\n")[:-1], None, headings=None) == []


def test_an_empty_block_and_an_unclosed_one() -> None:
    text = "<!-- #empty -->\n<!-- /empty -->\n<!-- #open -->\nnever closed\n"
    assert find_blocks(text.split("\n")[:-1], None) == [DocBlock("empty", "comment", 2, 1, 1)]


def test_slugs() -> None:
    assert slug("Decisions") == "decisions"
    assert slug("What's next?") == "whats-next"
    assert slug("  Étape 2: la suite  ") == "étape-2-la-suite"
    assert slug("snake_case and-dash") == "snake_case-and-dash"


def headings_of(text: str, syntax: Syntax) -> dict[str, tuple[int, int]]:
    found = find_blocks(text.split("\n")[:-1], None, headings=syntax)
    return {b.id: (b.first, b.last) for b in found}


def test_markdown_underlined_headings_front_matter_and_what_is_not_a_heading() -> None:
    text = (
        "---\n"
        "# title: in the front matter\n"
        "---\n"
        "Guide\n"
        "=====\n"
        "\n"
        "Setup\n"
        "-----\n"
        "- item\n"
        "---\n"  # under a list item: a thematic break, not an underline
        "\n"
        "~~~~\n"
        "# inside a tilde fence\n"
        "~~~\n"  # shorter than the opening: it does not close it
        "~~~~\n"
        "Next\n"
        "----\n"
        "end\n"
    )
    assert headings_of(text, "markdown") == {
        "guide": (4, 18),  # a section starts at its heading's first line
        "setup": (7, 15),
        "next": (16, 18),
    }


def test_heading_syntax_follows_the_file_name() -> None:
    from operator_app.engine.textops.doc_blocks import heading_syntax

    assert [
        heading_syntax(p)
        for p in ("a.md", "notes.txt", "README", "doc/x.rst", "g.ADOC", "a.asciidoc", "x.py")
    ] == ["markdown", "markdown", "markdown", "rest", "asciidoc", "asciidoc", None]


def test_rest_levels_follow_the_order_styles_first_appear_in() -> None:
    text = (
        "#####\n"
        "Title\n"
        "#####\n"
        "\n"
        "Part\n"
        "****\n"
        "\n"
        "Section\n"
        "=======\n"
        "\n"
        "x\n"
        "\n"
        "Other part\n"
        "**********\n"
        "\n"
        "Quoted::\n"
        "\n"
        "> not a title\n"
        "> ===========\n"
        "\n"
        "----------\n"  # a transition between paragraphs, not a title
        "\n"
        "Tail\n"
    )
    assert headings_of(text, "rest") == {
        "title": (1, 23),  # from its overline
        "part": (5, 11),
        "section": (8, 11),
        "other-part": (13, 23),
    }
