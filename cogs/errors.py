"""The one app-command error handler (tree-level), shared by buttons through ``report_error``.

It answers members, so it lives with the cogs: ``cogs.error_handler`` installs ``report_error`` as the tree's
``on_error`` when the bot loads its extensions (``bot/`` imports nothing from ``cogs/``). Its sentences come from
``cogs.text.errors``.

- ``RulesError`` (the rules' errors keep their ``reason``; the shell's domain errors, ``bot.errors``, carry
  data and get their sentence from ``cogs.text.errors.describe``) → that sentence, ephemeral;
- discord.py's check failures and transformer errors → what to do, ephemeral;
- anything else → logged with its traceback under a short incident id; the member gets an ephemeral apology
  with that id.

The answer goes through ``interaction.response`` when it is still open, else ``interaction.followup``, so no
interaction is left unanswered. ``report_error`` never raises.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord
from discord import app_commands

from cogs.text import errors as render
from rules.errors import RulesError

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()


def new_incident_id() -> str:
    return secrets.token_hex(4)


def unwrap(error: BaseException) -> BaseException:
    """The exception a command raised (discord.py wraps it in ``CommandInvokeError``)."""
    while isinstance(error, app_commands.CommandInvokeError) and error.original is not None:
        error = error.original
    return error


def _transformer_expectation(error: app_commands.TransformerError) -> str:
    names = {
        discord.AppCommandOptionType.role: "a role",
        discord.AppCommandOptionType.user: "a member",
        discord.AppCommandOptionType.channel: "a channel",
        discord.AppCommandOptionType.mentionable: "a member or role",
        discord.AppCommandOptionType.integer: "a whole number",
        discord.AppCommandOptionType.number: "a number",
        discord.AppCommandOptionType.boolean: "yes or no",
        discord.AppCommandOptionType.attachment: "a file",
    }
    return names.get(error.type, "a valid value")


def classify(error: BaseException) -> tuple[str, str | None]:
    """The text to answer with, and the incident id when the error is a bug (``None`` otherwise)."""
    error = unwrap(error)
    if isinstance(error, RulesError):
        return render.describe(error), None
    if isinstance(error, app_commands.NoPrivateMessage):
        return render.guild_only(), None
    if isinstance(error, app_commands.CommandOnCooldown):
        return render.cooldown(error.retry_after), None
    if isinstance(
        error, app_commands.MissingPermissions | app_commands.MissingRole | app_commands.MissingAnyRole
    ):
        return render.check_failed(str(error)), None
    if isinstance(error, app_commands.BotMissingPermissions):
        return render.bot_forbidden(), None
    if isinstance(error, app_commands.CheckFailure):
        return render.check_failed(), None
    if isinstance(error, app_commands.TransformerError):
        return render.bad_option(error.value, _transformer_expectation(error)), None
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        log.warning("a member used an out-of-date command: %s", error)
        return render.commands_outdated(), None
    if isinstance(error, discord.Forbidden):
        log.warning("missing permission while answering: %s", error)
        return render.bot_forbidden(), None
    incident = new_incident_id()
    return render.incident(incident), incident


def _where(interaction: discord.Interaction[Any]) -> str:
    try:
        command = interaction.command
        name = (
            command.qualified_name if command is not None else (interaction.data or {}).get("custom_id", "?")
        )
        user = interaction.user.id if interaction.user is not None else None
        return f"{name!r} (guild {interaction.guild_id}, channel {interaction.channel_id}, user {user})"
    except Exception:
        return "an interaction"


async def answer_ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    """Answer ``interaction`` privately, whether or not it has been responded to already."""
    if not interaction.response.is_done():
        try:
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
            return
        except discord.InteractionResponded:
            pass
    await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> str | None:
    """Answer ``error`` for ``interaction``; returns the incident id for a bug. Never raises."""
    incident: str | None = None
    try:
        text, incident = classify(error)
        if incident is not None:
            original = unwrap(error)
            log.error(
                "incident %s in %s: %s",
                incident,
                _where(interaction),
                type(original).__name__,
                exc_info=(type(original), original, original.__traceback__),
            )
        if interaction.is_expired():
            log.warning("could not answer %s: the interaction expired", _where(interaction))
            return incident
        await answer_ephemeral(interaction, text)
    except Exception:
        log.exception(
            "the error handler failed while answering %s (incident %s)", _where(interaction), incident
        )
    return incident


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make ``report_error`` the tree's one error handler."""
    tree.error(report_error)
