"""``/help [topic]``: how play works in this channel, privately — its system and how a turn flows, the
commands that matter for you now, the house rules in force. Topics autocomplete (``cogs.text.help``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.channel_rules import rules_here
from bot.encounter_reads import EncounterRead, load_encounter
from bot.errors import NoSystem
from cogs._checks import where
from cogs.errors import NO_MENTIONS
from cogs.text import help as text
from rules.encounter import System

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)


def phase_of(read: EncounterRead | None, user_id: int) -> tuple[str, str | None]:
    """Where the member stands: setup, their own turn (in Last Gasp or not), or someone else's; and whose."""
    if read is None or read.encounter.status != "running":
        return "setup", None
    turn = read.turn()
    current = read.names.get(turn.actors[0]) if turn.actors else None
    mine = [c for c in read.combatants if c.owner_id == user_id and str(c.id) in turn.actors]
    if not mine:
        return "waiting", current
    row = next((r for r in read.tracker().order if r.id == str(mine[0].id)), None)
    if read.system.traits.death_saves and row is not None and row.last_gasp_round is not None:
        return "last-gasp", current
    return "your-turn", current


async def _system_here(interaction: discord.Interaction[Any]) -> tuple[System | None, tuple]:
    try:
        here = await rules_here(interaction.client.store, where(interaction))
    except NoSystem:
        return None, ()
    return here.system, here.infos


async def ac_topic(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        system, _ = await _system_here(interaction)
        key = (current or "").casefold()
        return [
            app_commands.Choice(name=f"{name} — {what}"[:100], value=name)
            for name, what in text.topics(system)
            if key in name or key in what.casefold()
        ][:25]
    except Exception:
        log.warning("help autocomplete failed", exc_info=True)
        return []


class Help(commands.Cog):
    def __init__(self, bot: Fray) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="How play works here: the system, your turn, house rules")
    @app_commands.describe(topic="One part only: flow, now, setup, your-turn, waiting, last-gasp, rules")
    @app_commands.autocomplete(topic=ac_topic)
    @app_commands.guild_only()
    async def help(self, interaction: discord.Interaction[Fray], topic: str | None = None) -> None:
        system, infos = await _system_here(interaction)
        key = (topic or "").strip().casefold().split(" ", 1)[0] or None
        if system is None:
            answer = text.no_system()
        elif key is not None and key not in dict(text.topics(system)):
            answer = text.unknown_topic(topic or "", system)
        else:
            read = await load_encounter(self.bot, where(interaction))
            phase, current = phase_of(read, interaction.user.id)
            answer = text.help_text(
                system, phase, infos, topic=None if key == "now" else key, current=current
            )
        await interaction.response.send_message(answer, ephemeral=True, allowed_mentions=NO_MENTIONS)


async def setup(bot: Fray) -> None:
    await bot.add_cog(Help(bot))
