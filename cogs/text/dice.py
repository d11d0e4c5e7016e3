"""Every user-facing sentence of ``/roll`` and its secret rolls. Cogs only pick and send these."""

from __future__ import annotations

from cogs.text.common import clean, fit, mention

_clean = clean
_fit = fit

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
