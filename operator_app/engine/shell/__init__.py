"""Commands the model runs (shell.run, String's bash topics): asked about, run in a sandbox that
sees the workspace through an overlay, and what they changed handed back as one change-set
(changes/changeset) that is reviewed, journalled and undone like any write.
May import: protocol, engine.{boundary, ondisk, state, safety, changes, messages}."""
