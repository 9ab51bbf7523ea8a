"""The Textual front end: a thin layer over the same engine `operator-app exec` uses.
May import: protocol, engine, settings, bridge."""
