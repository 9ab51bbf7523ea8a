"""The write path (plan, commit) with recovery and undo, per kind of change (kinds.py).
May import: protocol, engine.{textops, boundary, ondisk, safety, state}."""
