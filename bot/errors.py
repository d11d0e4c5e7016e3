"""Bot-level domain errors. Like every ``RulesError`` they carry the user-facing reason (written by
``cogs._render``) and the tree's error handler answers them ephemerally.

``NotGM`` is also an ``app_commands.CheckFailure`` so it can be raised from a command check (discord.py
only routes ``AppCommandError``s raised by checks to the tree's error handler).
"""

from __future__ import annotations

from discord import app_commands

from rules.errors import NotAllowed, RulesError


class BotError(RulesError):
    """An error a member can cause in the shell (not in the rules)."""


class NotGM(BotError, NotAllowed, app_commands.CheckFailure):
    """The member is not a GM here (no Manage Server, not the GM role, not running the encounter)."""


class NoSystem(BotError):
    """The channel (and its parent) has no rule system yet; a GM sets one with ``/gm system``."""


class WrongSystem(BotError):
    """The command does not exist in this channel's system."""


class NotInGuild(BotError, app_commands.CheckFailure):
    """The command needs a server channel."""


class Stale(BotError):
    """A row changed between load and save (another process, or a change this one did not serialise with):
    nothing was saved, and trying again works on the new state."""
