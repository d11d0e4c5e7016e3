"""The one face every rule system shows the Discord layer.

The bot never imports a system's modules directly: it looks the channel's system up in
``rules.systems.registry`` and calls the ``System`` methods below. Each system implements them in
``rules/systems/<name>/adapter.py`` over its own pure core, and declares its ``Traits``, so the shell asks
what a system does (``traits.declares_then_locks``) instead of which system it is. Adding a system is
adding an adapter and registering it; nothing in ``bot/`` or ``cogs/`` names a system.

Shape: ``System[StateT, SheetT, HouseT]`` is one generic ``Protocol``. Each adapter fixes the three types to
its own frozen records (``System[D6State, Sheet, HouseRules]``), so inside a system every method is checked
against its real types, and an adapter is a plain class that satisfies the protocol structurally (no base
class to inherit, no registration side effects at import). The shell holds systems as ``AnySystem``
(``System[Any, Any, Any]``): to it states, sheets and house rules are opaque values it only passes back to
the system that made them and stores through ``*_to_dict``. Those three parameters and the JSON documents
(``Json``) are the only open types. The actions (``act``, ``choices``, ``allowed_actions``) are part of the
same protocol, because every system must answer every action command (if only to refuse it).

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
from typing import Any, Protocol, TypeVar, runtime_checkable

from rules.dice import DiceSource
from rules.events import Outcome

StateT = TypeVar("StateT")
SheetT = TypeVar("SheetT")
HouseT = TypeVar("HouseT")

Json = dict[str, Any]  # a JSON document: what is stored in the database and read back
RawJson = Mapping[str, Any]

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
# Traits: what the shell may ask of a system instead of its name.


@dataclass(frozen=True)
class Traits:
    """How a system's turns work, where the commands and replies must differ. All off by default, so a
    system that resolves every action at once on a plain round counter declares nothing."""

    # Actions are declared into the turn's plan and resolve at `/lockin` (or ``lock``); until then the
    # reply is a private plan so far (D6).
    declares_then_locks: bool = False
    # Combatants are engaged in melee, so `/move leave` (leaving without disengaging) means something (D6).
    melee_engagement: bool = False
    # A combatant down to its last breath makes death saves on its turn: the turn announcement carries the
    # Death Save button (D6 Last Gasp).
    death_saves: bool = False
    # Time runs on a minute/segment timeline that advances by itself while nobody owes a declaration
    # (Kaernest); the tracker then shows ``minute`` and ``segment`` instead of ``round``.
    segment_timeline: bool = False
    # What one pass of the turn order is called in the tracker ("phase" in Nyra).
    round_word: str = "round"
    # `/roll`'s pool codes (``3D+2``) follow this system's ``explode`` and ``wild_one`` house rules.
    rolls_dice_codes: bool = False
    # Action options only a GM may give (RULES.md §4: a bonus or circumstance modifier is the GM's; Nyra's
    # move cost; Kaernest's speed): a player's is refused. ``bonus`` here covers `/check` too.
    gm_options: tuple[str, ...] = ()
    # How a turn flows, in two or three sentences for `/help` (command names as players type them).
    turn_flow: str = ""
    # What the rules say about attacking a combatant who is down (shown when `/attack` asks for `confirm`).
    downed_note: str = ""


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
    lock: bool = False  # D6: declare, lock in and end the turn at once (a one-action turn)
    flank: bool = False  # /attack, D6: the flank/backstab flag (+2 critical stage, overwhelms a parry)
    note: str | None = None  # D6: a free action's name (a shout), or what a planned check is for
    difficulty: str | None = None  # D6: a planned check's number to beat
    enchantment: int = 0  # Kaernest: the one enchantment bonus to damage
    circumstance: int = 0  # Kaernest: the GM's circumstance modifier to damage
    element: str | None = None  # Kaernest: physical | energy | arcane
    speed: int | None = None  # Kaernest: a GM-set speed instead of the weapon's


# ---------------------------------------------------------------------------------------------------
# The protocol


@runtime_checkable
class System(Protocol[StateT, SheetT, HouseT]):
    name: str  # the registry key, lower case: "nyra"
    title: str  # how a channel's system is announced: "the D6 campaign"
    short_title: str  # how a sheet or an encounter is labelled: "D6"
    traits: Traits

    # -- house rules (`/gm rules`) -------------------------------------------------------------------
    def default_house(self) -> HouseT: ...
    def house_from_dict(self, raw: RawJson) -> HouseT: ...
    def house_to_dict(self, house: HouseT) -> Json: ...
    def describe_house(self, house: HouseT) -> tuple[RuleInfo, ...]: ...
    def set_house_rule(self, house: HouseT, name: str, text: str) -> HouseT: ...

    # -- sheets (`/character …`) ---------------------------------------------------------------------
    def new_sheet(self, name: str) -> SheetT: ...
    def sheet_from_dict(self, raw: RawJson) -> SheetT: ...  # ValidationError lists every problem
    def sheet_to_dict(self, sheet: SheetT) -> Json: ...  # from_dict(to_dict(s)) == s
    def sheet_name(self, sheet: SheetT) -> str: ...
    def rename_sheet(self, sheet: SheetT, name: str) -> SheetT: ...
    def sheet_fields(self) -> tuple[str, ...]: ...  # for `/character set field` autocomplete
    def set_sheet_field(self, sheet: SheetT, field: str, text: str) -> SheetT: ...
    def weapon_names(self) -> tuple[str, ...]: ...
    def armour_names(self) -> tuple[str, ...]: ...
    def sheet_weapons(self, sheet: SheetT) -> tuple[str, ...]: ...
    def set_weapon(self, sheet: SheetT, name: str, *, remove: bool = False) -> SheetT: ...
    def set_armour(
        self, sheet: SheetT, name: str, *, location: str | None = None, remove: bool = False
    ) -> SheetT: ...
    def sheet_view(self, sheet: SheetT) -> SheetView: ...
    def creature_names(self) -> tuple[str, ...]: ...
    def creature_sheet(self, template: str, name: str) -> SheetT: ...  # a fresh NPC sheet named ``name``

    # -- checks (`/check`) ---------------------------------------------------------------------------
    def check_stats(self, sheet: SheetT) -> tuple[str, ...]: ...
    def check(
        self,
        sheet: SheetT,
        stat: str,
        difficulty: str | None,
        bonus: int,
        dice: DiceSource,
        house: HouseT,
        *,
        state: StateT | None = None,  # in an encounter: the combatant ``cid``'s state applies (wounds)
        cid: str | None = None,
    ) -> Outcome[SheetT]: ...

    # -- encounter state -----------------------------------------------------------------------------
    def new_state(self) -> StateT: ...
    def state_to_dict(self, state: StateT) -> Json: ...
    def state_from_dict(self, raw: RawJson) -> StateT: ...
    def add_combatant(
        self,
        state: StateT,
        cid: str,
        sheet: SheetT,
        *,
        side: str,
        distance: int,
        is_pc: bool,
        house: HouseT,
        dice: DiceSource | None = None,  # a late joiner may need a roll (Nyra Sequence roll-off)
    ) -> Outcome[StateT]: ...
    def remove_combatant(self, state: StateT, cid: str, house: HouseT) -> Outcome[StateT]: ...
    def begin(
        self, state: StateT, dice: DiceSource, house: HouseT, *, attackers: str | None, surprise: int
    ) -> Outcome[StateT]: ...  # rolls initiative by the system's rules and starts the first turn
    def turn(self, state: StateT) -> TurnStatus: ...
    def end_turn(self, state: StateT, cid: str, dice: DiceSource, house: HouseT) -> Outcome[StateT]: ...
    def gm_next(self, state: StateT, dice: DiceSource, house: HouseT) -> Outcome[StateT]: ...

    # -- actions (`/attack`, `/defend`, …) ------------------------------------------------------------
    # Every method raises ``RulesError`` for actions the rules do not allow now (out of turn, after lock-in,
    # a weapon the actor lacks, a kind the system lacks) and changes nothing.
    def act(self, state: StateT, action: Action, dice: DiceSource, house: HouseT) -> Outcome[StateT]:
        """Resolve (or, with ``traits.declares_then_locks``, declare) one action."""
        ...

    def choices(self, state: StateT, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        """Autocomplete values for ``option`` (weapon, type, aim, stance, into …) given what is typed so far."""
        ...

    def choice_label(self, state: StateT, actor: str | None, option: str, value: str, action: Action) -> str:
        """What autocomplete shows for one of ``choices``' values: the value with what it means or deals
        (``C — Cleaving 3d6``); the value itself when there is nothing to add."""
        ...

    def allowed_actions(self, state: StateT, actor: str) -> tuple[str, ...]:
        """The action kinds ``actor`` may use now (a D6 combatant in Last Gasp: only ``deathsave``)."""
        ...

    # -- GM tools (`/gm damage|heal|set|condition|instance`) ------------------------------------------
    def damage_locations(self, state: StateT, cid: str) -> tuple[str, ...]: ...  # empty: not per location
    def gm_damage(
        self, state: StateT, cid: str, amount: int, location: str | None, dice: DiceSource, house: HouseT
    ) -> Outcome[StateT]: ...
    def gm_heal(
        self,
        state: StateT,
        cid: str,
        amount: int,
        dice: DiceSource,
        house: HouseT,
        *,
        location: str | None = None,  # Nyra: the location healed; refused where health is not per location
    ) -> Outcome[StateT]: ...
    def gm_fields(self) -> tuple[str, ...]: ...
    def gm_set(
        self, state: StateT, cid: str, field: str, text: str, house: HouseT, dice: DiceSource | None = None
    ) -> Outcome[StateT]: ...
    def conditions(self) -> tuple[str, ...]: ...
    def gm_condition(
        self, state: StateT, cid: str, condition: str, remove: bool, house: HouseT
    ) -> Outcome[StateT]: ...
    def new_instance(self, state: StateT, house: HouseT) -> Outcome[StateT]: ...  # NotAllowed outside D6
    def wounds(self, state: StateT, cid: str) -> tuple[str, ...]: ...  # numbered wounds with effects; ()
    def set_wound_effect(
        self, state: StateT, cid: str, wound: int, effect: str, house: HouseT
    ) -> Outcome[StateT]: ...  # the GM writes a wound's effect (Kaernest); NotAllowed elsewhere
    def spend_luck(
        self, state: StateT, cid: str, house: HouseT, *, pledge: bool = True
    ) -> Outcome[
        StateT
    ]: ...  # Luck added to the initiative roll still to come (Kaernest); NotAllowed elsewhere
    def refresh_sheet(
        self, state: StateT, cid: str, sheet: SheetT, house: HouseT
    ) -> Outcome[StateT]: ...  # RULES.md §4: the character's current sheet reaches its combatant (turn start)

    # -- reading -------------------------------------------------------------------------------------
    def tracker(self, state: StateT) -> TrackerView: ...


# What the shell holds: a system whose state, sheet and house types it does not know (see the docstring).
AnySystem = System[Any, Any, Any]
