"""The extension that keeps the live trackers (``cogs.tracker.LiveTrackers``): one refresh at a time per
encounter, and the count of messages below each tracker (told of each new message by the gateway's parser, ``bot.message_events``).

The class lives in the plain module ``cogs.tracker``: discord.py executes an extension's module afresh when it
loads it, and the cogs that refresh trackers import the one shared copy.
"""

from __future__ import annotations

from discord.ext import commands

from cogs.tracker import LiveTrackers


async def setup(bot: commands.Bot) -> None:
    keeper = LiveTrackers(every=bot.settings.tracker_edit_interval)  # type: ignore[attr-defined]
    await bot.add_cog(keeper)
    bot.message_observers.append(keeper.saw)  # type: ignore[attr-defined]


async def teardown(bot: commands.Bot) -> None:
    observers = bot.message_observers  # type: ignore[attr-defined]
    observers[:] = [o for o in observers if not isinstance(getattr(o, "__self__", None), LiveTrackers)]
