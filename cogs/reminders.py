"""Posting turn reminders: the Discord-facing half of ``bot.reminders`` (which finds and claims the due steps).

``DiscordSender`` is the sender ``cogs.gm_reminders`` gives the reminder loop. Each claimed step is posted in its
channel (REST only; works whether or not the channel is cached) with the encounter's own turn buttons
(``cogs._turn_flow.turn_view``), pinging only whom the step is for. A ``skip`` step ends the turn through
``bot.encounters.skip_turn`` and then posts the skip and announces the next turn here. A plain module, not an
extension.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot import encounters
from bot.reminders import DueStep
from cogs._turn_flow import announce_in_channel, reminder_sent, turn_view
from cogs.text import log as log_text
from cogs.text import reminders as text


def member_mentions(member_id: int) -> discord.AllowedMentions:
    """Only that member may be pinged (never @everyone/@here, roles, or anyone named in the text)."""
    return discord.AllowedMentions(
        everyone=False, users=[discord.Object(member_id)], roles=False, replied_user=False
    )


def gm_mentions(gm_role_id: int | None, started_by: int) -> discord.AllowedMentions:
    """Only the GMs: the GM role when set (that role only), else the member who started the encounter."""
    if gm_role_id is not None:
        return discord.AllowedMentions(
            everyone=False, users=False, roles=[discord.Object(gm_role_id)], replied_user=False
        )
    return discord.AllowedMentions(
        everyone=False, users=[discord.Object(started_by)], roles=False, replied_user=False
    )


@dataclass(frozen=True, slots=True)
class Message:
    content: str
    allowed_mentions: discord.AllowedMentions
    buttons: bool = True


def message_for(step: DueStep) -> Message | None:
    """The text and the only mentions allowed for a step (``None`` for ``skip``, which posts no reminder)."""
    gms = text.gm_mention(step.gm_role_id, step.started_by)
    if step.action == "remind":
        if step.member_id is not None:
            return Message(
                text.member_reminder(
                    step.member_id,
                    step.combatant_name,
                    step.encounter_name,
                    step.waited,
                    step.number,
                    step.max_reminders,
                ),
                member_mentions(step.member_id),
            )
        return Message(
            text.npc_reminder(
                gms, step.combatant_name, step.encounter_name, step.waited, step.number, step.max_reminders
            ),
            gm_mentions(step.gm_role_id, step.started_by),
        )
    if step.action == "gm":
        return Message(
            text.gms_told(
                gms,
                step.combatant_name,
                step.member_id,
                step.encounter_name,
                step.waited,
                step.reminders_sent,
            ),
            gm_mentions(step.gm_role_id, step.started_by),
        )
    return None


class DiscordSender:
    """Posts a claimed step in its channel."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def _channel(self, step: DueStep) -> discord.abc.Messageable:
        channel = self.bot.get_channel(step.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        return self.bot.get_partial_messageable(step.channel_id, guild_id=step.guild_id)

    async def __call__(self, step: DueStep) -> None:
        if step.action == "skip":
            await self._skip(step)
            return
        message = message_for(step)
        if message is None:
            return
        sent = await self._channel(step).send(
            message.content,
            allowed_mentions=message.allowed_mentions,
            view=turn_view(step.encounter_id, step.turn_key),
        )
        reminder_sent(self.bot, step.encounter_id, step.channel_id, sent.id)

    async def _skip(self, step: DueStep) -> None:
        result = await encounters.skip_turn(
            self.bot, step.encounter_id, step.turn_key, summary=log_text.skipped_summary
        )
        if result is None:
            return  # refused (the turn moved on meanwhile)
        await self._channel(step).send(
            text.turn_skipped(step.combatant_name, step.waited),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_in_channel(self.bot, step.channel_id, step.guild_id, result)
