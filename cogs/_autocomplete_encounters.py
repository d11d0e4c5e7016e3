"""Autocomplete for the encounter commands: answers from this channel's encounter through the read path
(``bot.encounter_reads.load_encounter``, no lock), filtered by what was typed (case-insensitive substring), at
most 25, and never raising (any problem answers ``[]``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands

from bot.encounter_reads import EncounterBot, characters_of, load_encounter
from bot.store import Where
from bot.typed_input import resolve
from cogs._checks import where as where_of
from rules.errors import RulesError
from rules.systems.registry import get_system

log = logging.getLogger(__name__)

MAX_CHOICES = 25


def choose(options: Iterable[str], current: str) -> list[app_commands.Choice[str]]:
    """Options containing ``current`` (case-insensitive), those starting with it first; at most 25."""
    key = (current or "").casefold().strip()
    seen: set[str] = set()
    starts: list[str] = []
    contains: list[str] = []
    for option in options:
        if not option or option in seen:
            continue
        seen.add(option)
        folded = option.casefold()
        if not key or folded.startswith(key):
            starts.append(option)
        elif key in folded:
            contains.append(option)
    return [app_commands.Choice(name=o[:100], value=o[:100]) for o in (starts + contains)[:MAX_CHOICES]]


async def combatant_choices(bot: EncounterBot, where: Where, current: str) -> list[app_commands.Choice[str]]:
    read = await load_encounter(bot, where)
    if read is None:
        return []
    return choose((c.name for c in read.combatants), current)


async def ac_combatant(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        return await combatant_choices(interaction.client, where_of(interaction), current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("combatant autocomplete failed", exc_info=True)
        return []


async def ac_location(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        if read is None:
            return []
        typed = getattr(interaction.namespace, "target", None)
        if not typed:
            return []
        row = resolve(read.combatants, str(typed))
        return choose(read.system.damage_locations(read.state, str(row.id)), current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("location autocomplete failed", exc_info=True)
        return []


async def ac_field(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        return choose(read.system.gm_fields(), current) if read is not None else []
    except Exception:
        return []


async def ac_condition(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        if read is None:
            return []
        options = list(read.system.conditions())
        typed = getattr(interaction.namespace, "target", None)
        if getattr(interaction.namespace, "remove", False) and typed:
            row = resolve(read.combatants, str(typed))
            options = [*(row.conditions or []), *options]
        return choose(options, current)
    except Exception:
        return []


async def _system_here(interaction: discord.Interaction[Any]) -> str | None:
    here = where_of(interaction)
    read = await load_encounter(interaction.client, here)
    if read is not None:
        return read.encounter.system
    return (await interaction.client.store.channel_view(here)).system


async def ac_template(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        system = await _system_here(interaction)
        return choose(get_system(system).creature_names(), current) if system else []
    except Exception:
        return []


async def ac_character(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        here = where_of(interaction)
        system = await _system_here(interaction)
        rows = await characters_of(interaction.client, here.guild_id, interaction.user.id)
        return choose((r.name for r in rows if system is None or r.system == system), current)
    except Exception:
        return []


async def ac_side(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        sides = [c.side for c in read.combatants] if read is not None else []
        return choose([*sides, "party", "foes"], current)
    except Exception:
        return []


async def ac_wound(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
    """The target's wounds, numbered (``/gm wound``)."""
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        typed = getattr(interaction.namespace, "target", None)
        if read is None or not typed:
            return []
        row = resolve(read.combatants, str(typed))
        lines = read.system.wounds(read.state, str(row.id))
        key = (current or "").strip().lower()
        return [
            app_commands.Choice(name=line[:100], value=i)
            for i, line in enumerate(lines, start=1)
            if key in line.lower()
        ][:25]
    except RulesError:
        return []
    except Exception:
        log.warning("wound autocomplete failed", exc_info=True)
        return []
