"""fs.copy, fs.move and fs.rename: planned, committed, recovered and undone.
May import: protocol, engine.{textops, boundary, ondisk, safety}, ..{plan, outcomes, undo_places}"""
