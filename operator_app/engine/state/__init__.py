"""The session's state folder: messages, results, ids used, waits, the one-process lock, and the
log of Operator's own failures (internal_failure.py: what the model is told of them instead).
May import: protocol, engine.ondisk."""
