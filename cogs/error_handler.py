"""The extension that installs the one app-command error handler (``cogs.errors``) on the bot's tree, and
makes every command answer in time (``cogs.deadline``).

Loaded first (``bot.app.EXTENSIONS``), so every command and button the later extensions add answers through it.
The handler itself lives in the plain module ``cogs.errors``: discord.py executes an extension's module afresh
when it loads it, and cogs import ``report_error`` from the one shared copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs import deadline, errors

if TYPE_CHECKING:
    from bot.app import Fray


async def setup(bot: Fray) -> None:
    errors.install(bot.tree)
    deadline.install(bot)  # and answers in time
