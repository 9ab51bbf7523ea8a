"""The workspace boundary: paths checked against the root, only what was checked opened.
May import: protocol."""
