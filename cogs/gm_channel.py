"""GM tools for the channel itself (`/gm dice`, `/gm rules`): queued physical dice and house rules.

A mixin the ``/gm`` group cog composes (see ``cogs.gm``).
"""

from __future__ import annotations


class ChannelGMCommands:
    """Filled in by the channel-settings feature."""
