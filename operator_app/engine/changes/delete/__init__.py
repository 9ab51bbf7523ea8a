"""fs.delete: planned, committed to the trash, recovered, undone from the trash.
May import: protocol, engine.{textops, boundary, ondisk, safety}, ..{plan, outcomes, undo_places}"""
