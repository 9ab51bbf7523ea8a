"""The pure protocol core: scanning, parsing, command models, results, spec text; no I/O.
May import: nothing else of operator_app."""
