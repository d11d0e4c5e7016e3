"""GM tools for the channel itself (`/gm dice`, `/gm rules`): queued physical dice and house rules.

A mixin the ``/gm`` group cog composes (see ``cogs.gm``); its ``interaction_check`` makes both GM-only
(autocomplete is not checked: rule names and values are not secret). The work is in ``bot.channel_rules``, the
text in ``cogs.text.gm``.

- ``/gm dice values``: adds die results to this channel's queue (a thread has its own). The GM sees the values
  and the whole queue ephemerally; the channel gets a public note with how many dice were queued, never their
  values. ``clear``/``none`` empties the queue, ``show`` only shows it.
- ``/gm rules rule? value?``: no options lists every rule (ephemeral embed), ``rule`` alone shows it
  (ephemeral), both set it and confirm publicly. ``default`` resets a rule; in a thread ``inherit`` drops the
  thread's own value so it follows its channel again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot import channel_rules
from bot.errors import BotError, NoSystem
from cogs._checks import where
from cogs.errors import NO_MENTIONS
from cogs.text import gm as render

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)


async def _rules_here(interaction: discord.Interaction[Fray]) -> channel_rules.RulesHere:
    try:
        return await channel_rules.rules_here(interaction.client.store, where(interaction))
    except NoSystem as err:
        raise NoSystem(render.no_system()) from err


class ChannelGMCommands:
    """``/gm dice`` and ``/gm rules``; ``cogs.gm.GM`` inherits them (its checks apply)."""

    @app_commands.command(name="dice", description=render.DICE_DESCRIPTION)
    @app_commands.describe(values=render.DICE_VALUES_DESCRIPTION)
    async def gm_dice(
        self, interaction: discord.Interaction[Fray], values: app_commands.Range[str, 0, 1000]
    ) -> None:
        here = where(interaction)
        try:
            request = channel_rules.parse_dice_values(values)
            change = await channel_rules.change_dice_queue(interaction.client.store, here, request)
        except channel_rules.DiceValuesRefused as err:
            raise BotError(render.dice_refused(err)) from err
        thread = here.parent_id is not None
        await interaction.response.send_message(
            render.dice_private(change, request.kind, thread=thread),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )
        note = render.dice_public(interaction.user.id, change, request.kind)
        if note is not None:
            await interaction.followup.send(note, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="rules", description=render.RULES_DESCRIPTION)
    @app_commands.describe(rule=render.RULES_RULE_DESCRIPTION, value=render.RULES_VALUE_DESCRIPTION)
    async def gm_rules(
        self,
        interaction: discord.Interaction[Fray],
        rule: app_commands.Range[str, 0, 100] | None = None,
        value: app_commands.Range[str, 0, 100] | None = None,
    ) -> None:
        if value is not None and not (rule or "").strip():
            raise BotError(render.value_without_rule())
        if value is None:
            rules = await _rules_here(interaction)
            if not (rule or "").strip():
                embed = render.rules_embed(rules)
            else:
                info = rules.find(rule or "")
                if info is None:
                    names = tuple(i.name for i in rules.infos)
                    raise BotError(
                        render.unknown_rule(channel_rules.UnknownRule(rule or "", rules.system, names))
                    )
                embed = render.rule_embed(rules, info)
            await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NO_MENTIONS)
            return
        try:
            change = await channel_rules.change_house_rule(
                interaction.client.store, where(interaction), rule or "", value
            )
        except NoSystem as err:
            raise NoSystem(render.no_system()) from err
        except channel_rules.UnknownRule as err:
            raise BotError(render.unknown_rule(err)) from err
        except channel_rules.BadRuleValue as err:
            raise BotError(render.bad_rule_value(err)) from err
        except channel_rules.InheritOutsideThread as err:
            raise BotError(render.inherit_outside_thread()) from err
        await interaction.response.send_message(render.rule_set(change), allowed_mentions=NO_MENTIONS)

    @gm_rules.autocomplete("rule")
    async def gm_rules_rule_autocomplete(
        self, interaction: discord.Interaction[Fray], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            rules = await channel_rules.rules_here(interaction.client.store, where(interaction))
            items = [(render.rule_choice(info), info.name) for info in rules.infos]
            return [app_commands.Choice(name=n, value=v) for n, v in channel_rules.matching(items, current)]
        except NoSystem:
            return []
        except Exception:  # autocomplete must answer: a bad row … → no suggestions
            log.exception("house rule autocomplete failed")
            return []

    @gm_rules.autocomplete("value")
    async def gm_rules_value_autocomplete(
        self, interaction: discord.Interaction[Fray], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            rules = await channel_rules.rules_here(interaction.client.store, where(interaction))
            info = rules.find(str(interaction.namespace.rule or ""))
            if info is None:
                return []
            values = channel_rules.value_options(info, thread=rules.thread)
            items = [(render.value_choice(v, info), v) for v in values]
            return [app_commands.Choice(name=n, value=v) for n, v in channel_rules.matching(items, current)]
        except NoSystem:
            return []
        except Exception:
            log.exception("house rule value autocomplete failed")
            return []
