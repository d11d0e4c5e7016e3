"""Every user-facing sentence of the action commands (`/attack` … `/lockin`, `/check`, the Death Save button):
titles, refusals, and the resolution split into messages. The events' own lines come from ``cogs.text.events``
(one renderer per event class). A resolution is split into as many messages as it needs (each ≤ 2000
characters, split between lines, never inside one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cogs.text.common import clean
from cogs.text.events import Names
from cogs.text.messages import MAX_MESSAGES as MAX_MESSAGES
from cogs.text.messages import split_messages as split_messages
from cogs.text.messages import story
from rules.events import Event


def resolution_lines(events: Iterable[Event], names: Names) -> list[str]:
    """One line per event (or more, where its renderer gives more), in order; house rules named once."""
    return story(events, names, bullets=False)


# --- titles and refusals --------------------------------------------------------------------------------

TITLES = {
    "attack": "⚔️ **{actor}** attacks {target}",
    "defend": "🛡️ **{actor}** takes a stance",
    "grapple": "🤼 **{actor}** grapples {target}",
    "heal": "🩹 **{actor}** heals {target}",
    "deathsave": "💀 **{actor}** makes a Death Save",
    "move": "🏃 **{actor}** moves",
    "disengage": "↪️ **{actor}** disengages from {target}",
    "stealth": "🫥 **{actor}** tries to hide",
    "reroll": "🔁 **{actor}** rerolls initiative",
    "lockin": "🔒 **{actor}** locks in the turn",
}


def action_title(kind: str, actor: str, target: str | None, *, gm: bool) -> str:
    text = TITLES.get(kind, "**{actor}** acts").format(
        actor=clean(actor, 64), target=f"**{clean(target, 64)}**" if target else "—"
    )
    return text + (" *(GM)*" if gm else "")


def declared_title(actor: str) -> str:
    return f"📝 Declared for **{clean(actor, 64)}** (nothing rolled yet; `/lockin` resolves the plan):"


def summary(kind: str, actor: str, target: str | None, detail: str = "", *, by_gm: bool = False) -> str:
    label = "initiative reroll" if kind == "reroll" else kind
    text = f"{actor}: {label}" + (f" {target}" if target else "") + (f" ({detail})" if detail else "")
    return text[:300] + (" (GM)" if by_gm else "")


def leave_ignored() -> str:
    return "`leave` is for D6 (leaving melee without disengaging); it changes nothing here."


def check_title(character: str, stat: str) -> str:
    return f"🎲 **{clean(character, 64)}** checks {clean(stat, 40)}"


def check_no_system() -> str:
    return "Which system? This channel has no rule system yet (a GM sets one with `/gm system`)."


def bonus_range(low: int, high: int, value: int) -> str:
    return f"`bonus` must be from {low} to {high}, not {value}."


def not_yours(name: str) -> str:
    return f"**{clean(name, 64)}** is not your combatant; only its player (or a GM with `as`) acts for it."


def gm_options_only(options: Sequence[str], system: str, *, check: bool = False) -> str:
    """RULES.md §4: a bonus or circumstance modifier (and what the system keeps for its GM) is the GM's."""
    named = ", ".join(f"`{o}`" for o in options)
    ask = "who can roll the check with it" if check else "who can act for you with `as`"
    return (
        f"In {system} {named} {'is' if len(options) == 1 else 'are'} the GM's to give, not yours: leave "
        f"{'it' if len(options) == 1 else 'them'} out, or ask your GM, {ask}."
    )


def luck_title(name: str, off: bool) -> str:
    if off:
        return f"🍀 **{clean(name, 64)}** keeps its Luck out of its initiative roll."
    return f"🍀 **{clean(name, 64)}** will add its Luck to its initiative roll."
