"""The live tracker: one message per encounter, posted at `/encounter begin` and edited in place after every
change. When it was deleted, or has scrolled far up (``SCROLLED`` messages below it), a new one is posted and
the old one is left alone. Its id is stored on the encounter (``bot.encounters.set_tracker_message``), so a
restart keeps editing the same message.

A tracker that cannot be shown never fails the change that asked for it: the change is already committed.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.encounters import EncounterRead, load_encounter, set_tracker_message
from cogs.errors import NO_MENTIONS
from cogs.text import encounters as text

log = logging.getLogger(__name__)

SCROLLED = 30  # messages below it, after which players would have to scroll to find it


def tracker_of(read: EncounterRead) -> discord.Embed:
    return text.tracker_embed(read.encounter.name, read.tracker(), read.turn(), read.encounter.status)


async def _below(channel: Any, message_id: int) -> int:
    """How many messages were posted after ``message_id`` (counted up to ``SCROLLED``)."""
    count = 0
    async for _ in channel.history(after=discord.Object(message_id), limit=SCROLLED):
        count += 1
    return count


async def refresh_tracker(bot: Any, channel_id: int, guild_id: int, encounter_id: int) -> None:
    """Edit the encounter's tracker in place, or post it (again) when there is none to edit."""
    try:
        read = await load_encounter(bot, encounter_id=encounter_id)
        if read is None or (read.encounter.status == "setup" and read.encounter.tracker_message_id is None):
            return  # posted when the fight begins
        embed = tracker_of(read)
        channel = bot.get_channel(channel_id) or bot.get_partial_messageable(channel_id, guild_id=guild_id)
        old = read.encounter.tracker_message_id
        if old is not None and (read.encounter.status == "ended" or await _below(channel, old) < SCROLLED):
            try:
                await channel.get_partial_message(old).edit(embed=embed, allowed_mentions=NO_MENTIONS)
                return
            except discord.NotFound:
                pass  # deleted: post a new one
        if read.encounter.status == "ended":
            return
        message = await channel.send(embed=embed, allowed_mentions=NO_MENTIONS)
        if not await set_tracker_message(bot, channel_id, encounter_id, message.id, old):
            await message.delete()  # another change posted one first: keep that one
    except Exception:
        log.warning("could not update the tracker of encounter %s", encounter_id, exc_info=True)
