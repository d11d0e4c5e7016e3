"""Instances: what the party carries from one encounter to the next (RULES.md §4 "The D6 campaign").

An instance is the channel's current stretch of play (a dungeon, a day) across any number of encounters. It
holds the party heal pool (uses and heals from items; the size is recomputed from who is up) and, per player
character, HP, Last Gasp state (turn count, stored healing, stabilised) and death. A new encounter in the
same instance starts from it: the pool as it was left, each PC as it left the last fight. `/gm instance`
starts the next instance: the pool is refilled, HP and Last Gasp stay as they are.

Player characters are keyed by the shell's character key (a sheet can enter many encounters; combatant ids
are per encounter). Our readings: a Death Save owed when a fight ends is not carried (the next fight's first
turn owes its own); NPCs are not carried.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.events import Event, Outcome
from rules.systems.d6.events import CarriedIn
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.state import D6State, HealPool, LastGasp


@dataclass(frozen=True, slots=True)
class Carried:
    """One player character between encounters."""

    hp: int
    last_gasp: LastGasp | None = None
    dead: bool = False
    name: str = ""  # as last seen, for showing the instance between fights

    def to_dict(self) -> dict[str, Any]:
        return {
            "hp": self.hp,
            "last_gasp": self.last_gasp.to_dict() if self.last_gasp else None,
            "dead": self.dead,
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Carried:
        lg = raw.get("last_gasp")
        return cls(
            int(raw["hp"]),
            LastGasp.from_dict(lg) if lg else None,
            bool(raw.get("dead", False)),
            str(raw.get("name", "")),
        )

    def describe(self) -> str:
        if self.dead:
            return f"{self.name}: dead"
        lg = self.last_gasp
        hp = f"−{-self.hp}" if self.hp < 0 else str(self.hp)  # a real minus sign, as players write it
        if lg is None:
            return f"{self.name}: {hp} HP"
        turns = f"{lg.rounds} turn{'s' if lg.rounds != 1 else ''} so far"
        down = "stabilised" if lg.stabilised else f"in Last Gasp ({turns})"
        return f"{self.name}: {hp} HP, {down}, stored healing {lg.stored_healing}"


@dataclass(frozen=True, slots=True)
class Instance:
    """``number`` counts the channel's instances; ``party`` is (character key, carried) in key order."""

    number: int = 1
    heal_pool: HealPool = field(default_factory=HealPool)
    party: tuple[tuple[str, Carried], ...] = ()

    def carried(self, key: str) -> Carried | None:
        return next((c for k, c in self.party if k == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "heal_pool": self.heal_pool.to_dict(),
            "party": {k: c.to_dict() for k, c in self.party},
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Instance:
        party = raw.get("party") or {}
        return cls(
            int(raw.get("number", 1)),
            HealPool.from_dict(raw["heal_pool"]) if raw.get("heal_pool") else HealPool(),
            tuple(sorted((str(k), Carried.from_dict(v)) for k, v in party.items())),
        )


def record(instance: Instance, state: D6State, keys: Mapping[str, str]) -> Instance:
    """The instance after ``state``: its heal pool and number, and each keyed PC as it stands now.
    ``keys`` maps combatant ids to character keys; PCs not in it (and NPCs) are left out."""
    party = dict(instance.party)
    for c in state.combatants:
        key = keys.get(c.id)
        if key is None or not c.is_pc:
            continue
        lg = dataclasses.replace(c.last_gasp, save_owed=False) if c.last_gasp is not None else None
        party[key] = Carried(c.hp, lg, c.status == "dead", c.name)
    return Instance(state.instance, state.heal_pool, tuple(sorted(party.items())))


def resume(state: D6State, instance: Instance) -> D6State:
    """A new encounter's state in ``instance``: its heal pool and number (the size follows who joins)."""
    return dataclasses.replace(state, heal_pool=instance.heal_pool, instance=instance.number)


def enter(state: D6State, cid: str, carried: Carried | None) -> Outcome[D6State]:
    """A PC that joined this encounter takes up HP and Last Gasp state where the instance left them."""
    if carried is None:
        return Outcome(state)
    c = state.get(cid)
    hp = min(carried.hp, c.sheet.hp_max)
    changes: dict[str, Any] = {"hp": hp, "last_gasp": carried.last_gasp}
    if carried.dead:
        changes |= {"status": "dead", "prone": True}
    elif carried.last_gasp is not None:
        changes |= {"prone": True}
    state = state.update(cid, **changes)
    lg = carried.last_gasp
    events: list[Event] = [
        CarriedIn(
            cid,
            hp,
            c.sheet.hp_max,
            lg.rounds if lg else None,
            lg.stored_healing if lg else None,
            bool(lg and lg.stabilised),
            carried.dead,
            state.instance,
        )
    ]
    why = "is down" if carried.dead or lg is not None else "joined"
    state, more = recompute_pool(state, f"{cid} {why}, as the instance left them")
    return Outcome(state, (*events, *more))


def next_instance(instance: Instance) -> Instance:
    """`/gm instance`: the next number and the pool refilled (uses 0, item heals kept); the party as it is.
    The size stays the last one computed until an encounter recomputes it from who is up."""
    pool = dataclasses.replace(instance.heal_pool, uses=0)
    return Instance(instance.number + 1, pool, instance.party)
