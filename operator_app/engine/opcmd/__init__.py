"""The OPERATOR_CMD dialect's engine half: its blocks validated and run on the engine's actions,
repeats answered, the writes of a failed write's entries held back, recovered writes phrased.
May import: protocol, engine.{boundary, state, changes, messages}."""
