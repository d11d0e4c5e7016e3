"""A sheet edited during a fight reaches its combatant (RULES.md §4 "Common": "A sheet edited while its
character is in an encounter reaches the combatant at the start of its next turn (equipment, stats,
skills); damage, wounds, conditions, delay and energy are encounter state and stay").

The shell calls ``refresh_sheet`` when a combatant's turn comes (it owes a declaration), with the character's
current sheet. Taken from it: attributes, skills, weapons (table and custom), armour, the active-defense
skill, the initiative modifier, notes. Kept from the fight: the name it fights under, the NPC flag, its Luck
(spent on initiative or set by the GM), initiative and roll-off, its place on the timeline, posture,
damage, wounds and conditions. Decided where RULES.md is silent: while an action of its own is under way
the new sheet waits (the action was declared with the old weapon), and a lower Health that puts the
damage past 4×Health knocks it out as any hit would.
"""

from __future__ import annotations

import dataclasses

from rules.events import Event, Outcome
from rules.systems.kaernest import health
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest.events import SheetRefreshed
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import KaernestState

_FIELDS = ("armour", "initiative_modifier", "defense_skill")


def sheet_changes(before: Sheet, after: Sheet) -> tuple[str, ...]:
    changes = [
        f"{a.title()} {getattr(before, a)} → {getattr(after, a)}"
        for a in sheets.ATTRIBUTES
        if getattr(before, a) != getattr(after, a)
    ]
    old, new = dict(before.skills), dict(after.skills)
    changes += [f"skill + {n} {v}" for n, v in new.items() if n not in old]
    changes += [f"skill − {n}" for n in old if n not in new]
    changes += [f"skill {n} {old[n]} → {v}" for n, v in new.items() if n in old and old[n] != v]
    changes += [f"weapon + {w}" for w in after.weapons if w not in before.weapons]
    changes += [f"weapon − {w}" for w in before.weapons if w not in after.weapons]
    changes += [
        f"weapon {w.name} changed"
        for w in after.custom_weapons
        for o in before.custom_weapons
        if o.name == w.name and o != w
    ]
    for name in _FIELDS:
        if getattr(before, name) != getattr(after, name):
            changes.append(
                f"{name.replace('_', ' ')} {getattr(before, name) or 'none'} → {getattr(after, name) or 'none'}"
            )
    return tuple(changes)


def refresh_sheet(state: KaernestState, cid: str, sheet: Sheet) -> Outcome[KaernestState]:
    """The combatant ``cid`` fights with ``sheet`` from now on; no event when nothing changed."""
    combatant = state.get(cid)
    if combatant.pending is not None:
        return Outcome(state, ())
    before = combatant.sheet
    after = dataclasses.replace(sheet, name=before.name, npc=before.npc, luck=before.luck)
    changes = sheet_changes(before, after)
    updated = dataclasses.replace(combatant, sheet=after)
    if not changes:
        return Outcome(state.replace(updated), ())
    events: list[Event] = [SheetRefreshed(combatant.id, changes)]
    if combatant.up and not updated.up:
        updated, cancelled = health.knocked_out(updated)
        events.extend(cancelled)
    return Outcome(state.replace(updated), tuple(events))
