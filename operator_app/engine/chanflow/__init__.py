"""String's commands (protocol/chanflow) on the engine's own actions: topics, blocks answered once.
May import: protocol, engine.{boundary, textops, ondisk, state, safety, changes, messages}."""
