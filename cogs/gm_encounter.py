"""GM tools that change the running encounter (`/gm next|set|damage|heal|condition|undo|instance`).

A mixin the ``/gm`` group cog composes (see ``cogs.gm``); every change goes through the encounter change path.
"""

from __future__ import annotations


class EncounterGMCommands:
    """Filled in by the encounters feature."""
