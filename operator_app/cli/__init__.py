"""The headless front end (exec, results, undo, spec): the only writer of stdout and exit codes.
May import: protocol, engine, settings."""
