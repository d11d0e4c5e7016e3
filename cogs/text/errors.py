"""Every sentence of a refusal or a failure: the tree's error handler, permission checks, and the shell's domain
errors (``bot.errors``), which carry data and get their words here."""

from __future__ import annotations

from cogs.text.common import clean


def not_gm(has_role: bool) -> str:
    how = "the server's GM role" if has_role else "a GM role (set with `/gm role`)"
    return f"Only a GM can do that: a member with Manage Server or {how}. Ask a GM to do it for you."


def guild_only() -> str:
    return "That only works in a server channel, not in direct messages."


def check_failed(detail: str | None = None) -> str:
    return detail or "You cannot use that command here."


def bad_option(value: object, expected: str) -> str:
    return f"I could not read `{clean(str(value), 50)}` as {expected}. Pick a value from the list Discord offers."


def cooldown(seconds: float) -> str:
    return f"Slow down a little: try again in {seconds:.0f} s."


def commands_outdated() -> str:
    return "That command is out of date (the bot was just updated). Wait a minute and try it again."


def bot_forbidden() -> str:
    return (
        "I am missing a permission here (View Channel, Send Messages or Embed Links). "
        "Ask a server admin to give me those in this channel."
    )


def incident(incident_id: str) -> str:
    return (
        f"😵 Sorry, something went wrong on my side. "
        f"If it keeps happening, tell the bot's admin incident `{incident_id}`."
    )
