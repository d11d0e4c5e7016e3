"""Command sync: only when the command payload changed since the last successful sync for that scope.

The scope is the dev guild when ``DEV_GUILD_ID`` is set (global commands are copied into it), else global.
The payload is ``[c.to_dict(tree) for c in tree.get_commands(guild=...)]`` (sorted by type and name), hashed
as JSON with sorted keys together with the application id (a new application must be synced even when the
commands are unchanged). The hash is stored in ``CommandSync`` after a successful sync only.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import discord
from discord import app_commands

from bot.models import CommandSync
from bot.store import Store, commands_key, put_row

log = logging.getLogger(__name__)

GLOBAL = "global"


@dataclass(frozen=True, slots=True)
class SyncResult:
    scope: str
    payload_hash: str
    synced: bool
    count: int


def scope_of(guild: discord.abc.Snowflake | None) -> str:
    return GLOBAL if guild is None else str(guild.id)


def command_payload(
    tree: app_commands.CommandTree, guild: discord.abc.Snowflake | None
) -> list[dict[str, Any]]:
    payload = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
    return sorted(payload, key=lambda c: (c.get("type", 1), c.get("name", "")))


def payload_hash(payload: list[dict[str, Any]], application_id: int | None = None) -> str:
    body = json.dumps(
        {"application_id": application_id, "commands": payload}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(body.encode()).hexdigest()


async def sync_commands(
    tree: app_commands.CommandTree,
    store: Store,
    *,
    application_id: int | None,
    dev_guild_id: int | None,
    clock: Callable[[], datetime],
    force: bool = False,
) -> SyncResult:
    """Sync the tree's commands when they changed (or ``force``). Raises discord.py's errors on failure."""
    guild = discord.Object(id=dev_guild_id) if dev_guild_id else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
    scope = scope_of(guild)
    payload = command_payload(tree, guild)
    digest = payload_hash(payload, application_id)
    async with store.sessions() as session:
        stored = await session.get(CommandSync, scope)
        if stored is not None and stored.payload_hash == digest and not force:
            log.info("commands unchanged for %s (%d commands); not syncing", scope, len(payload))
            return SyncResult(scope, digest, False, len(payload))
    await tree.sync(guild=guild)
    async with store.change(commands_key(scope)) as session:
        await put_row(session, CommandSync, {"scope": scope, "payload_hash": digest, "synced_at": clock()})
    log.info("synced %d commands to %s%s", len(payload), scope, " (forced)" if force else "")
    return SyncResult(scope, digest, True, len(payload))
