"""The change-set of a command (engine/shell): what a command changed, created and deleted in the
workspace, read from its sandbox's overlay, applied as one change on the person's yes, journalled
with a pre-image of every file it replaces or removes, rolled back if the app dies half-way, and
undone as one.
May import: protocol, engine.{textops, boundary, ondisk, safety}, ..{plan, outcomes}."""
