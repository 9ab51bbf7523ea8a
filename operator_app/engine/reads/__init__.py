"""The read-only actions (fs.read, fs.list, fs.searchTree...): run at once, nothing changed.
May import: protocol, engine.boundary, engine.textops."""
