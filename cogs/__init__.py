"""Discord-facing features, one extension module per feature (``cogs.dice``, ``cogs.gm``, ...)."""
