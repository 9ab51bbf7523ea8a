"""Changes to one file's content (fs.write, edits, patch, regions), plan to undo.
May import: protocol, engine.{textops, boundary, ondisk, safety}, ..{plan, outcomes}."""
