"""Every user-facing sentence of the dice, GM and error-handling features. Cogs only pick and send these.

Nothing here talks to Discord; functions take plain values and return text (≤ 2000 characters).
"""

from __future__ import annotations

from discord.utils import escape_markdown, escape_mentions

from rules.errors import RulesError
from rules.systems.registry import get_system

MAX_MESSAGE = 2000
MAX_REASON = 100


def system_title(name: str) -> str:
    """How a channel's system is announced ("the D6 campaign"); a name no longer registered as itself."""
    try:
        return get_system(name).title
    except RulesError:
        return name


def _clean(text: str, limit: int = MAX_REASON) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape_mentions(escape_markdown(text))


def _fit(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


# --- dice -----------------------------------------------------------------------------------------------


def roll_line(user_id: int, described: str, reason: str | None = None) -> str:
    """The public line of a roll: who rolled, why, and every die (``described`` from ``notation.describe``)."""
    why = f" for *{_clean(reason)}*" if reason else ""
    return _fit(f"🎲 {mention(user_id)} rolled{why}: {described}")


def secret_roll_result(described: str, reason: str | None = None) -> str:
    why = f" for *{_clean(reason)}*" if reason else ""
    return _fit(
        f"🤫 Your secret roll{why}: {described}\n-# Only you and the GMs can see this result (with the button in the channel)."
    )


def secret_roll_public(user_id: int, reason: str | None = None) -> str:
    why = f" for *{_clean(reason)}*" if reason else ""
    return f"🎲 {mention(user_id)} made a secret roll{why}. The roller and the GMs can see the result."


def gm_roll_result(described: str) -> str:
    return _fit(f"🤫 Your secret GM roll: {described}\n-# The channel only sees that the GM rolled.")


def gm_roll_public(user_id: int) -> str:
    return f"🎲 The GM ({mention(user_id)}) rolled dice in secret."


SECRET_BUTTON_LABEL = "Show the result"


def secret_reveal(roller_id: int, result_text: str, *, own: bool) -> str:
    who = "Your" if own else f"{mention(roller_id)}'s"
    return _fit(f"🤫 {who} secret roll: {result_text}")


def secret_refused() -> str:
    return "🙈 Sorry, that secret roll is only for the roller and the GMs."


def secret_missing() -> str:
    return "That secret roll is no longer stored, so there is nothing to show."


def roll_refused(reason: str) -> str:
    return f"I could not roll that: {reason}"


# --- GM -------------------------------------------------------------------------------------------------


def not_gm(has_role: bool) -> str:
    how = "the server's GM role" if has_role else "a GM role (set with `/gm role`)"
    return f"Only a GM can do that: a member with Manage Server or {how}. Ask a GM to do it for you."


def guild_only() -> str:
    return "That only works in a server channel, not in direct messages."


def system_set(system: str, *, thread: bool) -> str:
    where = "this thread" if thread else "this channel (and its threads, unless they set their own)"
    return f"⚙️ The rule system of {where} is now **{system_title(system)}**."


def role_set(role_id: int) -> str:
    return f"⚙️ The GM role of this server is now <@&{role_id}>. Members with it (or Manage Server) are GMs."


def role_is_everyone() -> str:
    return "@everyone cannot be the GM role (everyone would be a GM). Pick or create a role for your GMs."


# --- errors ---------------------------------------------------------------------------------------------


def check_failed(detail: str | None = None) -> str:
    return detail or "You cannot use that command here."


def bad_option(value: object, expected: str) -> str:
    return f"I could not read `{_clean(str(value), 50)}` as {expected}. Pick a value from the list Discord offers."


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
