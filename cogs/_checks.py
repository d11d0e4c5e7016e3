"""Who may do what (COMMANDS.md): the GM rule, reusable by every cog.

A GM is a member with Manage Server (or Administrator), or with the server's GM role (``/gm role``), or
anyone a registered GM source accepts (``bot.gm_sources``; the encounters cog will add "started the running
encounter"). ``gm_only()`` is an ``app_commands`` check; ``require_gm`` does the same inside a callback or a
button.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.errors import NotGM, NotInGuild
from bot.store import Where
from cogs.text import errors as render

log = logging.getLogger(__name__)


def where(interaction: discord.Interaction[Any]) -> Where:
    """The guild, channel and (for a thread) parent channel of an interaction. Raises ``NotInGuild``."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise NotInGuild(render.guild_only())
    parent_id = getattr(interaction.channel, "parent_id", None)
    return Where(interaction.guild_id, interaction.channel_id, parent_id)


def has_manage_server(interaction: discord.Interaction[Any]) -> bool:
    perms = interaction.permissions
    if perms.administrator or perms.manage_guild:
        return True
    member = interaction.user
    if isinstance(member, discord.Member):
        try:
            computed = member.guild_permissions
            return computed.administrator or computed.manage_guild
        except Exception:  # the guild is not cached; the interaction's permissions already said no
            return False
    return False


def has_role(member: discord.abc.User, role_id: int) -> bool:
    if not isinstance(member, discord.Member):
        return False
    if any(role.id == role_id for role in member.roles):
        return True
    raw = getattr(member, "_roles", None)  # role IDs from the payload, even when the role is not cached
    return bool(raw is not None and raw.has(role_id))


async def is_gm(interaction: discord.Interaction[Any]) -> bool:
    if interaction.guild_id is None:
        return False
    if has_manage_server(interaction):
        return True
    bot = interaction.client
    role_id = await bot.store.gm_role_id(interaction.guild_id)  # type: ignore[attr-defined]
    if role_id is not None and has_role(interaction.user, role_id):
        return True
    for source in getattr(bot, "gm_sources", ()):
        if await source(interaction):
            return True
    return False


async def require_gm(interaction: discord.Interaction[Any]) -> bool:
    """True for a GM; raises ``NotGM`` (an ephemeral refusal through the tree's handler) otherwise."""
    if interaction.guild_id is None:
        raise NotInGuild(render.guild_only())
    if await is_gm(interaction):
        return True
    role_id = await interaction.client.store.gm_role_id(interaction.guild_id)  # type: ignore[attr-defined]
    raise NotGM(render.not_gm(has_role=role_id is not None))


def gm_only() -> Any:
    """Decorator: the command is GM-only (``@gm_only()`` above ``@app_commands.command``)."""
    return app_commands.check(require_gm)
