"""`/help`: how play works here, in a few short lines — the channel's system and how a turn flows in it (from
the system's traits), the commands that matter now (setup, your turn, someone else's turn, Last Gasp) and
the house rules in force."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.text.common import clean
from cogs.text.encounters import fit, turn_choices
from rules.encounter import RuleInfo, System

PHASES = ("setup", "your-turn", "waiting", "last-gasp")
TOPICS = {
    "flow": "How a turn flows in this channel's system",
    "now": "What you can do right now",
    "setup": "Making characters and starting a fight",
    "your-turn": "Your turn: the commands that apply",
    "waiting": "Someone else's turn: what you can still do",
    "last-gasp": "Last Gasp: the Death Save",
    "rules": "The house rules in force here",
}


def topics(system: System | None) -> list[tuple[str, str]]:
    """The topics that mean something here (Last Gasp only where the system has death saves)."""
    death_saves = system is not None and system.traits.death_saves
    return [(k, v) for k, v in TOPICS.items() if k != "last-gasp" or death_saves]


def no_system() -> str:
    return (
        "❔ This channel has no rule system yet. A GM picks one with `/gm system`, then opens a fight with "
        "`/encounter start`. Until then `/roll` works everywhere (`/roll 2d6+3`)."
    )


def unknown_topic(topic: str, system: System | None) -> str:
    listed = ", ".join(f"`{k}`" for k, _ in topics(system))
    return f"There is no help topic `{clean(topic, 40)}`. Topics: {listed}."


def setup_text(system: System) -> str:
    return (
        f"**Setup.** `/character create` makes a {system.title} sheet (a short form asks the key fields); "
        "`/character set` fills several fields at once (`STR 7 AGI 6 Swords 7`). Then `/encounter join`; "
        "the GM adds NPCs with `/encounter add` and starts with `/encounter begin`."
    )


def waiting_text(current: str | None) -> str:
    whose = f"It is **{clean(current, 64)}**'s turn. " if current else ""
    return (
        f"**Waiting.** {whose}You can still `/defend stance:` where the rules allow a reaction, read "
        "`/encounter status` (only you see it) and `/encounter log`. Your turn is announced with a ping."
    )


def phase_text(system: System, phase: str, current: str | None = None) -> str:
    if phase == "setup":
        return setup_text(system)
    if phase == "waiting":
        return waiting_text(current)
    if phase == "last-gasp":
        return "**Last Gasp.** " + turn_choices(system.traits, last_gasp=True)
    return "**Your turn.** " + turn_choices(system.traits, last_gasp=False)


def rules_text(infos: Sequence[RuleInfo]) -> str:
    changed = [i for i in infos if i.value != i.default]
    if not infos:
        return "**House rules:** none for this system."
    if not changed:
        return f"**House rules:** all {len(infos)} at their defaults (`/gm rules` lists them)."
    shown = ", ".join(f"`{i.name}` {clean(i.value, 20)}" for i in changed[:8])  # names are the system's own
    more = f" and {len(changed) - 8} more" if len(changed) > 8 else ""
    return f"**House rules changed here:** {shown}{more}; the rest at their defaults (`/gm rules`)."


def help_text(
    system: System,
    phase: str,
    infos: Sequence[RuleInfo],
    *,
    topic: str | None = None,
    current: str | None = None,
) -> str:
    """The answer to `/help [topic]` (private, short). Without a topic: the system, its turn flow, what
    matters now and the house rules."""
    flow = f"**{system.title}.** {system.traits.turn_flow}".strip()
    if topic == "flow":
        return fit(flow)
    if topic == "rules":
        return fit(rules_text(infos))
    if topic in PHASES:
        return fit(phase_text(system, topic, current))
    return fit("\n\n".join([flow, phase_text(system, phase, current), rules_text(infos)]))
