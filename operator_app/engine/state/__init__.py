"""The session's state folder: messages, results, ids used, waits, and the one-process lock.
May import: protocol, engine.ondisk."""
