"""Every event the duel can produce (kept in one module, so renderers can be registered for them)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import Die
from rules.events import Event


@dataclass(frozen=True)
class Joined(Event):
    who: str
    side: str


@dataclass(frozen=True)
class Left(Event):
    who: str


@dataclass(frozen=True)
class FightBegun(Event):
    order: tuple[str, ...]


@dataclass(frozen=True)
class TurnStarted(Event):
    who: str
    round: int


@dataclass(frozen=True)
class TurnEnded(Event):
    who: str


@dataclass(frozen=True)
class Attacked(Event):
    attacker: str
    target: str
    roll: int
    skill: int
    hit: bool
    damage: int
    hp_left: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Out(Event):
    """A combatant at 0 HP: out of the fight until healed."""

    who: str


@dataclass(frozen=True)
class HpChanged(Event):
    who: str
    before: int
    after: int


@dataclass(frozen=True)
class FieldSet(Event):
    who: str
    field: str
    value: str


@dataclass(frozen=True)
class ConditionChanged(Event):
    who: str
    condition: str
    removed: bool


@dataclass(frozen=True)
class Checked(Event):
    who: str
    roll: int
    target: int
    success: bool
    dice: tuple[Die, ...] = ()


EVENTS: tuple[type[Event], ...] = (
    Joined,
    Left,
    FightBegun,
    TurnStarted,
    TurnEnded,
    Attacked,
    Out,
    HpChanged,
    FieldSet,
    ConditionChanged,
    Checked,
)
