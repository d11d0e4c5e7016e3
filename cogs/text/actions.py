"""Every user-facing sentence of the action commands (`/attack` … `/lockin`, `/check`, the Death Save button):
titles, refusals, and the resolution split into messages. The events' own lines come from ``cogs.text.events``
(one renderer per event class). A resolution is split into as many messages as it needs (each ≤ 2000
characters, split between lines, never inside one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cogs.text.encounters import MAX_MESSAGE, clean, fit
from cogs.text.events import Names, lines_of
from rules.events import Event

MAX_MESSAGES = 4


def resolution_lines(events: Iterable[Event], names: Names) -> list[str]:
    """One line per event (or more, where its renderer gives more), in order."""
    return lines_of(events, names)


def split_messages(title: str, lines: Sequence[str], limit: int = MAX_MESSAGE) -> list[str]:
    """``title`` then ``lines`` in as few messages as fit (each ≤ ``limit``), split between lines only; a
    single too-long line is summarised by ``fit``. At most ``MAX_MESSAGES`` messages; the rest is summarised."""
    messages: list[str] = []
    current = title
    for i, raw in enumerate(lines):
        line = fit(raw, limit - 50)
        if len(current) + 1 + len(line) <= limit:
            current = f"{current}\n{line}" if current else line
            continue
        messages.append(current)
        if len(messages) == MAX_MESSAGES - 1:
            rest = list(lines[i:])
            tail = fit("\n".join(fit(r, limit - 50) for r in rest), limit - 60)
            messages.append(
                tail + ("\n(see `/encounter log` for everything)" if tail.endswith("more lines") else "")
            )
            return messages
        current = line
    if current:
        messages.append(current)
    return messages


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


def summary(kind: str, actor: str, target: str | None, detail: str = "") -> str:
    label = "initiative reroll" if kind == "reroll" else kind
    text = f"{actor}: {label}" + (f" {target}" if target else "") + (f" ({detail})" if detail else "")
    return text[:300]


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
        f"In {system} {named} {'is' if len(options) == 1 else 'are'} the GM's to give (RULES.md §4), not the "
        f"player's; leave it out, or ask your GM, {ask}."
    )


def luck_title(name: str, off: bool) -> str:
    if off:
        return f"🍀 **{clean(name, 64)}** keeps its Luck out of its initiative roll."
    return f"🍀 **{clean(name, 64)}** will add its Luck to its initiative roll."
