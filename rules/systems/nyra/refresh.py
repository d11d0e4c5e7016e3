"""A sheet edited during a fight reaches its combatant (RULES.md §4 "Common": "A sheet edited while its
character is in an encounter reaches the combatant at the start of its next turn (equipment, stats, skills);
damage, wounds, conditions, delay and energy are encounter state and stay").

``refresh_sheet`` is the operation the shell calls when a combatant's turn starts, with the character's
current sheet. It swaps the combatant's copy for the new one and says what changed; what the fight itself
changed stays: damage per location (its wound states follow the new CON/STR), the delay pool (a turn not yet
touched gets the pool of the new AGI, RULES.md §1 "Delay": reset to AGI at the start of the turn), energy
left (capped at a smaller pool), weapon durability (a new weapon comes at full), the stance, the conditions
and the Sequence of this fight (the order of play stays fixed: RULES.md §1 "Order").

Decided where RULES.md is silent: a sheet moved to another location table is not taken mid-fight (its
damage is kept per location of the old body); the refresh is refused with a ``SheetRefreshed`` that says
so, and the GM can remove and re-add the combatant.
"""

from __future__ import annotations

import dataclasses

from rules.events import Outcome
from rules.systems.nyra.delay import turn_pool
from rules.systems.nyra.events import SheetRefreshed
from rules.systems.nyra.sheet import NyraSheet
from rules.systems.nyra.state import NyraCombat, NyraCombatant


def _words(values: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in values.items()}


def _diff(label: str, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """One phrase per added, removed or changed entry (``STR 7 → 8``, ``+ Dagger``, ``− Claymore``)."""
    changes: list[str] = []
    old, new = _words(before), _words(after)
    names = {k.lower(): k for k in (*before, *after)}
    for key, name in names.items():
        if key not in old:
            changes.append(f"{label} + {name}" + (f" {new[key]}" if new[key] else ""))
        elif key not in new:
            changes.append(f"{label} − {name}")
        elif old[key] != new[key]:
            changes.append(f"{label} {name} {old[key] or '—'} → {new[key] or '—'}")
    return changes


def sheet_changes(before: NyraSheet, after: NyraSheet) -> tuple[str, ...]:
    """What a player would call a change: stats, skills, weapons, armour, shield, energy pool, health."""
    changes = _diff(
        "", {k: str(v) for k, v in before.stats.items()}, {k: str(v) for k, v in after.stats.items()}
    )
    changes += _diff(
        "skill", {k: str(v) for k, v in before.skills.items()}, {k: str(v) for k, v in after.skills.items()}
    )
    changes += _diff(
        "weapon",
        {w.name: "" for w in before.weapons},
        {w.name: "" for w in after.weapons},
    )
    changes += [
        f"weapon {w.name} changed"
        for w in after.weapons
        for old in before.weapons
        if old.name.lower() == w.name.lower() and old != w
    ]

    def worn(sheet: NyraSheet) -> dict[str, str]:
        return {f"{a.name} ({', '.join(a.locations)})": "" for a in sheet.armour}

    changes += _diff("armour", worn(before), worn(after))
    if before.shield != after.shield:
        changes.append(f"shield {before.shield or 'none'} → {after.shield or 'none'}")
    if before.energy != after.energy:
        changes.append(
            f"energy pool {before.energy if before.energy is not None else 'none'} → "
            f"{after.energy if after.energy is not None else 'none'}"
        )
    if before.location_health != after.location_health:
        changes.append("location health values")
    return tuple(c.replace("  ", " ").strip() for c in changes)


def refresh_sheet(state: NyraCombat, cid: str, sheet: NyraSheet) -> Outcome[NyraCombat]:
    """The combatant ``cid`` fights with ``sheet`` from now on; no event when nothing changed."""
    combatant = state.get(cid)
    before = combatant.sheet
    if sheet.location_table != before.location_table:
        note = (
            f"not applied: the sheet moved from the {before.location_table} to the {sheet.location_table} "
            "location table, which cannot change mid-fight (the GM can remove and re-add the combatant)",
        )
        return Outcome(state, (SheetRefreshed(combatant.id, combatant.name, note),))
    # The Sequence of this fight stays; a sheet without one keeps the value rolled for it.
    after = dataclasses.replace(sheet, sequence=sheet.sequence or before.sequence)
    changes = sheet_changes(before, after)
    if not changes:
        return Outcome(state.with_combatant(dataclasses.replace(combatant, sheet=after)), ())
    updated = _carry_over(combatant, after, fresh_turn=_untouched_turn(state, combatant))
    return Outcome(state.with_combatant(updated), (SheetRefreshed(combatant.id, combatant.name, changes),))


def _untouched_turn(state: NyraCombat, combatant: NyraCombatant) -> bool:
    """Its turn is running and nothing has been spent from the pool yet."""
    return (
        state.turn_started
        and state.current_id == combatant.id
        and not state.volley_ended
        and combatant.delay_pool == turn_pool(combatant)
    )


def _carry_over(combatant: NyraCombatant, sheet: NyraSheet, *, fresh_turn: bool) -> NyraCombatant:
    durability = {w.name: w.durability for w in sheet.weapons if w.durability is not None}
    durability.update({k: v for k, v in combatant.durability.items() if k in durability})
    if sheet.energy is None:
        energy = None
    elif combatant.energy is None or combatant.sheet.energy is None:
        energy = sheet.energy  # a pool that appears starts full
    else:
        energy = min(combatant.energy, sheet.energy)
    updated = dataclasses.replace(combatant, sheet=sheet, durability=durability, energy=energy)
    if fresh_turn:
        updated = dataclasses.replace(updated, delay_pool=turn_pool(updated))
    return updated
