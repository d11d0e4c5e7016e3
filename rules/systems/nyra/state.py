"""Nyra combat state (RULES.md §1 "Order", "Delay", "Location health"): frozen, with an exact dict form.

``NyraCombatant`` carries the sheet it fights with (a snapshot, so a saved encounter stands alone) and what
combat changes: accumulated damage per location, the delay pool left this turn, the reaction stance, the
Sequence and the kept roll-off, weapon durability and energy. Wound states, bleeding and death follow from
the damage (``wounds``, ``bleeding``, ``dead``), so they can never disagree with it.

``NyraCombat`` holds the combatants in the order they entered, the order of play, the phase (0 before the
fight begins), whose turn it is, whether that turn has started (delay reset, bleeding applied) and whether a
Defense ended the current attacker's volley.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.errors import FieldProblem, NotAllowed, NotFound, ValidationError
from rules.stored_once import made_once
from rules.systems.nyra.bleeding import bleed_rate
from rules.systems.nyra.locations import WoundState, wound_state
from rules.systems.nyra.sheet import NyraSheet, validate_sheet
from rules.systems.nyra.validation import Problems

STANCES = ("dodge", "defense")
MAX_CONDITIONS = 20
MAX_CONDITION_LENGTH = 40


@dataclass(frozen=True, slots=True)
class NyraCombatant:
    id: str
    name: str
    sheet: NyraSheet
    side: str = "party"
    sequence: int | None = None
    rolloff: tuple[int, ...] = ()
    location_damage: Mapping[str, int] = field(default_factory=dict)
    delay_pool: int = 0
    stance: str | None = None
    durability: Mapping[str, int] = field(default_factory=dict)
    energy: int | None = None
    is_pc: bool = True
    conditions: tuple[str, ...] = ()
    # every location's wound state, made on first use: the tracker, bleeding and "is it dead" all ask
    # (the combatant is frozen; a change makes a new one)
    _wounds: dict[str, WoundState] | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_sheet(
        cls, id: str, sheet: NyraSheet, *, name: str | None = None, side: str = "party"
    ) -> NyraCombatant:
        """A fresh combatant: full energy, weapons at full durability, Sequence from the sheet (if any)."""
        return cls(
            id=id,
            name=name or sheet.name,
            sheet=sheet,
            side=side,
            sequence=sheet.sequence,
            durability={w.name: w.durability for w in sheet.weapons if w.durability is not None},
            energy=sheet.energy,
        )

    @property
    def agi(self) -> int:
        return self.sheet.stat("AGI")

    def damage_at(self, location: str) -> int:
        return self.location_damage.get(location, 0)

    def wound(self, location: str) -> WoundState:
        table = self.sheet.table()
        canonical = table.find(location)
        return wound_state(
            self.damage_at(canonical),
            self.sheet.health(canonical),
            table.kind_of(canonical),
            self.sheet.stat("CON"),
        )

    def wounds(self) -> dict[str, WoundState]:
        found = made_once(
            self, "_wounds", lambda: {loc: self.wound(loc) for loc in self.sheet.table().locations}
        )
        return dict(found)

    @property
    def bleeding(self) -> int:
        """Total bled at the start of each of this combatant's turns."""
        return sum(bleed_rate(state) for state in self.wounds().values())

    @property
    def dead(self) -> bool:
        return any(state is WoundState.FATAL for state in self.wounds().values())

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "sheet": self.sheet.stored(),
            "side": self.side,
            "sequence": self.sequence,
            "rolloff": list(self.rolloff),
            "location_damage": dict(self.location_damage),
            "delay_pool": self.delay_pool,
            "stance": self.stance,
            "durability": dict(self.durability),
            "energy": self.energy,
            "is_pc": self.is_pc,
            "conditions": list(self.conditions),
        }

    @classmethod
    def from_dict(cls, raw: dict) -> NyraCombatant:
        problems = Problems()
        if not isinstance(raw, dict):
            raise ValidationError([FieldProblem("", "a combatant needs a table of fields")], "The combatant")
        sheet = None
        try:
            sheet = validate_sheet(raw.get("sheet"))
        except ValidationError as err:
            for p in err.problems:
                problems.add(f"sheet.{p.path}" if p.path else "sheet", p.problem)
        cid = problems.text(raw.get("id"), "id")
        name = problems.text(raw.get("name"), "name")
        sequence = raw.get("sequence")
        if sequence is not None:
            sequence = problems.integer(sequence, "sequence", minimum=1, maximum=10)
        rolloff = tuple(
            problems.integer(v, "rolloff", minimum=1, maximum=10) or 0
            for v in (problems.sequence(raw.get("rolloff", []), "rolloff") or [])
        )
        damage = {
            str(k): problems.integer(v, f"location_damage.{k}", minimum=0) or 0
            for k, v in (problems.mapping(raw.get("location_damage") or {}, "location_damage") or {}).items()
        }
        if sheet is not None:
            table = sheet.table()
            for loc in damage:
                if loc not in table.locations:
                    problems.add(f"location_damage.{loc}", f"is not a location of the {table.name} table")
        stance = raw.get("stance")
        if stance is not None and stance not in STANCES:
            problems.add("stance", f"must be one of {', '.join(STANCES)} or empty")
        delay = problems.integer(raw.get("delay_pool", 0), "delay_pool", minimum=0)
        durability = {
            str(k): problems.integer(v, f"durability.{k}", minimum=0) or 0
            for k, v in (problems.mapping(raw.get("durability") or {}, "durability") or {}).items()
        }
        energy = raw.get("energy")
        if energy is not None:
            energy = problems.integer(energy, "energy", minimum=0)
        is_pc = raw.get("is_pc", True)
        if not isinstance(is_pc, bool):
            problems.add("is_pc", f"needs true or false, not {is_pc!r}")
        conditions: list[str] = []
        for i, item in enumerate(problems.sequence(raw.get("conditions", []), "conditions") or []):
            text = problems.text(item, f"conditions[{i}]", max_length=MAX_CONDITION_LENGTH)
            if text is not None and text in conditions:
                problems.add(f"conditions[{i}]", f"repeats `{text}`")
            elif text is not None:
                conditions.append(text)
        if len(conditions) > MAX_CONDITIONS:
            problems.add("conditions", f"holds more than {MAX_CONDITIONS} conditions")
        if problems:
            raise ValidationError(problems.items, "The combatant")
        return cls(
            cid,  # type: ignore[arg-type]
            name,  # type: ignore[arg-type]
            sheet,  # type: ignore[arg-type]
            str(raw.get("side", "party")),
            sequence,
            rolloff,
            damage,
            delay,  # type: ignore[arg-type]
            stance,
            durability,
            energy,
            is_pc,
            tuple(conditions),
        )


@dataclass(frozen=True, slots=True)
class NyraCombat:
    combatants: tuple[NyraCombatant, ...] = ()
    order: tuple[str, ...] = ()
    phase: int = 0
    turn_index: int = 0
    turn_number: int = 0
    turn_started: bool = False
    volley_ended: bool = False

    @property
    def begun(self) -> bool:
        return self.phase > 0

    @property
    def current_id(self) -> str | None:
        if not self.begun or not self.order:
            return None
        return self.order[self.turn_index]

    @property
    def current(self) -> NyraCombatant | None:
        cid = self.current_id
        return self.get(cid) if cid is not None else None

    def get(self, ref: str) -> NyraCombatant:
        """A combatant by id, or by name (case-insensitive)."""
        for c in self.combatants:
            if c.id == ref:
                return c
        key = (ref or "").strip().lower()
        matches = [c for c in self.combatants if c.name.lower() == key]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise NotFound(f"More than one combatant is called `{ref}`; use its id.")
        names = ", ".join(c.name for c in self.combatants) or "nobody yet"
        raise NotFound(f"No combatant `{ref}` in this encounter. In it: {names}.")

    def with_combatant(self, combatant: NyraCombatant) -> NyraCombat:
        """A copy with one combatant replaced (matched by id)."""
        if not any(c.id == combatant.id for c in self.combatants):
            raise NotFound(f"No combatant with id `{combatant.id}`.")
        return dataclasses.replace(
            self, combatants=tuple(combatant if c.id == combatant.id else c for c in self.combatants)
        )

    def require_turn(self, ref: str) -> NyraCombatant:
        """The actor, who must hold the current, started turn."""
        actor = self.get(ref)
        if not self.begun:
            raise NotAllowed("The fight has not begun yet; the GM starts it with `/encounter begin`.")
        if actor.id != self.current_id:
            current = self.current
            raise NotAllowed(
                f"It is not {actor.name}'s turn; it is {current.name if current else 'nobody'}'s."
            )
        if actor.dead:
            raise NotAllowed(f"{actor.name} is dead.")
        return actor

    def to_dict(self) -> dict:
        return {
            "system": "nyra",
            "combatants": [c.to_dict() for c in self.combatants],
            "order": list(self.order),
            "phase": self.phase,
            "turn_index": self.turn_index,
            "turn_number": self.turn_number,
            "turn_started": self.turn_started,
            "volley_ended": self.volley_ended,
        }

    @classmethod
    def from_dict(cls, raw: dict) -> NyraCombat:
        problems = Problems()
        if not isinstance(raw, dict) or not isinstance(raw.get("combatants", []), list):
            raise ValidationError([FieldProblem("", "not a saved Nyra encounter")], "The Nyra encounter")
        combatants: list[NyraCombatant] = []
        for i, item in enumerate(raw.get("combatants", [])):
            try:
                combatants.append(NyraCombatant.from_dict(item))
            except ValidationError as err:
                for p in err.problems:
                    problems.add(f"combatants[{i}].{p.path}", p.problem)
        ids = [c.id for c in combatants]
        if len(set(ids)) != len(ids):
            problems.add("combatants", "two combatants share an id")
        order = tuple(str(x) for x in raw.get("order", []))
        for cid in order:
            if cid not in ids:
                problems.add("order", f"names `{cid}`, who is not a combatant")
        phase = problems.integer(raw.get("phase", 0), "phase", minimum=0)
        index = problems.integer(raw.get("turn_index", 0), "turn_index", minimum=0)
        if index is not None and order and index >= len(order):
            problems.add("turn_index", f"is past the end of the order ({len(order)})")
        number = problems.integer(raw.get("turn_number", 0), "turn_number", minimum=0)
        if problems:
            raise ValidationError(problems.items, "The Nyra encounter")
        return cls(
            tuple(combatants),
            order,
            phase,  # type: ignore[arg-type]
            index,  # type: ignore[arg-type]
            number,  # type: ignore[arg-type]
            bool(raw.get("turn_started", False)),
            bool(raw.get("volley_ended", False)),
        )
