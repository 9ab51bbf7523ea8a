"""All-or-nothing steps on entries through checked descriptors: replace, rename, copy, hash.
May import: protocol, engine.boundary."""
