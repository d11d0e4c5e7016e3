"""Dice: ``/roll`` for everyone, ``/gm roll`` for GMs (a mixin the GM cog composes), and the persistent
``fray:secret:<id>`` button that reveals a stored secret roll to its roller and the GMs only.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.rolling import RollOutcome, roll_in_channel
from cogs._checks import is_gm, where
from cogs.deadline import AnswersInTime
from cogs.errors import NO_MENTIONS, report_error
from cogs.text import dice as render
from rules.notation import MAX_LENGTH, NotationError

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)


async def _roll(interaction: discord.Interaction[Fray], expression: str, *, secret: bool) -> RollOutcome:
    bot = interaction.client
    try:
        return await roll_in_channel(
            bot.store,
            where(interaction),
            expression,
            bot.dice_source(),
            user_id=interaction.user.id,
            secret=secret,
        )
    except NotationError as err:
        raise NotationError(render.roll_refused(err.reason)) from err


class SecretRollButton(
    AnswersInTime, discord.ui.DynamicItem[discord.ui.Button], template=r"fray:secret:(?P<id>[0-9]{1,19})"
):
    """Shows a stored secret roll, ephemerally, to its roller and the GMs; refuses everyone else politely."""

    def __init__(self, roll_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=render.SECRET_BUTTON_LABEL,
                style=discord.ButtonStyle.secondary,
                emoji="🤫",
                custom_id=f"fray:secret:{roll_id}",
            )
        )
        self.roll_id = roll_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button, match: re.Match[str], /
    ) -> SecretRollButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            row = await interaction.client.store.secret_roll(self.roll_id)
            if row is None or row.guild_id != interaction.guild_id:
                text = render.secret_missing()
            elif row.user_id == interaction.user.id:
                text = render.secret_reveal(row.user_id, row.result_text, own=True)
            elif await is_gm(interaction):
                text = render.secret_reveal(row.user_id, row.result_text, own=False)
            else:
                text = render.secret_refused()
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except Exception as err:  # buttons are not covered by the tree's handler
            await report_error(interaction, err)


def secret_view(roll_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SecretRollButton(roll_id))
    return view


class Dice(commands.Cog):
    """``/roll``."""

    def __init__(self, bot: Fray) -> None:
        self.bot = bot

    @app_commands.command(name="roll", description="Roll dice: 2d6+3, 4d6kh3, d6!, d66, d10<=7, 3D+2 …")
    @app_commands.guild_only()
    @app_commands.describe(
        expression="Dice notation, e.g. 2d6+3, 4d6kh3, d6!, d66, d10<=7 or 3D+2",
        reason="What the roll is for (shown with the result)",
        secret="Only you and the GMs see the result; the channel sees that you rolled",
    )
    async def roll(
        self,
        interaction: discord.Interaction[Fray],
        expression: app_commands.Range[str, 0, MAX_LENGTH + 50],
        reason: app_commands.Range[str, 0, 100] | None = None,
        secret: bool = False,
    ) -> None:
        outcome = await _roll(interaction, expression, secret=secret)
        if not secret:
            await interaction.response.send_message(
                render.roll_line(interaction.user.id, outcome.described, reason), allowed_mentions=NO_MENTIONS
            )
            return
        assert outcome.secret_id is not None
        await interaction.response.send_message(
            render.secret_roll_result(outcome.described, reason), ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        await interaction.followup.send(
            render.secret_roll_public(interaction.user.id, reason),
            view=secret_view(outcome.secret_id),
            allowed_mentions=NO_MENTIONS,
        )


class DiceGMCommands:
    """``/gm`` subcommands about dice; ``cogs.gm.GM`` inherits them (its checks apply)."""

    @app_commands.command(
        name="roll", description="A secret GM roll: you see the result, the channel sees you rolled"
    )
    @app_commands.describe(expression="Dice notation, e.g. 2d6+3, d10<=7 or 3D+2")
    async def gm_roll(
        self, interaction: discord.Interaction[Fray], expression: app_commands.Range[str, 0, MAX_LENGTH + 50]
    ) -> None:
        outcome = await _roll(interaction, expression, secret=True)
        assert outcome.secret_id is not None
        await interaction.response.send_message(
            render.gm_roll_result(outcome.described), ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        await interaction.followup.send(
            render.gm_roll_public(interaction.user.id),
            view=secret_view(outcome.secret_id),
            allowed_mentions=NO_MENTIONS,
        )


DYNAMIC_ITEMS = (SecretRollButton,)


async def setup(bot: Fray) -> None:
    await bot.add_cog(Dice(bot))
