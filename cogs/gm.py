"""The ``/gm`` group: GM tools. Every subcommand is GM-only (Manage Server, the GM role, or a GM source).

The group grows by composition: a feature module writes its GM subcommands as a plain mixin class of
``@app_commands.command`` methods (like ``cogs.dice.DiceGMCommands``) and this cog inherits it. The cog's
``interaction_check`` makes all of them GM-only; their callbacks receive this cog as ``self``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import BotError
from cogs._checks import require_gm, where
from cogs.dice import DiceGMCommands
from cogs.errors import NO_MENTIONS
from cogs.gm_channel import ChannelGMCommands
from cogs.gm_encounter import EncounterGMCommands
from cogs.gm_reminders import ReminderGMCommands
from cogs.text import gm as render
from rules.systems.registry import system_names

if TYPE_CHECKING:
    from bot.app import Fray


# Built when the extension loads, so every system registered by then is offered.
SYSTEM_CHOICES = [app_commands.Choice(name=name, value=name) for name in system_names()]


@app_commands.guild_only()
class GM(
    DiceGMCommands,
    ChannelGMCommands,
    EncounterGMCommands,
    ReminderGMCommands,
    commands.GroupCog,
    group_name="gm",
    group_description="GM tools",
):
    """``/gm system``, ``/gm role``, ``/gm roll`` (from ``DiceGMCommands``) …"""

    def __init__(self, bot: Fray) -> None:
        self.bot = bot
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction[Fray], /) -> bool:  # type: ignore[override]
        return await require_gm(interaction)

    @app_commands.command(
        name="system", description="Set the rule system of this channel (threads inherit it)"
    )
    @app_commands.describe(system="The rule system played here")
    @app_commands.choices(system=SYSTEM_CHOICES)
    async def system(self, interaction: discord.Interaction[Fray], system: str) -> None:
        here = where(interaction)
        await self.bot.store.set_system(here, system)
        await interaction.response.send_message(
            render.system_set(system, thread=here.parent_id is not None), allowed_mentions=NO_MENTIONS
        )

    @app_commands.command(name="role", description="Set the server's GM role")
    @app_commands.describe(role="Members with this role are GMs (as are members with Manage Server)")
    async def role(self, interaction: discord.Interaction[Fray], role: discord.Role) -> None:
        here = where(interaction)
        if role.is_default():
            raise BotError(render.role_is_everyone())
        await self.bot.store.set_gm_role(here.guild_id, role.id)
        await interaction.response.send_message(render.role_set(role.id), allowed_mentions=NO_MENTIONS)


async def setup(bot: Fray) -> None:
    await bot.add_cog(GM(bot))
