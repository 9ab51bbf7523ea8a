"""String's ChanFlow dialect, pure: the block grammar, the scanner, the commands and responses.
May import: protocol."""
