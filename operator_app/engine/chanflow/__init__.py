"""String's commands (protocol/chanflow) on the engine's own actions: topics, blocks answered
once; a bash topic's script runs as the engine's shell.run.
May import: protocol, engine.{boundary, textops, ondisk, state, safety, changes, messages, shell}."""  # noqa: E501
