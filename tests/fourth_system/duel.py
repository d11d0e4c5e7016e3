"""The duel's rules, pure: sheets, house rules, the fight state and every operation on it.

Every operation takes the state and returns ``Outcome(new_state, events)``; dice come only from the
``DiceSource`` argument.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.dice import DiceSource
from rules.errors import FieldProblem, InvalidInput, NotAllowed, NotFound, ValidationError
from rules.events import Event, Outcome
from rules.house_rules import RuleBook, RuleSpec
from tests.fourth_system.events import (
    Attacked,
    Checked,
    ConditionChanged,
    FieldSet,
    FightBegun,
    HpChanged,
    Joined,
    Left,
    Out,
    TurnEnded,
    TurnStarted,
)

DIE = 10
SKILL = (1, 10)
HP = (1, 50)
CONDITIONS = ("prone", "shaken")


# --- house rules ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HouseRules:
    damage: int = 3


BOOK = RuleBook(
    "Duel",
    HouseRules,
    (RuleSpec("damage", "int", 3, "HP a hit takes", minimum=1, maximum=20),),
)


# --- sheets ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sheet:
    name: str
    skill: int = 5
    hp: int = 10

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "skill": self.skill, "hp": self.hp}


FIELDS = ("name", "skill", "hp")
TEMPLATES: dict[str, Sheet] = {
    "Brigand": Sheet("Brigand", skill=4, hp=6),
    "Duellist": Sheet("Duellist", 7, 10),
}


def _whole(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidInput(f"`{name}` is a whole number from {low} to {high}.")
    text = str(value).strip()
    if not (text.isascii() and text.lstrip("-").isdecimal()) or not low <= int(text) <= high:
        raise InvalidInput(f"`{name}` is a whole number from {low} to {high}, not `{text}`.")
    return int(text)


def sheet_from_dict(raw: Mapping[str, Any]) -> Sheet:
    problems: list[FieldProblem] = []
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(FieldProblem("name", "is missing"))
    values: dict[str, int] = {}
    for field, (low, high), default in (("skill", SKILL, 5), ("hp", HP, 10)):
        try:
            values[field] = _whole(field, raw.get(field, default), low, high)
        except InvalidInput as err:
            problems.append(FieldProblem(field, err.reason))
    unknown = sorted(set(raw) - {*FIELDS, "system"})
    problems += [FieldProblem(key, "is not a duel field") for key in unknown]
    if problems:
        raise ValidationError(problems, "The duel sheet")
    return Sheet(str(name).strip(), **values)


def set_field(sheet: Sheet, field: str, text: str) -> Sheet:
    key = (field or "").strip().lower()
    if key == "name":
        return dataclasses.replace(sheet, name=" ".join(text.split()))
    if key == "skill":
        return dataclasses.replace(sheet, skill=_whole("skill", text, *SKILL))
    if key == "hp":
        return dataclasses.replace(sheet, hp=_whole("hp", text, *HP))
    raise NotFound(f"A duel sheet has no `{field}`. Fields: {', '.join(FIELDS)}.")


def check(sheet: Sheet, bonus: int, dice: DiceSource) -> Outcome[Sheet]:
    die = dice.roll(DIE, f"{sheet.name} skill check")
    target = sheet.skill + bonus
    return Outcome(sheet, (Checked(sheet.name, die.value, target, die.value <= target, (die,)),))


# --- the fight ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Combatant:
    id: str
    name: str
    side: str
    is_pc: bool
    skill: int
    hp: int
    hp_max: int
    conditions: tuple[str, ...] = ()

    @property
    def out(self) -> bool:
        return self.hp <= 0


@dataclass(frozen=True, slots=True)
class DuelState:
    combatants: tuple[Combatant, ...] = ()
    order: tuple[str, ...] = ()  # ids, set when the fight begins
    round: int = 0  # 0 before it begins
    turn: int = 0  # index into ``order``
    attacked: bool = False  # the current combatant has attacked this turn

    @property
    def begun(self) -> bool:
        return self.round > 0

    @property
    def current(self) -> Combatant | None:
        return self.get(self.order[self.turn]) if self.begun else None

    def get(self, cid: str) -> Combatant:
        for c in self.combatants:
            if c.id == cid:
                return c
        raise NotFound(f"No combatant `{cid}` in this duel.")

    def with_combatant(self, combatant: Combatant) -> DuelState:
        return dataclasses.replace(
            self, combatants=tuple(combatant if c.id == combatant.id else c for c in self.combatants)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "combatants": [
                dataclasses.asdict(c) | {"conditions": list(c.conditions)} for c in self.combatants
            ],
            "order": list(self.order),
            "round": self.round,
            "turn": self.turn,
            "attacked": self.attacked,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> DuelState:
        combatants = tuple(
            Combatant(**{**c, "conditions": tuple(c.get("conditions", ()))})
            for c in raw.get("combatants", ())
        )
        return cls(
            combatants,
            tuple(raw.get("order", ())),
            int(raw.get("round", 0)),
            int(raw.get("turn", 0)),
            bool(raw.get("attacked", False)),
        )


def add(state: DuelState, cid: str, sheet: Sheet, side: str, is_pc: bool) -> Outcome[DuelState]:
    if any(c.id == cid for c in state.combatants):
        raise InvalidInput(f"`{cid}` is in this duel already.")
    c = Combatant(cid, sheet.name, side or "party", is_pc, sheet.skill, sheet.hp, sheet.hp)
    state = dataclasses.replace(state, combatants=(*state.combatants, c))
    if state.begun:  # a late joiner acts last
        state = dataclasses.replace(state, order=(*state.order, cid))
    return Outcome(state, (Joined(cid, c.side),))


def remove(state: DuelState, cid: str) -> Outcome[DuelState]:
    target = state.get(cid)
    if state.begun and len(state.order) == 1:
        raise NotAllowed(f"{target.name} is the last combatant; end the encounter instead.")
    events: list[Event] = []
    if state.begun and state.current is not None and state.current.id == cid:
        out = next_turn(state)
        state, events = out.state, list(out.events)
    order = tuple(x for x in state.order if x != cid)
    current = state.order[state.turn] if state.begun else None
    state = dataclasses.replace(
        state,
        combatants=tuple(c for c in state.combatants if c.id != cid),
        order=order,
        turn=order.index(current) if current in order else 0,
    )
    return Outcome(state, (*events, Left(cid)))


def begin(state: DuelState) -> Outcome[DuelState]:
    if state.begun:
        raise NotAllowed("The duel has begun already.")
    if len(state.combatants) < 2:
        raise NotAllowed("A duel needs two combatants.")
    entry = {c.id: i for i, c in enumerate(state.combatants)}
    order = tuple(c.id for c in sorted(state.combatants, key=lambda c: (-c.skill, entry[c.id])))
    state = dataclasses.replace(state, order=order, round=1, turn=0, attacked=False)
    return Outcome(state, (FightBegun(order), TurnStarted(order[0], 1)))


def next_turn(state: DuelState) -> Outcome[DuelState]:
    """End the current turn and start the next one of a combatant still in the fight."""
    current = state.current
    if current is None:
        raise NotAllowed("The duel has not begun yet.")
    if all(c.out for c in state.combatants):
        raise NotAllowed("Everyone is out; heal someone to go on.")
    index, round_ = state.turn, state.round
    for _ in range(len(state.order)):  # bounded: at most one pass of the order
        index += 1
        if index == len(state.order):
            index, round_ = 0, round_ + 1
        if not state.get(state.order[index]).out:
            break
    state = dataclasses.replace(state, turn=index, round=round_, attacked=False)
    return Outcome(state, (TurnEnded(current.id), TurnStarted(state.order[index], round_)))


def end_turn(state: DuelState, cid: str) -> Outcome[DuelState]:
    current = state.current
    if current is None or current.id != cid:
        raise NotAllowed("It is not that combatant's turn.")
    return next_turn(state)


def attack(
    state: DuelState, attacker: str, target: str, dice: DiceSource, house: HouseRules
) -> Outcome[DuelState]:
    current = state.current
    if current is None or current.id != attacker:
        raise NotAllowed("Attack on your own turn.")
    if state.attacked:
        raise NotAllowed(f"{current.name} has attacked this turn; end the turn with `/turn end`.")
    defender = state.get(target)
    if defender.id == current.id:
        raise NotAllowed(f"{current.name} cannot attack itself.")
    if defender.out:
        raise NotAllowed(f"{defender.name} is out of the fight already.")
    die = dice.roll(DIE, f"{current.name} attacks {defender.name}")
    hit = die.value <= current.skill
    damage = house.damage if hit else 0
    hurt = dataclasses.replace(defender, hp=max(0, defender.hp - damage))
    state = dataclasses.replace(state.with_combatant(hurt), attacked=True)
    events: list[Event] = [
        Attacked(current.id, defender.id, die.value, current.skill, hit, damage, hurt.hp, (die,))
    ]
    if hurt.out:
        events.append(Out(hurt.id))
    return Outcome(state, tuple(events))


def change_hp(state: DuelState, cid: str, delta: int) -> Outcome[DuelState]:
    target = state.get(cid)
    after = max(0, min(target.hp_max, target.hp + delta))
    state = state.with_combatant(dataclasses.replace(target, hp=after))
    return Outcome(state, (HpChanged(cid, target.hp, after),))


GM_FIELDS = ("hp", "skill", "side")


def gm_set(state: DuelState, cid: str, field: str, text: str) -> Outcome[DuelState]:
    target = state.get(cid)
    key = (field or "").strip().lower()
    if key == "hp":
        changed = dataclasses.replace(target, hp=_whole("hp", text, 0, target.hp_max))
    elif key == "skill":
        changed = dataclasses.replace(target, skill=_whole("skill", text, *SKILL))
    elif key == "side":
        changed = dataclasses.replace(target, side=" ".join(text.split())[:64] or target.side)
    else:
        raise NotFound(f"`{field}` is not a duel field. Fields: {', '.join(GM_FIELDS)}.")
    return Outcome(state.with_combatant(changed), (FieldSet(cid, key, text.strip()),))


def set_condition(state: DuelState, cid: str, condition: str, remove: bool) -> Outcome[DuelState]:
    target = state.get(cid)
    key = " ".join((condition or "").split()).lower()
    if not key or len(key) > 40:
        raise InvalidInput("A condition needs 1..40 characters.")
    if remove == (key not in target.conditions):
        raise NotAllowed(f"{target.name} is {'not ' if remove else 'already '}{key}.")
    after = tuple(c for c in target.conditions if c != key) if remove else (*target.conditions, key)
    state = state.with_combatant(dataclasses.replace(target, conditions=after))
    return Outcome(state, (ConditionChanged(cid, key, remove),))
