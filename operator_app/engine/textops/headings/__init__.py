"""A document's section headings, one module per markup (pure): Markdown's `#` and underlined
headings, reStructuredText's underlined (and overlined) titles, AsciiDoc's `==` titles. Each
finds (line, level, title) for every heading outside the markup's code samples (a fenced block,
a reST literal block, an AsciiDoc listing block), which is where a `#` line is a comment of the
sample, not a heading (docs/string.md). doc_blocks.py makes String's #id blocks of them.
May import: protocol."""
