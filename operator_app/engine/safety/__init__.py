"""The safety net under every change: the journal of pre-images, the trash, the temp sweep.
May import: protocol, engine.boundary, engine.ondisk."""
