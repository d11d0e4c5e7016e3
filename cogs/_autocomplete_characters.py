"""Autocomplete for ``/character …`` (and for any cog that lets a member name a character).

Every source returns at most 25 choices filtered by what was typed, never raises (any problem → ``[]``),
takes no locks and reads as little as it can.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.characters import CharacterBook, CharacterRecord, CharacterRef, name_key
from cogs._checks import is_gm, where
from cogs.text import characters as text
from rules.systems.registry import get_system

if TYPE_CHECKING:
    from bot.app import Fray

from rules.errors import RulesError

log = logging.getLogger(__name__)

MAX_CHOICES = 25
Choice = app_commands.Choice[str]


def book_of(interaction: discord.Interaction[Fray]) -> CharacterBook:
    bot = interaction.client
    cog = bot.get_cog("Characters")
    book = getattr(cog, "book", None)
    return book if isinstance(book, CharacterBook) else CharacterBook(bot.store)


def filter_names(names: Iterable[str], typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """Names containing ``typed`` (case-insensitive), those starting with it first, unique, at most ``limit``."""
    key = name_key(typed or "")
    seen: set[str] = set()
    starts: list[str] = []
    contains: list[str] = []
    for name in names:
        folded = name_key(name)
        if folded in seen or not name or len(name) > 100:
            continue
        seen.add(folded)
        if folded.startswith(key):
            starts.append(name)
        elif key in folded:
            contains.append(name)
    return (starts + contains)[:limit]


def _member_name(interaction: discord.Interaction[Any], user_id: int) -> str:
    guild = interaction.guild
    member = guild.get_member(user_id) if guild is not None else None
    if member is not None:
        return member.display_name
    return f"member …{str(user_id)[-4:]}"


def _label(interaction: discord.Interaction[Any], ref: CharacterRef, *, with_owner: bool) -> str:
    label = f"{ref.name} ({text.system_title(ref.system)})"
    if with_owner and ref.owner_id != interaction.user.id:
        label += f" — {_member_name(interaction, ref.owner_id)}"
    return label if len(label) <= 100 else label[:99] + "…"


async def character_choices(interaction: discord.Interaction[Fray], current: str) -> list[Choice]:
    """The member's characters (a GM: everyone's, with their owners). Values are exact ``#<id>`` references."""
    try:
        if interaction.guild_id is None:
            return []
        gm = await is_gm(interaction)
        refs = await book_of(interaction).suggest(
            interaction.guild_id, current or "", owner_id=None if gm else interaction.user.id
        )
        if gm:  # own characters first
            refs.sort(key=lambda r: r.owner_id != interaction.user.id)
        return [Choice(name=_label(interaction, r, with_owner=gm), value=r.reference) for r in refs][
            :MAX_CHOICES
        ]
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("character autocomplete failed", exc_info=True)
        return []


async def _focus_character(interaction: discord.Interaction[Fray]) -> CharacterRecord | None:
    """The character the other options of the command point at (or would by default), if any."""
    if interaction.guild_id is None:
        return None
    wanted = getattr(interaction.namespace, "character", None)
    book = book_of(interaction)
    gm = bool(wanted) and await is_gm(interaction)
    system = None
    if not wanted:
        system = (await interaction.client.store.channel_view(where(interaction))).system
    try:
        return await book.resolve(interaction.guild_id, interaction.user.id, wanted, gm=gm, system=system)
    except Exception:
        return None


async def _focus_system(interaction: discord.Interaction[Fray]) -> tuple[str | None, CharacterRecord | None]:
    record = await _focus_character(interaction)
    if record is not None:
        return record.system, record
    view = await interaction.client.store.channel_view(where(interaction))
    return view.system, None


def _choices(names: Iterable[str], current: str) -> list[Choice]:
    return [Choice(name=n, value=n) for n in filter_names(names, current)]


async def field_choices(interaction: discord.Interaction[Fray], current: str) -> list[Choice]:
    try:
        system, _ = await _focus_system(interaction)
        if system is None:
            return []
        fields = list(get_system(system).sheet_fields())
        if not any(name_key(f) == "name" for f in fields):
            fields.append("name")
        return _choices(fields, current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("field autocomplete failed", exc_info=True)
        return []


async def weapon_choices(interaction: discord.Interaction[Fray], current: str) -> list[Choice]:
    try:
        system, record = await _focus_system(interaction)
        if system is None:
            return []
        rules = get_system(system)
        carried: tuple[str, ...] = ()
        if record is not None:
            try:
                carried = tuple(rules.sheet_weapons(record.load()))
            except Exception:
                carried = ()
        if getattr(interaction.namespace, "remove", False):
            return _choices(carried, current)
        return _choices([*rules.weapon_names(), *carried], current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("weapon autocomplete failed", exc_info=True)
        return []


async def armour_choices(interaction: discord.Interaction[Fray], current: str) -> list[Choice]:
    try:
        system, _ = await _focus_system(interaction)
        if system is None:
            return []
        return _choices(get_system(system).armour_names(), current)
    except RulesError:  # what was typed so far matches nothing: expected
        return []
    except Exception:  # a bug: never fail the member, but say so
        log.warning("armour autocomplete failed", exc_info=True)
        return []
