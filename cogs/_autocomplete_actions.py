"""Autocomplete for the action commands and `/check`: read path only (``load_encounter``, no lock), filtered by
what was typed, at most 25, never raising (any problem answers ``[]``).

``target``/``enemy``/``as``/``into`` come from the encounter's combatants; ``weapon``/``type``/``aim``/
``stance``/``action``/``grip``/``with``/``light`` from ``system.choices`` given the options typed so far
(``interaction.namespace``); ``stat`` from ``system.check_stats`` of the character `/check` would use.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.characters import CharacterBook
from bot.encounter_reads import EncounterRead, load_encounter
from bot.typed_input import resolve
from cogs._autocomplete_encounters import choose
from cogs._checks import is_gm
from cogs._checks import where as where_of
from cogs.text.encounters import standing
from rules.encounter import Action
from rules.errors import RulesError
from rules.systems.registry import get_system

log = logging.getLogger(__name__)

Choices = list[app_commands.Choice[str]]

# The command's option name → the option name ``choices`` knows.
OPTION_KEYS = {"type": "type", "with": "stat", "action": "grapple"}


def _ns(interaction: discord.Interaction[Any], name: str) -> Any:
    return getattr(interaction.namespace, name, None)


def _cid(read: EncounterRead, typed: Any) -> str | None:
    if not typed:
        return None
    try:
        return str(resolve(read.combatants, str(typed)).id)
    except Exception:
        return None


def _actor(read: EncounterRead, interaction: discord.Interaction[Any]) -> str | None:
    """``as`` when typed, else the member's combatant whose turn it is, else the member's first one."""
    typed = _ns(interaction, "as")
    if typed:
        return _cid(read, typed)
    own = [str(c.id) for c in read.combatants if c.owner_id == interaction.user.id]
    if not own:
        return None
    try:
        actors = read.turn().actors
    except Exception:
        actors = ()
    on_turn = [c for c in own if c in actors]
    return (on_turn or own)[0]


def _kind(interaction: discord.Interaction[Any]) -> str:
    command = interaction.command
    name = command.qualified_name if command is not None else ""
    return "reroll" if name == "initiative reroll" else name


def partial_action(read: EncounterRead, interaction: discord.Interaction[Any], actor: str | None) -> Action:
    target = _ns(interaction, "target") or _ns(interaction, "enemy")
    kind = _kind(interaction)
    return Action(
        kind=kind,
        actor=actor or "",
        target=_cid(read, target),
        weapon=_ns(interaction, "weapon"),
        damage_type=_ns(interaction, "type"),
        aim=_ns(interaction, "aim"),
        grip=_ns(interaction, "grip"),
        stance=_ns(interaction, "stance"),
        grapple=_ns(interaction, "action") if kind == "grapple" else None,
        light=_ns(interaction, "light"),
    )


async def _choices_for(interaction: discord.Interaction[Any], option: str, current: str) -> Choices:
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        if read is None:
            return []
        actor = _actor(read, interaction)
        action = partial_action(read, interaction, actor)
        key = OPTION_KEYS.get(option, option)
        values = read.system.choices(read.state, actor, key, action)
        if option == "into":
            names = read.names
            values = tuple(names.get(v, v) for v in values)
            return choose(values, current)
        # what each value means or deals, shown beside it; the value sent stays the bare one
        labels = {v: read.system.choice_label(read.state, actor, key, v, action) for v in values}
        return [
            app_commands.Choice(name=labels.get(c.value, c.value)[:100], value=c.value)
            for c in choose(values, current)
        ]
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("action autocomplete for %s failed", option, exc_info=True)
        return []


async def ac_combatant_any(interaction: discord.Interaction[Any], current: str) -> Choices:
    """Combatants of this encounter (``target``, ``enemy``, ``as``)."""
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        return choose((c.name for c in read.combatants), current) if read is not None else []
    except Exception:
        return []


async def ac_target(interaction: discord.Interaction[Any], current: str) -> Choices:
    """Whom to attack: enemies first, then allies (yourself left out), the downed and dead last and marked."""
    try:
        read = await load_encounter(interaction.client, where_of(interaction))
        if read is None:
            return []
        actor = _actor(read, interaction)
        rows = read.tracker().order
        mine = next((r for r in rows if r.id == actor), None)
        key = (current or "").casefold().strip()

        def rank(row: Any) -> tuple[int, int]:
            fallen = standing(row)
            return (
                2 if fallen else 0 if mine is None or row.side != mine.side else 1,
                1 if fallen == "dead" else 0,
            )

        out: Choices = []
        for row in sorted((r for r in rows if r.id != actor), key=rank):
            if key and key not in row.name.casefold():
                continue
            fallen = standing(row)
            side = "ally" if mine is not None and row.side == mine.side else "enemy"
            label = f"{row.name} — {side}" + (f" ({fallen})" if fallen else "")
            out.append(app_commands.Choice(name=label[:100], value=row.name[:100]))
        return out[:25]
    except Exception:
        log.warning("target autocomplete failed", exc_info=True)
        return []


def _option_source(option: str) -> Callable[[discord.Interaction[Any], str], Awaitable[Choices]]:
    """An autocomplete callback for one action option, answered by ``system.choices``."""

    async def source(interaction: discord.Interaction[Any], current: str) -> Choices:
        return await _choices_for(interaction, option, current)

    return source


ac_weapon = _option_source("weapon")
ac_type = _option_source("type")
ac_aim = _option_source("aim")
ac_grip = _option_source("grip")
ac_stance = _option_source("stance")
ac_grapple_action = _option_source("action")
ac_into = _option_source("into")
ac_with = _option_source("with")
ac_light = _option_source("light")


async def ac_check_character(interaction: discord.Interaction[Any], current: str) -> Choices:
    """The member's characters (a GM: everyone's in this server)."""
    try:
        here = where_of(interaction)
        book = CharacterBook(interaction.client.store)
        gm = await is_gm(interaction)
        refs = await book.refs(here.guild_id, owner_id=None if gm else interaction.user.id)
        return choose((r.name for r in refs), current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("check character autocomplete failed", exc_info=True)
        return []


async def ac_stat(interaction: discord.Interaction[Any], current: str) -> Choices:
    """``system.check_stats`` of the character `/check` would use."""
    try:
        here = where_of(interaction)
        client = interaction.client
        view = await client.store.channel_view(here)
        book = CharacterBook(client.store)
        typed = _ns(interaction, "character")
        gm = await is_gm(interaction) if typed else False
        record = await book.resolve(here.guild_id, interaction.user.id, typed, gm=gm, system=view.system)
        system = get_system(record.system)
        return choose(system.check_stats(system.sheet_from_dict(record.sheet)), current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("stat autocomplete failed", exc_info=True)
        return []
