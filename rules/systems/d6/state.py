"""The D6 combat state (RULES.md §3; what `/encounter status` shows and the store saves).

Frozen dataclasses only; operations return a new state (``dataclasses.replace``) and never mutate.
Everything a later rule reads is here: HP, staggered stacks, prone, hidden, active defenses, grapples with
their counter, pin and attacked-while-grappling penalties, Last Gasp round count, stored healing and
stabilised, the heal pool's inputs and uses, and the current declared plan. ``to_dict``/``from_dict``
round-trip exactly.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rules.errors import InvalidInput, NotFound
from rules.stored_once import StoredOnce
from rules.systems.d6.sheet import Sheet

Stance = Literal["block", "parry", "dodge"]
Status = Literal["active", "out", "dead"]
STANCES: tuple[str, ...] = ("block", "parry", "dodge")


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """The fields a record is made from and stored with (not a cache slot: ``init=False``)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def _flat_dict(record: Any) -> dict[str, Any]:
    """A dataclass of plain values (text, numbers, flags) as a dict: ``dataclasses.asdict`` without its
    recursion and deep copies (a declared turn's plan is saved with every change, and ``asdict`` made a
    seventh of a declared attack's CPU)."""
    return {name: getattr(record, name) for name in _field_names(type(record))}


@dataclass(frozen=True, slots=True)
class Defense:
    """An active defense until the defender's next turn (RULES.md §3 "Save score").

    ``value``: the parry/dodge roll (None for block); ``limit``: how many attackers (parry) or attacks
    (dodge) it covers; ``met``: the attacker ids a parry has covered, or one entry per dodged attack.
    """

    stance: Stance
    total: bool = False
    value: int | None = None
    limit: int = 0
    met: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "stance": self.stance,
            "total": self.total,
            "value": self.value,
            "limit": self.limit,
            "met": list(self.met),
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Defense:
        if raw["stance"] not in STANCES:
            raise InvalidInput(f"unknown stance {raw['stance']!r}")
        return cls(raw["stance"], bool(raw["total"]), raw["value"], int(raw["limit"]), tuple(raw["met"]))


@dataclass(frozen=True, slots=True)
class LastGasp:
    """A downed PC: ``rounds`` Last Gasp turns so far (RULES.md §4: the malus counts turns, not saves),
    ``stored_healing``, ``stabilised``; ``save_owed`` while the running Last Gasp turn still owes its Death
    Save (a turn cannot end without it unless the GM skips it)."""

    rounds: int = 0
    stored_healing: int = 0
    stabilised: bool = False
    save_owed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "stored_healing": self.stored_healing,
            "stabilised": self.stabilised,
            "save_owed": self.save_owed,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> LastGasp:
        return cls(
            int(raw["rounds"]),
            int(raw["stored_healing"]),
            bool(raw["stabilised"]),
            bool(raw.get("save_owed", False)),  # states saved before saves were owed
        )


@dataclass(frozen=True, slots=True)
class Combatant(StoredOnce):
    """A combatant of the fight. Its stored form is made once (``StoredOnce``): a change replaces the
    combatants it changes, so the state saved after it shares the others' with the state before (and the
    undo record finds them equal at a glance)."""

    id: str
    sheet: Sheet
    hp: int
    side: str = "party"
    distance: int = 0
    is_pc: bool = True
    initiative: int | None = None
    next_initiative: int | None = None  # a reroll: replaces ``initiative`` from the next round
    staggered: int = 0  # stacks from the GM or other lasting sources (grapple stacks are derived)
    stagger_turns: int = 0  # take-down: one stack while > 0, counted down at the end of its own turns
    overwhelmed: bool = False  # parry overwhelmed or backstabbed: save 8 until its next turn
    prone: bool = False
    hidden_from: tuple[str, ...] = ()
    engaged_with: tuple[str, ...] = ()
    defense: Defense | None = None
    last_gasp: LastGasp | None = None
    status: Status = "active"
    _stored: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    # its tracker row with the conditions it was made for (``D6System._row``): a change replaces only the
    # combatants it changes, so the others' rows are not made again
    _row: tuple[tuple[str, ...], Any] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.sheet.name

    @property
    def in_last_gasp(self) -> bool:
        return self.last_gasp is not None

    @property
    def can_act(self) -> bool:
        return self.status == "active" and self.last_gasp is None

    @property
    def up(self) -> bool:
        """Still in the fight (not out, not dead, not in Last Gasp)."""
        return self.can_act

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sheet": self.sheet.stored(),
            "hp": self.hp,
            "side": self.side,
            "distance": self.distance,
            "is_pc": self.is_pc,
            "initiative": self.initiative,
            "next_initiative": self.next_initiative,
            "staggered": self.staggered,
            "stagger_turns": self.stagger_turns,
            "overwhelmed": self.overwhelmed,
            "prone": self.prone,
            "hidden_from": list(self.hidden_from),
            "engaged_with": list(self.engaged_with),
            "defense": self.defense.to_dict() if self.defense else None,
            "last_gasp": self.last_gasp.to_dict() if self.last_gasp else None,
            "status": self.status,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Combatant:
        return cls(
            id=str(raw["id"]),
            sheet=Sheet.from_dict(raw["sheet"]),
            hp=int(raw["hp"]),
            side=str(raw["side"]),
            distance=int(raw["distance"]),
            is_pc=bool(raw["is_pc"]),
            initiative=raw["initiative"],
            next_initiative=raw["next_initiative"],
            staggered=int(raw["staggered"]),
            stagger_turns=int(raw["stagger_turns"]),
            overwhelmed=bool(raw["overwhelmed"]),
            prone=bool(raw["prone"]),
            hidden_from=tuple(raw["hidden_from"]),
            engaged_with=tuple(raw["engaged_with"]),
            defense=Defense.from_dict(raw["defense"]) if raw["defense"] else None,
            last_gasp=LastGasp.from_dict(raw["last_gasp"]) if raw["last_gasp"] else None,
            status=raw["status"],
        )


@dataclass(frozen=True, slots=True)
class Grapple:
    """One grappling pair. ``counter`` > 0 is toward ``a``, < 0 toward ``b`` (−3…+3).

    ``pinned``: the side the counter is against is pinned (only at ±3); ``pin_damage``: damage the pinned
    has dealt to the pinner so far; ``a_penalty``/``b_penalty``: the −2/−5/−10 owed on that side's next
    grapple roll for attacking normally while ahead.
    """

    a: str
    b: str
    counter: int = 0
    pinned: bool = False
    pin_damage: int = 0
    a_penalty: int = 0
    b_penalty: int = 0

    def has(self, who: str) -> bool:
        return who in (self.a, self.b)

    def other(self, who: str) -> str:
        return self.b if who == self.a else self.a

    def toward(self, who: str) -> int:
        """The counter as seen by ``who``: positive when in its favour."""
        return self.counter if who == self.a else -self.counter

    def leader(self) -> str | None:
        return self.a if self.counter > 0 else self.b if self.counter < 0 else None

    def pinned_id(self) -> str | None:
        if not self.pinned:
            return None
        return self.b if self.counter > 0 else self.a

    def penalty_of(self, who: str) -> int:
        return self.a_penalty if who == self.a else self.b_penalty

    def with_penalty(self, who: str, value: int) -> Grapple:
        if who == self.a:
            return dataclasses.replace(self, a_penalty=value)
        return dataclasses.replace(self, b_penalty=value)

    def shifted(self, who: str, points: int) -> Grapple:
        """Move the counter ``points`` toward ``who`` (negative: away), clamped to −3…+3."""
        delta = points if who == self.a else -points
        return dataclasses.replace(self, counter=max(-3, min(3, self.counter + delta)))

    def to_dict(self) -> dict[str, Any]:
        return _flat_dict(self)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Grapple:
        return cls(**{name: raw[name] for name in _field_names(cls)})


@dataclass(frozen=True, slots=True)
class HealPool:
    """The party's heals this instance: ``items`` extra heals from artifacts, ``uses`` spent.

    ``capacity`` is the last computed size (1 + levels/3 + items); it is recomputed whenever someone goes
    down or gets up, and kept here so a change can be reported.
    """

    capacity: int = 1
    uses: int = 0
    items: int = 0

    @property
    def remaining(self) -> int:
        return max(0, self.capacity - self.uses)

    def to_dict(self) -> dict[str, Any]:
        return _flat_dict(self)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> HealPool:
        return cls(int(raw["capacity"]), int(raw["uses"]), int(raw["items"]))


ACTION_KINDS: tuple[str, ...] = (
    "attack",
    "defend",
    "grapple",
    "heal",
    "move",
    "disengage",
    "stealth",
    "check",
    "free",
    "reroll_initiative",
    "death_save",
)


@dataclass(frozen=True, slots=True)
class PlannedAction(StoredOnce):
    """One declared action of a turn (RULES.md §3 "Turn"). Unused fields keep their defaults.

    attack: target, weapon, called, backstab (flank: set by the attacker), bonus, gm_stage; defend: stance,
    total; grapple: move (start/contest/throw/pin/takedown/release), target, storeys, into, modifier; heal:
    target, bonus; move: distance, leave_melee, light; disengage: target; stealth: light, bonus, and
    ``of_move`` when it is the new check a move while hidden needs (part of that move, not an action of
    its own); check: stat, bonus, difficulty (a number to beat, None for none), note (what it is for);
    free: note (what the free action is); death_save: stat (charisma/perception).
    """

    kind: str
    free: bool = False
    target: str = ""
    weapon: str = ""
    stance: str = ""
    total: bool = False
    called: bool = False
    backstab: bool = False
    bonus: int = 0
    gm_stage: int = 0
    move: str = ""
    storeys: int = 0
    into: str = ""
    modifier: int = 0
    distance: int = 0
    leave_melee: bool = False
    light: str = "normal"
    stat: str = ""
    note: str = ""
    difficulty: int | None = None
    of_move: bool = False
    # saved with every change of its turn, and a turn's plan only grows: its stored form made once
    _stored: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)  # StoredOnce

    def to_dict(self) -> dict[str, Any]:
        return _flat_dict(self)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> PlannedAction:
        return cls(**{name: raw[name] for name in _field_names(cls) if name in raw})


@dataclass(frozen=True, slots=True)
class Plan:
    """The acting combatant's declared actions; ``locked`` once resolved (no tacking on afterwards)."""

    actor: str
    actions: tuple[PlannedAction, ...] = ()
    locked: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"actor": self.actor, "actions": [a.stored() for a in self.actions], "locked": self.locked}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Plan:
        return cls(
            raw["actor"], tuple(PlannedAction.from_dict(a) for a in raw["actions"]), bool(raw["locked"])
        )


@dataclass(frozen=True, slots=True)
class D6State:
    """A D6 encounter. ``combatants`` are in the order they entered (the initiative draw order).

    ``attackers``: the side that started the fight ("" when the GM did not say); ``order``: ids in turn
    order; ``turn``: index into ``order``; ``round``: 0 before initiative.
    """

    combatants: tuple[Combatant, ...] = ()
    attackers: str = ""
    round: int = 0
    order: tuple[str, ...] = ()
    turn: int = 0
    grapples: tuple[Grapple, ...] = ()
    heal_pool: HealPool = HealPool()
    instance: int = 1  # the heal pool's instance number (`/gm instance` starts the next)
    plan: Plan | None = None

    # -- lookups ---------------------------------------------------------------------------------------
    def get(self, cid: str) -> Combatant:
        for c in self.combatants:
            if c.id == cid:
                return c
        raise NotFound(f"No combatant `{cid}` in this encounter.")

    def names(self) -> dict[str, str]:
        """The combatants' names by id (for text that names many of them, e.g. a whole plan)."""
        return {c.id: c.name for c in self.combatants}

    def has(self, cid: str) -> bool:
        for c in self.combatants:  # a loop, not ``any()``: a change's tracker asks hundreds of times
            if c.id == cid:
                return True
        return False

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.order and 0 <= self.turn < len(self.order) else None

    def grapple(self, a: str, b: str) -> Grapple | None:
        for g in self.grapples:
            if g.has(a) and g.has(b):
                return g
        return None

    def grapples_of(self, cid: str) -> tuple[Grapple, ...]:
        return tuple(g for g in self.grapples if g.has(cid))

    def opponents(self, cid: str) -> tuple[Combatant, ...]:
        me = self.get(cid)
        return tuple(c for c in self.combatants if c.side != me.side and c.status != "dead")

    # -- changes ---------------------------------------------------------------------------------------
    def put(self, combatant: Combatant) -> D6State:
        self.get(combatant.id)
        return dataclasses.replace(
            self, combatants=tuple(combatant if c.id == combatant.id else c for c in self.combatants)
        )

    def update(self, cid: str, **changes: Any) -> D6State:
        return self.put(dataclasses.replace(self.get(cid), **changes))

    def put_grapple(self, grapple: Grapple) -> D6State:
        others = tuple(g for g in self.grapples if not (g.has(grapple.a) and g.has(grapple.b)))
        return dataclasses.replace(self, grapples=(*others, grapple))

    def drop_grapple(self, a: str, b: str) -> D6State:
        return dataclasses.replace(
            self, grapples=tuple(g for g in self.grapples if not (g.has(a) and g.has(b)))
        )

    def add(self, combatants: Iterable[Combatant]) -> D6State:
        new = tuple(combatants)
        ids = [c.id for c in self.combatants] + [c.id for c in new]
        if len(set(ids)) != len(ids):
            raise InvalidInput("Two combatants cannot share an id.")
        return dataclasses.replace(self, combatants=self.combatants + new)

    # -- storing ---------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "system": "d6",
            "combatants": [c.stored() for c in self.combatants],
            "attackers": self.attackers,
            "round": self.round,
            "order": list(self.order),
            "turn": self.turn,
            "grapples": [g.to_dict() for g in self.grapples],
            "heal_pool": self.heal_pool.to_dict(),
            "instance": self.instance,
            "plan": self.plan.to_dict() if self.plan else None,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> D6State:
        return cls(
            combatants=tuple(Combatant.from_dict(c) for c in raw["combatants"]),
            attackers=str(raw["attackers"]),
            round=int(raw["round"]),
            order=tuple(raw["order"]),
            turn=int(raw["turn"]),
            grapples=tuple(Grapple.from_dict(g) for g in raw["grapples"]),
            heal_pool=HealPool.from_dict(raw["heal_pool"]),
            instance=int(raw.get("instance", 1)),  # states saved before instances were numbered
            plan=Plan.from_dict(raw["plan"]) if raw["plan"] else None,
        )


def new_combatant(
    cid: str, sheet: Sheet, *, side: str = "party", distance: int = 0, is_pc: bool = True
) -> Combatant:
    """A combatant entering with its sheet's current HP."""
    return Combatant(id=cid, sheet=sheet, hp=sheet.current_hp, side=side, distance=distance, is_pc=is_pc)
