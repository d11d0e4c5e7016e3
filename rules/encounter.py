"""The one face every rule system shows the Discord layer.

The bot never imports a system's modules directly: it looks the channel's system up in
``rules.systems.registry`` and calls the ``System`` methods below. Each system implements them in
``rules/systems/<name>/adapter.py`` over its own pure core, so cogs stay system-agnostic and a fourth
system would only add an adapter.

Conventions (RULES.md §0):
- Every state-changing method takes the state and returns ``Outcome(new_state, events)``; it never mutates.
- Dice come only from the ``DiceSource`` argument, house rules only from the ``house`` argument.
- Player mistakes raise ``RulesError`` subclasses with a reason written for the player; nothing else.
- Combatant ids are strings chosen by the caller (the bot uses the database row id); names are for people.
- Views (``TrackerView``, ``SheetView``) are plain data for the render modules: no Discord, no markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from rules.dice import DiceSource
from rules.events import Outcome

# ---------------------------------------------------------------------------------------------------
# Views: what the tracker and the sheet embed show, as data.


@dataclass(frozen=True)
class RuleInfo:
    """One house rule as `/gm rules` lists it."""

    name: str
    value: str
    default: str
    allowed: tuple[str, ...]  # empty for free numbers
    help: str


@dataclass(frozen=True)
class LocationView:
    """Nyra: damage on one location and its wound state word (``serious``)."""

    location: str
    damage: int
    state: str
    thresholds: tuple[int, int, int] = (0, 0, 0)  # slight, serious, critical


@dataclass(frozen=True)
class CombatantView:
    """One row of the tracker. Fields that a system does not have stay at their defaults."""

    id: str
    name: str
    side: str
    is_pc: bool
    initiative: int | None = None  # D6/Kaernest initiative, Nyra Sequence
    hp: int | None = None  # D6 HP; Kaernest damage taken is in ``damage``
    hp_max: int | None = None
    damage: int | None = None  # Kaernest accumulated damage
    health: str = ""  # a state word for everyone ("unhurt", "wounded", "Last Gasp", "down", "dead")
    locations: tuple[LocationView, ...] = ()
    conditions: tuple[str, ...] = ()  # "staggered ×2", "prone", "pinned", "hidden", "bleeding 3" …
    last_gasp_round: int | None = None  # D6: Death Saves made so far while in Last Gasp
    stored_healing: int | None = None  # D6
    wounds: int = 0  # Kaernest wound count
    next_segment: str | None = None  # Kaernest: "1:17" when it next declares
    pending: str | None = None  # Kaernest: "attack on Mico, lands 1:08"
    active: bool = True  # still in the fight


@dataclass(frozen=True)
class GrappleView:
    a: str  # combatant ids
    b: str
    counter: int  # toward ``a`` when positive
    pinned: str | None = None  # id of the pinned side


@dataclass(frozen=True)
class HealPoolView:
    size: int
    used: int
    instance: int

    @property
    def left(self) -> int:
        return max(0, self.size - self.used)


@dataclass(frozen=True)
class TrackerView:
    system: str
    begun: bool
    round: int | None = None  # Nyra phase, D6 round
    minute: int | None = None  # Kaernest
    segment: int | None = None  # Kaernest, 30 … 1
    order: tuple[CombatantView, ...] = ()  # in turn order (setup: in entry order)
    current: tuple[str, ...] = ()  # ids whose turn it is
    grapples: tuple[GrappleView, ...] = ()
    heal_pool: HealPoolView | None = None
    notes: tuple[str, ...] = ()  # system-specific lines ("delay left 3 of 6", "volley ended")


@dataclass(frozen=True)
class SheetView:
    """A sheet for `/character show`: a title and labelled sections of (label, value) pairs."""

    title: str
    sections: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class TurnStatus:
    """Who must act now, and a key that changes whenever the turn passes.

    ``key`` goes into button ids and reminder rows (``fray:end-turn:<encounter>:<key>``): a click on an old
    announcement whose key no longer matches is refused politely. ``actors`` is empty when nobody owes an
    action (not begun, or the clock must advance by itself).
    """

    key: str
    actors: tuple[str, ...]
    label: str  # "Round 2", "Phase 1", "Minute 1, segment 17"


# ---------------------------------------------------------------------------------------------------
# The protocol


@runtime_checkable
class System(Protocol):
    name: str  # "nyra" | "kaernest" | "d6"
    title: str  # "Nyra" | "Kaernest" | "the D6 campaign"

    # -- house rules (`/gm rules`) -------------------------------------------------------------------
    def default_house(self) -> Any: ...
    def house_from_dict(self, raw: Mapping[str, Any]) -> Any: ...
    def house_to_dict(self, house: Any) -> dict[str, Any]: ...
    def describe_house(self, house: Any) -> tuple[RuleInfo, ...]: ...
    def set_house_rule(self, house: Any, name: str, text: str) -> Any: ...

    # -- sheets (`/character …`) ---------------------------------------------------------------------
    def new_sheet(self, name: str) -> Any: ...
    def sheet_from_dict(self, raw: Mapping[str, Any]) -> Any: ...  # ValidationError lists every problem
    def sheet_to_dict(self, sheet: Any) -> dict[str, Any]: ...  # from_dict(to_dict(s)) == s
    def sheet_name(self, sheet: Any) -> str: ...
    def rename_sheet(self, sheet: Any, name: str) -> Any: ...
    def sheet_fields(self) -> tuple[str, ...]: ...  # for `/character set field` autocomplete
    def set_sheet_field(self, sheet: Any, field: str, text: str) -> Any: ...
    def weapon_names(self) -> tuple[str, ...]: ...
    def armour_names(self) -> tuple[str, ...]: ...
    def sheet_weapons(self, sheet: Any) -> tuple[str, ...]: ...
    def set_weapon(self, sheet: Any, name: str, *, remove: bool = False) -> Any: ...
    def set_armour(
        self, sheet: Any, name: str, *, location: str | None = None, remove: bool = False
    ) -> Any: ...
    def sheet_view(self, sheet: Any) -> SheetView: ...
    def creature_names(self) -> tuple[str, ...]: ...
    def creature_sheet(self, template: str, name: str) -> Any: ...  # a fresh NPC sheet named ``name``

    # -- checks (`/check`) ---------------------------------------------------------------------------
    def check_stats(self, sheet: Any) -> tuple[str, ...]: ...
    def check(
        self, sheet: Any, stat: str, difficulty: str | None, bonus: int, dice: DiceSource, house: Any
    ) -> Outcome[Any]: ...

    # -- encounter state -----------------------------------------------------------------------------
    def new_state(self) -> Any: ...
    def state_to_dict(self, state: Any) -> dict[str, Any]: ...
    def state_from_dict(self, raw: Mapping[str, Any]) -> Any: ...
    def add_combatant(
        self,
        state: Any,
        cid: str,
        sheet: Any,
        *,
        side: str,
        distance: int,
        is_pc: bool,
        house: Any,
        dice: DiceSource | None = None,  # a late joiner may need a roll (Nyra Sequence roll-off)
    ) -> Outcome[Any]: ...
    def remove_combatant(self, state: Any, cid: str, house: Any) -> Outcome[Any]: ...
    def begin(
        self, state: Any, dice: DiceSource, house: Any, *, attackers: str | None, surprise: int
    ) -> Outcome[Any]: ...  # rolls initiative by the system's rules and starts the first turn
    def turn(self, state: Any) -> TurnStatus: ...
    def end_turn(self, state: Any, cid: str, dice: DiceSource, house: Any) -> Outcome[Any]: ...
    def gm_next(self, state: Any, dice: DiceSource, house: Any) -> Outcome[Any]: ...

    # -- GM tools (`/gm damage|heal|set|condition|instance`) ------------------------------------------
    def damage_locations(self, state: Any, cid: str) -> tuple[str, ...]: ...  # empty when not per location
    def gm_damage(
        self, state: Any, cid: str, amount: int, location: str | None, dice: DiceSource, house: Any
    ) -> Outcome[Any]: ...
    def gm_heal(self, state: Any, cid: str, amount: int, dice: DiceSource, house: Any) -> Outcome[Any]: ...
    def gm_fields(self) -> tuple[str, ...]: ...
    def gm_set(
        self, state: Any, cid: str, field: str, text: str, house: Any, dice: DiceSource | None = None
    ) -> Outcome[Any]: ...
    def conditions(self) -> tuple[str, ...]: ...
    def gm_condition(
        self, state: Any, cid: str, condition: str, remove: bool, house: Any
    ) -> Outcome[Any]: ...
    def new_instance(self, state: Any, house: Any) -> Outcome[Any]: ...  # NotAllowed outside D6

    # -- reading -------------------------------------------------------------------------------------
    def tracker(self, state: Any) -> TrackerView: ...


# ---------------------------------------------------------------------------------------------------
# Actions (`/attack`, `/defend`, `/grapple`, …): each system maps them onto its own flow of a turn.

ACTION_KINDS: tuple[str, ...] = (
    "attack",
    "defend",
    "grapple",
    "heal",
    "deathsave",
    "move",
    "disengage",
    "stealth",
    "reroll",  # /initiative reroll
    "lockin",
)


@dataclass(frozen=True)
class Action:
    """One action as a member asked for it (COMMANDS.md "Turns and actions"); options a kind does not use
    stay at their defaults. ``actor`` and ``target`` are combatant ids (the Discord layer resolves names)."""

    kind: str
    actor: str
    target: str | None = None
    weapon: str | None = None
    damage_type: str | None = None  # the `type` option
    aim: str | None = None  # a location (Nyra aimed strike, Kaernest/D6 called shot)
    grip: str | None = None  # Kaernest "1h" | "2h"
    bonus: int = 0
    stance: str | None = None  # /defend
    grapple: str | None = None  # start | contest | throw | pin | takedown | release
    storeys: int = 0  # grapple throw off a height
    into: str | None = None  # grapple throw into "wall" | "object" | a combatant id
    stat: str | None = None  # /deathsave with: charisma | perception
    distance: int | None = None  # /move
    cost: int | None = None  # /move: Nyra delay cost (GM-set)
    leave: bool = False  # /move, D6: leave melee without disengaging (every engaged enemy gets a free attack)
    light: str | None = None  # /stealth: dim | normal | daylight
    lock: bool = False  # D6: declare and lock in at once (a one-action turn)
    enchantment: int = 0  # Kaernest: the one enchantment bonus to damage
    circumstance: int = 0  # Kaernest: the GM's circumstance modifier to damage
    element: str | None = None  # Kaernest: physical | energy | arcane
    speed: int | None = None  # Kaernest: a GM-set speed instead of the weapon's


@runtime_checkable
class Actions(Protocol):
    """What a system adds for the action commands (issue 7). Every method raises ``RulesError`` for actions
    the rules do not allow now (out of turn, after lock-in, a weapon the actor lacks, …) and changes nothing.
    """

    def act(self, state: Any, action: Action, dice: DiceSource, house: Any) -> Outcome[Any]:
        """Nyra: resolves at once. Kaernest: declares (then the clock advances by itself while nobody owes a
        declaration). D6: declares into the turn's plan; ``lockin`` (or ``lock=True``) resolves it."""
        ...

    def choices(self, state: Any, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        """Autocomplete values for ``option`` (weapon, type, aim, stance, into …) given what is typed so far."""
        ...

    def allowed_actions(self, state: Any, actor: str) -> tuple[str, ...]:
        """The action kinds ``actor`` may use now (a D6 combatant in Last Gasp: only ``deathsave``)."""
        ...
