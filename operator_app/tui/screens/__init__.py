"""The TUI's modal screens: consent, undo, picker, pairing, help, the copy fallback.
May import: protocol, engine, settings, tui."""
