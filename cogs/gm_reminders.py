"""`/gm reminders`: the channel's turn-reminder policy. A mixin the ``/gm`` group cog composes (see ``cogs.gm``).

It also owns the lifetime of the reminder loop (``bot.reminders.ReminderLoop``): the loop starts when the
``/gm`` cog loads (``setup_hook`` has migrated the database by then; the loop's first pass waits until the bot
is ready) and stops when the cog is removed (``Bot.close`` removes every cog before the engine is disposed).
That keeps the feature inside its own files: ``bot/app.py`` needs no change. ``cog_load``/``cog_unload``
cooperate through ``super()``, so other mixins may define them too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from bot.errors import BotError
from bot.reminder_policy import MAX_REMINDERS, parse_duration
from bot.reminders import ReminderLoop, policy_view, save_policy
from cogs._checks import where
from cogs.errors import NO_MENTIONS
from cogs.reminders import DiscordSender
from cogs.text import reminders as text
from cogs.text.common import clean
from rules.errors import RulesError

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)


class InvalidReminderSettings(BotError):
    """One or more ``/gm reminders`` options are invalid; nothing was saved."""


def validate(
    after: str | None, repeat: str | None, max_reminders: int | None, then: str | None, off: bool | None
) -> dict[str, Any]:
    """The changes to save, every option checked; raises ``InvalidReminderSettings`` listing ALL problems."""
    changes: dict[str, Any] = {}
    problems: list[str] = []
    for option, raw, name in (("after", after, "after"), ("repeat", repeat, "repeat")):
        if raw is None:
            continue
        try:
            changes[name] = parse_duration(raw, option=option)
        except RulesError as err:
            problems.append(err.reason)
    if max_reminders is not None:
        if 0 <= max_reminders <= MAX_REMINDERS:
            changes["max_reminders"] = max_reminders
        else:
            problems.append(text.max_out_of_range(max_reminders, MAX_REMINDERS))
    if then is not None:
        if then in text.THEN_TEXT:
            changes["then"] = then
        else:
            problems.append(f"`then` must be `gm`, `skip` or `nothing`, not {clean(then, 20)!r}.")
    if off is not None:
        changes["enabled"] = not off
    if problems:
        raise InvalidReminderSettings(text.settings_refused(problems))
    return changes


class ReminderGMCommands:
    """``/gm reminders``; ``cogs.gm.GM`` inherits it (its GM-only check applies) and, through
    ``cog_load``/``cog_unload``, runs the reminder loop."""

    bot: Fray
    reminder_loop: ReminderLoop | None = None

    async def cog_load(self) -> None:
        await super().cog_load()  # type: ignore[misc]
        self.reminder_loop = ReminderLoop.for_bot(self.bot, DiscordSender(self.bot))
        self.reminder_loop.start()

    async def cog_unload(self) -> None:
        loop, self.reminder_loop = self.reminder_loop, None
        if loop is not None:
            await loop.stop()
        await super().cog_unload()  # type: ignore[misc]

    @app_commands.command(
        name="reminders", description="Turn reminders in this channel; no options shows the settings"
    )
    @app_commands.rename(max_reminders="max")
    @app_commands.describe(
        after="First reminder this long after the turn starts, e.g. 12h, 30m, 1d12h (at most 30d)",
        repeat="Then remind again this often, e.g. 24h",
        max_reminders="Member reminders per turn at most (0–10)",
        then="After the last reminder: tell the GMs, skip the turn, or do nothing",
        off="True: no reminders here; False: reminders on again",
    )
    async def reminders(
        self,
        interaction: discord.Interaction[Fray],
        after: app_commands.Range[str, 1, 40] | None = None,
        repeat: app_commands.Range[str, 1, 40] | None = None,
        max_reminders: app_commands.Range[int, 0, MAX_REMINDERS] | None = None,
        then: Literal["gm", "skip", "nothing"] | None = None,
        off: bool | None = None,
    ) -> None:
        here = where(interaction)
        bot = interaction.client
        if all(value is None for value in (after, repeat, max_reminders, then, off)):
            view = await policy_view(bot.store, here)
            await interaction.response.send_message(
                text.settings_text(view.policy, view.sources, thread=view.thread),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        changes = validate(after, repeat, max_reminders, then, off)
        view = await save_policy(bot.store, here, interaction.user.id, changes, bot.clock())
        await interaction.response.send_message(
            text.settings_saved(view.policy, view.sources, thread=view.thread), allowed_mentions=NO_MENTIONS
        )
