"""Pure text: a file's conventions, the preview diff, edits, strict patch hunks, regions.
May import: protocol."""
