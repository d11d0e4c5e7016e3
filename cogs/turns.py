"""``/turn end as?``: the actor ends its own turn (players only for the combatants they own, on their turn; a GM
for anyone with ``as``). The End turn button of a turn announcement runs the same flow (``cogs._turn_flow``).
A turn that began after the command was sent is not ended (the button carries its turn's token instead).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from cogs._autocomplete_encounters import ac_combatant
from cogs._turn_flow import end_turn

if TYPE_CHECKING:
    from bot.app import Fray


@app_commands.guild_only()
class Turns(commands.GroupCog, group_name="turn", group_description="Your turn in the encounter"):
    def __init__(self, bot: Fray) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="end", description="End your turn (a GM may end anyone's with `as`)")
    @app_commands.rename(as_="as")
    @app_commands.describe(as_="GM: the combatant whose turn to end")
    @app_commands.autocomplete(as_=ac_combatant)
    async def end(self, interaction: discord.Interaction[Fray], as_: str | None = None) -> None:
        await end_turn(interaction, as_, sent_at=interaction.created_at)


async def setup(bot: Fray) -> None:
    await bot.add_cog(Turns(bot))
