"""`/gm reminders`: the channel's turn-reminder policy. A mixin the ``/gm`` group cog composes (see ``cogs.gm``)."""

from __future__ import annotations


class ReminderGMCommands:
    """Filled in by the reminders feature."""
