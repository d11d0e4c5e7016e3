"""Nyra behind the system-agnostic ``rules.encounter.System`` protocol (what the cogs call).

Thin: each method translates its arguments, calls the Nyra core (the section modules) and
builds the views. The readings this adapter had to choose, because the protocol is shared by three systems:

- ``begin``: Nyra orders by Sequence (RULES.md §1 "Order"); ``attackers`` and ``surprise`` mean nothing here.
  They are accepted, change nothing, and a ``Note`` says so when either was given.
- ``add_combatant`` / ``gm_set``: a combatant joining a running fight, or a new Sequence, may need a d10
  (a missing Sequence, a roll-off for a new tie). The protocol passes no dice there, so these methods take
  an optional ``dice`` keyword; without it a needed die is refused with a clear ``NotAllowed`` (nothing
  changes). Before ``begin`` nothing is ever rolled. ``distance`` has no Nyra meaning and is ignored.
- ``gm_heal``: heals the ``location`` named (RULES.md §4), or by default the worst wound: the location in
  the worst wound state, then with the most damage, then first in the location table. Only that location
  heals; the rest of ``amount`` is not carried to another one (``/gm set "<location> damage"`` is exact).
- ``refresh_sheet``: the shell calls it when a combatant's turn starts, with the character's current sheet
  (RULES.md §4); ``refresh.py`` says what is swapped and what stays.
- ``gm_next``: ends the current turn whoever holds it; when no turn is running (everyone had died and
  the GM healed someone) it starts the current combatant's turn, or passes a dead one's.
- conditions: free text kept on the combatant (``NyraCombatant.conditions``), shown in the tracker. No
  Nyra rule reads them; bleeding, death and stance are derived and cannot be set as conditions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rules.dice import DiceSource, Die
from rules.encounter import (
    CombatantView,
    LocationView,
    SheetView,
    System,
    TrackerView,
    Traits,
    TurnStatus,
)
from rules.errors import InvalidInput, NotAllowed, NotFound
from rules.events import Event, Note, Outcome
from rules.house_rules import BookHouseRules
from rules.systems.nyra import actions as other_actions
from rules.systems.nyra import creatures, refresh, sequence, tables, turns
from rules.systems.nyra import sheet as sheets
from rules.systems.nyra.adapter_actions import NyraActions
from rules.systems.nyra.creatures import creature
from rules.systems.nyra.delay import turn_pool
from rules.systems.nyra.events import FieldSet
from rules.systems.nyra.house import BOOK as HOUSE_BOOK
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.locations import WoundState
from rules.systems.nyra.modifiers import stat_modifier
from rules.systems.nyra.sheet import NyraSheet, validate_sheet
from rules.systems.nyra.state import MAX_CONDITION_LENGTH, MAX_CONDITIONS, NyraCombat, NyraCombatant
from rules.systems.nyra.weapons import DamageType

# Conditions offered by autocomplete; any other short text is accepted too.
CONDITIONS: tuple[str, ...] = ("prone", "stunned", "unaware", "hidden", "grappled", "blinded", "disarmed")
_DERIVED = ("bleeding", "dead", "stance", "dodge", "defense")

# Worst last: the tracker's health word is the worst location's state (a fatal wound reads "dead").
_SEVERITY: tuple[WoundState, ...] = (
    WoundState.UNHURT,
    WoundState.SLIGHT,
    WoundState.SERIOUS,
    WoundState.CRITICAL,
    WoundState.MANGLED,
    WoundState.SEVERED,
    WoundState.FATAL,
)


class _NoDice:
    """Stands in where the protocol passes no dice: any die the core needs is refused, nothing changes."""

    def __init__(self, why: str, hint: str) -> None:
        self.why = why
        self.hint = hint

    def roll(self, sides: int, label: str = "") -> Die:
        raise NotAllowed(
            f"{self.why} needs a d{sides} ({label or 'a roll'}), which cannot be rolled here. {self.hint}"
        )


def _rule_text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


_ALLOWED: dict[str, tuple[str, ...]] = {"bool": ("on", "off"), "int": ()}  # choices list their own


def _condition_key(text: str) -> str:
    return " ".join((text or "").split()).lower()


class NyraSystem(NyraActions, BookHouseRules[HouseRules]):
    """``rules.encounter.System`` for Nyra (RULES.md §1); the actions are ``NyraActions`` (adapter_actions.py)."""

    name = "nyra"
    title = "Nyra"
    short_title = "Nyra"
    traits = Traits(
        round_word="phase",
        gm_options=("bonus", "cost"),
        turn_flow=(
            "Each phase, combatants act in order of Sequence. On your turn you spend delay: a strike "
            "(`/attack`, wild or aimed with `aim`) and moves cost delay, and the target reacts with Dodge or "
            "Defense (`/defend` sets the stance). A successful Defense ends the attacker's volley; the turn ends "
            "when the delay is spent, or with `/turn end`."
        ),
    )
    house_book = HOUSE_BOOK

    # -- sheets --------------------------------------------------------------------------------------
    def new_sheet(self, name: str) -> NyraSheet:
        return sheets.new_sheet(name)

    def sheet_from_dict(self, raw: Mapping[str, Any]) -> NyraSheet:
        return validate_sheet(dict(raw) if isinstance(raw, Mapping) else raw)

    def sheet_to_dict(self, sheet: NyraSheet) -> dict[str, Any]:
        return sheet.to_dict()

    def sheet_name(self, sheet: NyraSheet) -> str:
        return sheet.name

    def rename_sheet(self, sheet: NyraSheet, name: str) -> NyraSheet:
        return sheets.set_field(sheet, "name", name)

    def sheet_fields(self) -> tuple[str, ...]:
        return sheets.fields()

    def set_sheet_field(self, sheet: NyraSheet, field: str, text: str) -> NyraSheet:
        return sheets.set_field(sheet, field, text)

    def weapon_names(self) -> tuple[str, ...]:
        return tables.weapon_names()

    def armour_names(self) -> tuple[str, ...]:
        return tables.armour_names()

    def sheet_weapons(self, sheet: NyraSheet) -> tuple[str, ...]:
        return tuple(w.name for w in sheet.weapons)

    def set_weapon(self, sheet: NyraSheet, name: str, *, remove: bool = False) -> NyraSheet:
        return sheets.remove_weapon(sheet, name) if remove else sheets.add_weapon(sheet, name)

    def set_armour(
        self, sheet: NyraSheet, name: str, *, location: str | None = None, remove: bool = False
    ) -> NyraSheet:
        """Wear a piece (on one ``location`` only when given). ``remove`` takes off every piece of that name,
        or with ``location`` only the pieces of that name covering it (each as a whole)."""
        if not remove:
            return sheets.wear_armour(sheet, name, location)
        if not location:
            return sheets.remove_armour(sheet, name)
        where = sheet.table().find(location)
        key = (name or "").strip().lower()
        kept = tuple(a for a in sheet.armour if not (a.name.lower() == key and where in a.locations))
        if len(kept) == len(sheet.armour):
            raise NotFound(f"{sheet.name} wears no `{name}` on the {where}.")
        return dataclasses.replace(sheet, armour=kept)

    def sheet_view(self, sheet: NyraSheet) -> SheetView:
        stats = tuple((k, f"{v} (mod {stat_modifier(v):+d})") for k, v in sheet.stats.items())
        stats += (
            (
                "Sequence",
                str(sheet.sequence) if sheet.sequence is not None else "rolled when the fight begins",
            ),
        )
        if sheet.energy is not None:
            stats += (("Energy", str(sheet.energy)),)
        skills = tuple((k, str(v)) for k, v in sheet.skills.items())
        weapons = tuple((w.name, self._weapon_line(w)) for w in sheet.weapons)
        armour = tuple(
            (
                a.name,
                f"{', '.join(a.locations)} · " + " ".join(f"{t.value} {a.value(t)}" for t in DamageType),
            )
            for a in sheet.armour
        )
        if sheet.shield:
            armour += (("Shield", sheet.shield),)
        table = sheet.table()
        health = (
            ("Table", f"{table.name} (d{table.die})"),
            *(
                (loc, f"slight {h.slight} · serious {h.serious} · critical {h.critical}")
                for loc in table.locations
                for h in (sheet.health(loc),)
            ),
        )
        sections: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
            ("Stats", stats),
            ("Skills", skills),
            ("Weapons", weapons),
            ("Armour", armour),
            ("Health", health),
        )
        if sheet.notes:
            sections += (("Notes", (("", sheet.notes),)),)
        return SheetView(title=sheet.name, sections=sections)

    @staticmethod
    def _weapon_line(weapon) -> str:
        damage = " / ".join(f"{t.value} {weapon.damage_for(t) or 'N/A'}" for t in DamageType)
        parts = [f"{weapon.skill} · {weapon.modifier} · delay {weapon.delay}", damage]
        if weapon.traits:
            parts.append(", ".join(weapon.traits))
        if weapon.energy_cost:
            parts.append(f"energy {weapon.energy_cost}")
        if weapon.durability is not None:
            parts.append(f"durability {weapon.durability}")
        return " · ".join(parts)

    def creature_names(self) -> tuple[str, ...]:
        return creatures.creature_names()

    def creature_sheet(self, template: str, name: str) -> NyraSheet:
        return sheets.set_field(creature(template), "name", name)

    # -- checks --------------------------------------------------------------------------------------
    def check_stats(self, sheet: NyraSheet) -> tuple[str, ...]:
        return (*sheet.skills, *sheet.stats)

    def check(
        self,
        sheet: NyraSheet,
        stat: str,
        difficulty: str | None,
        bonus: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        state: NyraCombat | None = None,  # Nyra checks read nothing from the fight (wounds are locations)
        cid: str | None = None,
    ) -> Outcome[NyraSheet]:
        return sheets.check(sheet, stat, difficulty or "normal", bonus, dice)

    # -- encounter state -----------------------------------------------------------------------------
    def new_state(self) -> NyraCombat:
        return NyraCombat()

    def state_to_dict(self, state: NyraCombat) -> dict[str, Any]:
        return state.to_dict()

    def state_from_dict(self, raw: Mapping[str, Any]) -> NyraCombat:
        return NyraCombat.from_dict(dict(raw) if isinstance(raw, Mapping) else raw)

    def add_combatant(
        self,
        state: NyraCombat,
        cid: str,
        sheet: NyraSheet,
        *,
        side: str,
        distance: int,
        is_pc: bool,
        house: HouseRules,
        dice: DiceSource | None = None,
    ) -> Outcome[NyraCombat]:
        """``distance`` is ignored (Nyra has none). In a running fight a newcomer may need a d10: pass
        ``dice``, or it is refused when one is needed."""
        combatant = dataclasses.replace(NyraCombatant.from_sheet(cid, sheet, side=side), is_pc=is_pc)
        source = (
            dice
            if dice is not None
            else _NoDice(
                f"{combatant.name} joining a running fight",
                "Give the sheet a Sequence that no one with the same AGI has, or add it before `/encounter begin`.",
            )
        )
        return sequence.add_combatant(state, combatant, source, house)

    def remove_combatant(self, state: NyraCombat, cid: str, house: HouseRules) -> Outcome[NyraCombat]:
        """Take a combatant out (the core has no such operation). Removing the one whose turn is running
        ends that turn first and starts the next living combatant's, as ``/turn end`` would. The last
        combatant of a running fight cannot be removed: end the encounter instead."""
        target = state.get(cid)
        events: list[Event] = []
        if state.begun and len(state.order) == 1:
            raise NotAllowed(f"{target.name} is the last combatant; end the encounter with `/encounter end`.")
        others_alive = any(not c.dead for c in state.combatants if c.id != target.id)
        if state.begun and state.current_id == target.id and state.turn_started and others_alive:
            # Starting the next turn draws no dice (delay reset, bleeding).
            out = turns.finish_turn(state, "removed", _NoDice(f"Removing {target.name}", ""), house)
            state, events = out.state, list(out.events)
        events.append(Note(f"{target.name} left the encounter."))
        combatants = tuple(c for c in state.combatants if c.id != target.id)
        if not state.begun:
            return Outcome(dataclasses.replace(state, combatants=combatants), tuple(events))
        index = state.order.index(target.id)
        order = tuple(x for x in state.order if x != target.id)
        phase, started = state.phase, state.turn_started
        if state.current_id == target.id:
            # Nobody else is alive, or its turn never started: the next in order waits for `/gm next`.
            turn_index, started = index, False
            if turn_index >= len(order):
                turn_index, phase = 0, phase + 1
        else:
            turn_index = state.turn_index - (1 if index < state.turn_index else 0)
        state = dataclasses.replace(
            state,
            combatants=combatants,
            order=order,
            phase=phase,
            turn_index=turn_index,
            turn_started=started,
            volley_ended=state.volley_ended and started,
        )
        return Outcome(state, tuple(events))

    def begin(
        self,
        state: NyraCombat,
        dice: DiceSource,
        house: HouseRules,
        *,
        attackers: str | None,
        surprise: int,
    ) -> Outcome[NyraCombat]:
        """Sequence order (rolling missing Sequences and roll-offs), phase 1, and the first turn started
        (delay reset, bleeding). ``attackers`` and ``surprise`` have no Nyra meaning: ignored, with a note."""
        out = sequence.begin(state, dice, house)
        if attackers or surprise:
            note = Note("Nyra orders the fight by Sequence alone; `attackers` and `surprise` change nothing.")
            return Outcome(out.state, (note, *out.events))
        return out

    def turn(self, state: NyraCombat) -> TurnStatus:
        if not state.begun:
            return TurnStatus(key="setup", actors=(), label="Setup")
        label = f"Phase {state.phase}"
        key = f"{state.phase}.{state.turn_number}"
        if not state.turn_started or state.current is None:
            return TurnStatus(key=f"{key}.waiting", actors=(), label=label)
        return TurnStatus(key=key, actors=(state.current.id,), label=label)

    def end_turn(
        self, state: NyraCombat, cid: str, dice: DiceSource, house: HouseRules
    ) -> Outcome[NyraCombat]:
        return turns.end_turn(state, cid, dice, house)

    def gm_next(self, state: NyraCombat, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
        current = state.current
        if not state.begun or current is None:
            raise NotAllowed("The fight has not begun yet; start it with `/encounter begin`.")
        if state.turn_started:
            return turns.end_turn(state, current.id, dice, house, reason="gm")
        if all(c.dead for c in state.combatants):
            raise NotAllowed("Every combatant is dead; heal one (`/gm heal`) to go on.")
        if current.dead:
            return turns.finish_turn(state, "dead", dice, house)
        return turns.start_turn(state, dice, house)

    # -- GM tools ------------------------------------------------------------------------------------
    def damage_locations(self, state: NyraCombat, cid: str) -> tuple[str, ...]:
        return state.get(cid).sheet.table().locations

    def gm_damage(
        self,
        state: NyraCombat,
        cid: str,
        amount: int,
        location: str | None,
        dice: DiceSource,
        house: HouseRules,
    ) -> Outcome[NyraCombat]:
        """Damage straight to ``location``, or to a location rolled on the target's die when none is given."""
        return other_actions.gm_damage(state, other_actions.GmDamageArgs(cid, amount, location), dice, house)

    def gm_heal(
        self,
        state: NyraCombat,
        cid: str,
        amount: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        location: str | None = None,
    ) -> Outcome[NyraCombat]:
        """Heal ``location``, or the worst wound: worst state, then most damage, then table order."""
        target = state.get(cid)
        if location and location.strip():
            where = target.sheet.table().find(location)
            if target.damage_at(where) <= 0:
                raise NotAllowed(f"{target.name}'s {where} has no damage to heal.")
            return other_actions.gm_heal(
                state, other_actions.GmHealArgs(target.id, amount, where), dice, house
            )
        hurt = [loc for loc in target.sheet.table().locations if target.damage_at(loc) > 0]
        if not hurt:
            raise NotAllowed(f"{target.name} has no damage to heal.")
        worst = max(
            hurt,
            key=lambda loc: (_SEVERITY.index(target.wound(loc)), target.damage_at(loc), -hurt.index(loc)),
        )
        return other_actions.gm_heal(state, other_actions.GmHealArgs(target.id, amount, worst), dice, house)

    def gm_fields(self) -> tuple[str, ...]:
        return other_actions.GM_FIELDS

    def refresh_sheet(
        self, state: NyraCombat, cid: str, sheet: NyraSheet, house: HouseRules
    ) -> Outcome[NyraCombat]:
        """The combatant fights with ``sheet`` (its character's, edited since it joined) from now on."""
        return refresh.refresh_sheet(state, cid, sheet)

    def wounds(self, state: NyraCombat, cid: str) -> tuple[str, ...]:
        return ()  # Nyra wounds are location states (the tracker shows them)

    def set_wound_effect(
        self, state: NyraCombat, cid: str, wound: int, effect: str, house: HouseRules
    ) -> Outcome[NyraCombat]:
        raise NotAllowed(
            "Nyra wounds are location states; what a damaged limb does is the GM's call (`/gm condition`)."
        )

    def spend_luck(
        self, state: NyraCombat, cid: str, house: HouseRules, *, pledge: bool = True
    ) -> Outcome[NyraCombat]:
        raise NotAllowed("Nyra has no Luck to add: the order is fixed by Sequence.")

    def gm_set(
        self,
        state: NyraCombat,
        cid: str,
        field: str,
        text: str,
        house: HouseRules,
        dice: DiceSource | None = None,
    ) -> Outcome[NyraCombat]:
        """``other_actions.gm_set``. A new Sequence that ties another combatant needs a roll-off die: pass ``dice``,
        or it is refused."""
        source = (
            dice
            if dice is not None
            else _NoDice(
                "A Sequence that ties another combatant of the same AGI", "Choose a Sequence nobody else has."
            )
        )
        return other_actions.gm_set(state, other_actions.GmSetArgs(cid, field, text), source, house)

    def conditions(self) -> tuple[str, ...]:
        return CONDITIONS

    def gm_condition(
        self, state: NyraCombat, cid: str, condition: str, remove: bool, house: HouseRules
    ) -> Outcome[NyraCombat]:
        """Add or remove a free-text condition (a reminder for the table; no Nyra rule reads it)."""
        target = state.get(cid)
        key = _condition_key(condition)
        if not key or len(key) > MAX_CONDITION_LENGTH:
            raise InvalidInput(f"A condition needs 1..{MAX_CONDITION_LENGTH} characters.")
        if key.split()[0] in _DERIVED:
            raise InvalidInput(
                f"`{key}` follows from the fight itself (wounds, stance) and shows by itself; "
                "use `/gm damage`, `/gm heal` or `/gm set` instead."
            )
        before = target.conditions
        if remove:
            if key not in before:
                raise NotAllowed(f"{target.name} is not {key}.")
            after = tuple(c for c in before if c != key)
        else:
            if key in before:
                raise NotAllowed(f"{target.name} is already {key}.")
            if len(before) >= MAX_CONDITIONS:
                raise NotAllowed(f"{target.name} already has {MAX_CONDITIONS} conditions; remove one first.")
            after = (*before, key)
        state = state.with_combatant(dataclasses.replace(target, conditions=after))
        event = FieldSet(target.id, "conditions", ", ".join(before) or "none", ", ".join(after) or "none")
        return Outcome(state, (event,))

    def new_instance(self, state: NyraCombat, house: HouseRules) -> Outcome[NyraCombat]:
        raise NotAllowed("Only the D6 campaign has heal-pool instances.")

    # -- reading -------------------------------------------------------------------------------------
    def tracker(self, state: NyraCombat) -> TrackerView:
        if state.begun:
            rows = tuple(state.get(cid) for cid in state.order)
        else:
            rows = state.combatants
        current = state.current if state.turn_started else None
        notes: list[str] = []
        if current is not None:
            notes.append(f"{current.name}: delay {current.delay_pool} of {turn_pool(current)}")
        if state.volley_ended:
            notes.append("volley ended by a Defense")
        notes.extend(
            f"{c.name}: energy {c.energy} of {c.sheet.energy}"
            for c in rows
            if c.energy is not None and c.sheet.energy is not None
        )
        return TrackerView(
            system=self.name,
            begun=state.begun,
            round=state.phase if state.begun else None,
            order=tuple(self._row(c) for c in rows),
            current=(current.id,) if current is not None else (),
            notes=tuple(notes),
        )

    @staticmethod
    def _row(c: NyraCombatant) -> CombatantView:
        table = c.sheet.table()
        wounds = c.wounds()
        locations = tuple(
            LocationView(
                location=loc,
                damage=c.damage_at(loc),
                state=wounds[loc].value,
                thresholds=(h.slight, h.serious, h.critical),
            )
            for loc in table.locations
            for h in (c.sheet.health(loc),)
        )
        worst = max(wounds.values(), key=_SEVERITY.index, default=WoundState.UNHURT)
        conditions: tuple[str, ...] = c.conditions
        if c.bleeding and not c.dead:
            conditions += (f"bleeding {c.bleeding}",)
        if c.stance:
            conditions += (f"stance {c.stance}",)
        return CombatantView(
            id=c.id,
            name=c.name,
            side=c.side,
            is_pc=c.is_pc,
            initiative=c.sequence,
            health="dead" if c.dead else worst.value,
            locations=locations,
            conditions=conditions,
            active=not c.dead,
        )


SYSTEM: System[NyraCombat, NyraSheet, HouseRules] = NyraSystem()

__all__ = ["CONDITIONS", "SYSTEM", "NyraSystem"]
