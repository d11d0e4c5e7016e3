"""Kaernest combat state (RULES.md §2): the clock and every combatant's place on the timeline.

Frozen dataclasses with exact ``to_dict``/``from_dict``. Time is stored as absolute ticks (see ``clock``);
``minute``/``segment`` are derived. A combatant either owes its next declaration at ``ready_tick``
(``pending`` is None) or has an action under way that lands at ``pending.lands_tick`` (= ``ready_tick``,
where it declares again). Unconscious and dying are derived from the damage taken (RULES.md §2 "Health"),
so they can never disagree with it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import FieldProblem, NotFound, ValidationError
from rules.systems.kaernest import clock
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest.sheet import Sheet

Posture = Literal["passive", "active", "aggressive", "none"]
POSTURES: tuple[Posture, ...] = ("passive", "active", "aggressive", "none")
ActionKind = Literal["attack", "other", "defend"]
ACTION_KINDS: tuple[ActionKind, ...] = ("attack", "other", "defend")
Element = Literal["physical", "energy", "arcane"]
ELEMENTS: tuple[Element, ...] = ("physical", "energy", "arcane")
Condition = Literal["up", "unconscious", "dying"]


@dataclass(frozen=True, slots=True)
class PendingAction:
    """An action under way: declared at ``declared_tick`` with ``speed``, resolving at ``lands_tick``.

    ``attack``: ``target`` is a combatant id, with weapon, grip, damage type, element and modifiers.
    ``other``: a GM-timed action (skill, magic, move); ``defend``: holding an active defense.
    ``restarts`` counts interruptions by an active defense (each one restarted it with speed + 1).
    """

    kind: ActionKind
    declared_tick: int
    speed: int
    lands_tick: int
    target: str | None = None
    weapon: str | None = None
    grip: int | None = None
    damage_type: str | None = None
    element: Element = "physical"
    skill: str | None = None
    called_location: str | None = None
    bonus: int = 0
    enchantment: int = 0
    circumstance: int = 0
    description: str = ""
    restarts: int = 0


@dataclass(frozen=True, slots=True)
class Wound:
    """A wound (a single hit over 1.5×Health after armour): its ``penalty`` on every later roll's target,
    and for a called shot the ``location`` and the GM-written ``effect``."""

    tick: int
    damage: int
    penalty: int
    location: str | None = None
    effect: str = ""


@dataclass(frozen=True, slots=True)
class Combatant:
    """One fighter: its sheet, its initiative and entry order, its place on the timeline and its health."""

    id: str
    sheet: Sheet
    entry: int
    side: str = "party"
    initiative: int | None = None
    ready_tick: int | None = None
    pending: PendingAction | None = None
    posture: Posture = "passive"
    defenses_since_action: int = 0
    held_defensive: bool = False
    damage: int = 0
    wounds: tuple[Wound, ...] = ()
    # GM-set conditions without a rule effect in Kaernest ("prone", "blinded"): shown, never applied.
    conditions: tuple[str, ...] = ()
    # RULES.md §4: equal initiative goes to higher Instinct, then to a d12 roll-off made once and kept.
    rolloff: tuple[int, ...] = ()
    # RULES.md §4: Luck spent on the next initiative roll (asked for when joining or before begin).
    spend_luck: bool = False

    @property
    def name(self) -> str:
        return self.sheet.name

    @property
    def npc(self) -> bool:
        return self.sheet.npc

    @property
    def condition(self) -> Condition:
        """RULES.md §2: more than 4×Health unconscious, more than 5×Health dying."""
        if self.damage > 5 * self.sheet.health:
            return "dying"
        if self.damage > 4 * self.sheet.health:
            return "unconscious"
        return "up"

    @property
    def up(self) -> bool:
        return self.condition == "up"

    @property
    def wound_penalty(self) -> int:
        return sum(w.penalty for w in self.wounds)

    @property
    def on_timeline(self) -> bool:
        return self.up and self.ready_tick is not None


@dataclass(frozen=True, slots=True)
class KaernestState:
    """A Kaernest encounter: the clock (``tick``) and the combatants in the order they entered.

    ``turn_serial`` counts the turn passes made for the Discord layer (begin, ``/turn end``, ``/gm next``,
    ``/gm set`` on the timeline) so that a turn key never repeats; 0 means the encounter has not begun.
    """

    tick: int = 0
    combatants: tuple[Combatant, ...] = ()
    turn_serial: int = 0

    @property
    def begun(self) -> bool:
        return self.turn_serial > 0

    @property
    def minute(self) -> int:
        return clock.minute_of(self.tick)

    @property
    def segment(self) -> int:
        return clock.segment_of(self.tick)

    def get(self, combatant_id: str) -> Combatant:
        for c in self.combatants:
            if c.id == combatant_id:
                return c
        raise NotFound(f"No combatant `{combatant_id}` in this encounter.")

    def has(self, combatant_id: str) -> bool:
        return any(c.id == combatant_id for c in self.combatants)

    def replace(self, *updated: Combatant) -> KaernestState:
        """A copy with each combatant of ``updated`` swapped in by id."""
        by_id = {c.id: c for c in updated}
        return dataclasses.replace(self, combatants=tuple(by_id.get(c.id, c) for c in self.combatants))

    @property
    def next_entry(self) -> int:
        return max((c.entry for c in self.combatants), default=-1) + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": "kaernest",
            "tick": self.tick,
            "turn_serial": self.turn_serial,
            "combatants": [_combatant_dict(c) for c in self.combatants],
        }


def order_key(c: Combatant) -> tuple:
    """Higher initiative first; equal initiative (RULES.md §4): higher Instinct, then the higher kept d12
    roll-off (announced when rolled: ``InitiativeTied``). Entry order only separates combatants no roll-off
    was needed for (different initiatives meeting on one segment are already ordered by initiative)."""
    return (-(c.initiative or 0), -c.sheet.instinct, tuple(-v for v in c.rolloff), c.entry)


def _pending_dict(p: PendingAction | None) -> dict | None:
    return None if p is None else {f.name: getattr(p, f.name) for f in dataclasses.fields(PendingAction)}


def _combatant_dict(c: Combatant) -> dict[str, Any]:
    return {
        "id": c.id,
        "sheet": c.sheet.stored(),
        "entry": c.entry,
        "side": c.side,
        "initiative": c.initiative,
        "ready_tick": c.ready_tick,
        "pending": _pending_dict(c.pending),
        "posture": c.posture,
        "defenses_since_action": c.defenses_since_action,
        "held_defensive": c.held_defensive,
        "damage": c.damage,
        "wounds": [{f.name: getattr(w, f.name) for f in dataclasses.fields(Wound)} for w in c.wounds],
        "conditions": list(c.conditions),
        "rolloff": list(c.rolloff),
        "spend_luck": c.spend_luck,
    }


def _build(cls: type, raw: Any, path: str, problems: list[FieldProblem]):
    if not isinstance(raw, dict):
        problems.append(FieldProblem(path, "must be a table of fields"))
        return None
    names = {f.name for f in dataclasses.fields(cls)}
    extra = set(raw) - names
    if extra:
        problems.append(FieldProblem(path, f"unknown fields {sorted(extra)}"))
        return None
    try:
        return cls(**raw)
    except TypeError as err:
        problems.append(FieldProblem(path, str(err)))
        return None


def from_dict(raw: dict[str, Any]) -> KaernestState:
    """The state saved by ``to_dict``; a damaged record raises ValidationError with field paths."""
    problems: list[FieldProblem] = []
    if not isinstance(raw, dict) or raw.get("system", "kaernest") != "kaernest":
        raise ValidationError(FieldProblem("", "not a Kaernest encounter"), "The encounter")
    tick = raw.get("tick", 0)
    if not isinstance(tick, int) or isinstance(tick, bool) or tick < 0:
        problems.append(FieldProblem("tick", "must be a whole number ≥ 0"))
    serial = raw.get("turn_serial", 0)
    if not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
        problems.append(FieldProblem("turn_serial", "must be a whole number ≥ 0"))
    combatants = []
    for i, item in enumerate(raw.get("combatants", [])):
        path = f"combatants[{i}]"
        if not isinstance(item, dict):
            problems.append(FieldProblem(path, "must be a table of fields"))
            continue
        item = dict(item)
        try:
            sheet = sheets.from_dict(item.pop("sheet", None))
        except ValidationError as err:
            problems.extend(FieldProblem(f"{path}.sheet.{p.path}", p.problem) for p in err.problems)
            continue
        pending_raw = item.pop("pending", None)
        pending = (
            None if pending_raw is None else _build(PendingAction, pending_raw, f"{path}.pending", problems)
        )
        wounds = tuple(
            _build(Wound, w, f"{path}.wounds[{j}]", problems) for j, w in enumerate(item.pop("wounds", []))
        )
        conditions_raw = item.pop("conditions", [])
        if not isinstance(conditions_raw, list | tuple) or not all(
            isinstance(x, str) for x in conditions_raw
        ):
            problems.append(FieldProblem(f"{path}.conditions", "must be a list of words"))
            conditions_raw = []
        rolloff_raw = item.pop("rolloff", [])
        if not isinstance(rolloff_raw, list | tuple) or not all(
            isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 12 for x in rolloff_raw
        ):
            problems.append(FieldProblem(f"{path}.rolloff", "must be a list of d12 results"))
            rolloff_raw = []
        combatant = _build(
            Combatant,
            {
                **item,
                "rolloff": tuple(rolloff_raw),
                "sheet": sheet,
                "pending": pending,
                "wounds": wounds,
                "conditions": tuple(conditions_raw),
            },
            path,
            problems,
        )
        if combatant is not None:
            for name in ("entry", "initiative", "ready_tick", "defenses_since_action", "damage"):
                value = getattr(combatant, name)
                optional = name in ("initiative", "ready_tick")
                if not (optional and value is None) and (
                    not isinstance(value, int) or isinstance(value, bool) or value < 0
                ):
                    problems.append(FieldProblem(f"{path}.{name}", "must be a whole number ≥ 0"))
            if combatant.posture not in POSTURES:
                problems.append(FieldProblem(f"{path}.posture", f"one of {', '.join(POSTURES)}"))
            if pending is not None and (pending.kind not in ACTION_KINDS or pending.element not in ELEMENTS):
                problems.append(FieldProblem(f"{path}.pending", "unknown action kind or element"))
            # The timeline relies on these: an action lands after it was declared, and its combatant
            # declares again exactly where it lands.
            if pending is not None and not (
                pending.declared_tick < pending.lands_tick == combatant.ready_tick
            ):
                problems.append(
                    FieldProblem(
                        f"{path}.pending", "lands_tick must follow declared_tick and equal ready_tick"
                    )
                )
            combatants.append(combatant)
    if len({c.id for c in combatants}) != len(combatants):
        problems.append(FieldProblem("combatants", "two combatants share an id"))
    if problems:
        raise ValidationError(problems, "The encounter")
    return KaernestState(tick=tick, combatants=tuple(combatants), turn_serial=serial)
