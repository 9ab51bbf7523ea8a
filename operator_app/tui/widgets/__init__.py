"""The TUI's widgets: message view, command table, details pane, status lines.
May import: protocol, engine, settings, tui."""
