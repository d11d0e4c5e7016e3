"""The D6 campaign behind the system-agnostic ``rules.encounter.System`` protocol (what the cogs call).

Thin: each method translates its arguments, calls the D6 core (``gm.py`` and the section
modules) and builds the views. The readings this adapter had to choose, because the protocol is shared:

- ``begin``: initiative by every seed tie rule (``initiative.py``); ``attackers`` must name a side present
  (matched case-insensitively), ``surprise`` is the ambush bonus for that side. The first turn goes to the
  first combatant in the order that takes turns (an NPC already out before the fight is passed over).
- ``turn``: key ``"<round>.<turn index>"``; when the turn holder cannot act (it died or went out on its own
  turn) or nobody is left to act, the key gets ``.idle``, ``actors`` is empty and the GM moves on with
  ``gm_next``. A PC in Last Gasp holds its turn: it owes the Death Save.
- ``end_turn``/``gm_next``: the core ``end_turn`` (an unlocked plan is dropped, out, dead and stabilised
  combatants are passed over, a new round applies rerolled or GM-set initiatives); a combatant added after
  ``begin`` rolls its initiative when the round ends and joins the next one (``gm.advance``). A Last Gasp
  turn whose Death Save is still owed cannot end, unless a GM moves on (``gm_next``; the shell uses it
  for a GM's `/turn end as`): the save is skipped and the turn still counts (RULES.md §4).
- ``check``: attribute, or skill on its attribute, as a pool with the Wild Die; ``difficulty`` is an optional
  target number that the total must **beat** (a tie fails, as a tie goes to the defender in an attack).
  The outcome's state is the sheet, unchanged.
- ``set_armour``: D6 armour covers the whole body (``location`` is refused); a shield from the table sets
  ``shield_av``. ``damage_locations`` is empty.
- conditions: the core's GM conditions (staggered one stack per call, prone, hidden, overwhelmed); pinned and
  total defense come from play and are refused with the command to use.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rules.dice import DiceSource
from rules.encounter import (
    CombatantView,
    GrappleView,
    HealPoolView,
    SheetView,
    System,
    TrackerView,
    Traits,
    TurnStatus,
)
from rules.errors import InvalidInput, NotAllowed, NotFound
from rules.events import Note, Outcome
from rules.house_rules import BookHouseRules
from rules.systems.d6 import checks, gm, instance, tables
from rules.systems.d6.adapter_actions import D6Actions, runs
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.house import BOOK as HOUSE_BOOK
from rules.systems.d6.house import HouseRules
from rules.systems.d6.initiative import roll_initiative
from rules.systems.d6.save import is_pinned, natural_save, stagger_stacks_of
from rules.systems.d6.sheet import ATTRIBUTES, Sheet, field_names, set_field, sheet_from_dict
from rules.systems.d6.state import Combatant, D6State, PlannedAction
from rules.systems.d6.turn import multi_action_penalty, start_turn

MAX_SURPRISE = 100
MAX_DIFFICULTY = 1000


def _rule_text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _health(c: Combatant) -> str:
    if c.status in ("dead", "out"):
        return c.status
    if c.last_gasp is not None:
        return "stabilised" if c.last_gasp.stabilised else "Last Gasp"
    return "unhurt" if c.hp >= c.sheet.hp_max else "wounded"


def _conditions(state: D6State, c: Combatant) -> tuple[str, ...]:
    out: list[str] = []
    stacks = stagger_stacks_of(state, c)
    if stacks:
        out.append("staggered" if stacks == 1 else f"staggered ×{stacks}")
    if c.overwhelmed:
        out.append("overwhelmed (save 8)")
    if c.prone:
        out.append("prone")
    if is_pinned(state, c.id):
        out.append("pinned")
    if c.hidden_from:
        out.append("hidden")
    if c.engaged_with:
        names = (state.get(e).name for e in c.engaged_with if state.has(e))
        out.append("engaged with " + ", ".join(names))
    d = c.defense
    if d is not None:
        if d.stance == "block":
            out.append(f"block (shield AV {c.sheet.shield_av})")
        else:
            out.append(f"{d.stance} {d.value} ({len(d.met)}/{d.limit})")
        if d.total:
            out.append("total defense")
    return tuple(out)


def _action_text(names: dict[str, str], a: PlannedAction) -> str:
    """How the tracker shows a declared action (``names``: the combatants' by id, looked up once for the
    whole plan, which is shown after every change of its turn)."""
    target = names.get(a.target, a.target)
    k = a.kind
    if k == "attack":
        text = f"attack {target}" + (f" with {a.weapon}" if a.weapon else "")
        text += " (called shot)" if a.called else ""
        text += " (flank)" if a.backstab else ""
    elif k == "defend":
        text = f"total {a.stance}" if a.total else a.stance
    elif k == "grapple":
        text = f"grapple {a.move} {target}"
    elif k in ("heal", "disengage"):
        text = f"{k} {target}"
    elif k == "move":
        text = f"move {a.distance}" + (", leaving melee" if a.leave_melee else "")
    elif k == "check":
        text = f"check {a.stat}" + (f" ({a.note})" if a.note else "")
    elif k == "stealth" and a.of_move:
        text = "the move's stealth check"
    elif k == "death_save":
        text = f"Death Save ({a.stat})"
    elif k == "free":
        text = a.note or "free action"
    else:
        text = k.replace("_", " ")
    return f"{text} (free)" if a.free else text


def _plan_note(state: D6State) -> str | None:
    plan = state.plan
    if plan is None or not plan.actions or not state.has(plan.actor):
        return None
    pen = multi_action_penalty(plan.actions, state.get(plan.actor).sheet)
    names = state.names()
    told = runs([_action_text(names, a) for a in plan.actions])  # a run of one action: ``attack T ×3``
    text = ", ".join(t if first == last else f"{t} ×{last - first + 1}" for first, last, t in told)
    # the penalty first: the tracker cuts a long note, and the penalty is what the table needs to see
    said = [*(["locked"] if plan.locked else []), *([f"−{pen.dice}D each"] if pen.dice else [])]
    return f"plan ({', '.join(said)}): {text}" if said else f"plan: {text}"


class D6System(D6Actions, BookHouseRules[HouseRules]):
    """``rules.encounter.System`` for the D6 campaign (RULES.md §3); the actions are ``D6Actions``
    (``adapter_actions.py``)."""

    name = "d6"
    title = "the D6 campaign"
    short_title = "D6"
    traits = Traits(
        declares_then_locks=True,
        melee_engagement=True,
        death_saves=True,
        rolls_dice_codes=True,
        turn_flow=(
            "Each round, combatants act in initiative order. On your turn you plan actions (`/attack`, "
            "`/defend`, `/move`, `/check`, `/free` …): each one after the first is −1D on every roll. `/lockin` "
            "resolves the plan and ends the turn (or `lock:true` on a single action). At 0 HP a character falls into Last Gasp "
            "and makes a Death Save on each of its turns."
        ),
    )
    house_book = HOUSE_BOOK

    # -- sheets --------------------------------------------------------------------------------------
    def new_sheet(self, name: str) -> Sheet:
        return sheet_from_dict({"name": name})

    def sheet_from_dict(self, raw: Mapping[str, Any]) -> Sheet:
        return sheet_from_dict(raw)

    def sheet_to_dict(self, sheet: Sheet) -> dict[str, Any]:
        return sheet.to_dict()

    def sheet_name(self, sheet: Sheet) -> str:
        return sheet.name

    def rename_sheet(self, sheet: Sheet, name: str) -> Sheet:
        return sheet_from_dict(sheet.to_dict() | {"name": name})

    def sheet_fields(self) -> tuple[str, ...]:
        return field_names()

    def set_sheet_field(self, sheet: Sheet, field: str, text: str) -> Sheet:
        return set_field(sheet, field, text)

    def weapon_names(self) -> tuple[str, ...]:
        return tuple(w.name for w in tables.weapons().values())

    def armour_names(self) -> tuple[str, ...]:
        armour, shields = tables.armour_and_shields()
        return (*(a.name for a in armour.values()), *(s.name for s in shields.values()))

    def sheet_weapons(self, sheet: Sheet) -> tuple[str, ...]:
        return tuple(w.name for w in sheet.weapons)

    def set_weapon(self, sheet: Sheet, name: str, *, remove: bool = False) -> Sheet:
        key = (name or "").strip().lower()
        carried = any(w.name.lower() == key for w in sheet.weapons)
        if remove:
            if not carried:
                sheet.weapon(name)  # InvalidInput listing the sheet's weapons
            return dataclasses.replace(
                sheet, weapons=tuple(w for w in sheet.weapons if w.name.lower() != key)
            )
        if carried:
            raise NotAllowed(f"{sheet.name} already carries a `{name}`.")
        return dataclasses.replace(sheet, weapons=(*sheet.weapons, tables.weapon(name)))

    def set_armour(
        self, sheet: Sheet, name: str, *, location: str | None = None, remove: bool = False
    ) -> Sheet:
        """Armour from the table sets name, AR and class; a shield sets ``shield_av``. Whole body only."""
        if location:
            raise InvalidInput("D6 armour covers the whole body; leave `location` out.")
        key = (name or "").strip().lower()
        armour, shields = tables.armour_and_shields()
        if key in armour:
            worn = armour[key]
            if not remove:
                return dataclasses.replace(
                    sheet, armour_name=worn.name, armour_ar=worn.ar, armour_class=worn.armour_class
                )
            if sheet.armour_name.lower() != key:
                raise NotFound(f"{sheet.name} does not wear `{worn.name}`.")
            return dataclasses.replace(sheet, armour_name="", armour_ar=0, armour_class="light")
        if key in shields:
            if not remove:
                return dataclasses.replace(sheet, shield_av=shields[key].av)
            if not sheet.has_shield:
                raise NotFound(f"{sheet.name} carries no shield.")
            return dataclasses.replace(sheet, shield_av=0)
        raise NotFound(f"No D6 armour or shield `{name}`. Choose one of: {', '.join(self.armour_names())}.")

    def sheet_view(self, sheet: Sheet) -> SheetView:
        attributes = tuple((a.capitalize(), str(getattr(sheet, a))) for a in ATTRIBUTES)
        skills = tuple((s.name, f"{s.dice} on {s.attribute.capitalize()}") for s in sheet.skills) or (
            ("—", "none"),
        )
        armour = (
            f"{sheet.armour_name or 'armour'}: AR {sheet.armour_ar}, {sheet.armour_class}"
            if sheet.armour_ar or sheet.armour_name
            else "none"
        )
        combat = (
            ("HP", f"{sheet.current_hp}/{sheet.hp_max}"),
            ("Save", f"{natural_save(sheet)} (natural)"),
            ("Free actions", str(sheet.free_actions)),
            ("Parry limit", f"{sheet.parry_limit} attackers"),
            ("Dodge limit", f"{sheet.dodge_limit} attacks"),
            ("Healing / restoration", f"level {sheet.healing_level} / level {sheet.restoration_level}"),
            ("Shield", f"AV {sheet.shield_av}" if sheet.has_shield else "none"),
            ("Armour", armour),
            ("Movement", f"{sheet.movement} (half free)"),
            (
                "Training",
                ", ".join(
                    t
                    for t, on in (
                        ("dual wield", sheet.dual_wield_trained),
                        ("unarmed", sheet.unarmed_trained),
                    )
                    if on
                )
                or "none",
            ),
        )
        weapons = tuple(
            (
                w.name,
                f"{w.damage} {w.kind}, {w.attribute.capitalize()}, {w.hands}-handed"
                + (f", skill {w.skill}" if w.skill else "")
                + (f", training {w.training}" if w.training else ""),
            )
            for w in sheet.weapons
        ) or (("—", "none"),)
        return SheetView(
            title=sheet.name,
            sections=(
                ("Attributes", attributes),
                ("Skills", skills),
                ("Combat", combat),
                ("Weapons", weapons),
            ),
        )

    def creature_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in tables.creatures().values())

    def creature_sheet(self, template: str, name: str) -> Sheet:
        return self.rename_sheet(tables.creature(template).sheet, name)

    # -- checks --------------------------------------------------------------------------------------
    def check_stats(self, sheet: Sheet) -> tuple[str, ...]:
        return (*ATTRIBUTES, *(s.name for s in sheet.skills))

    def check(
        self,
        sheet: Sheet,
        stat: str,
        difficulty: str | None,
        bonus: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        state: D6State | None = None,  # D6 checks read nothing from the encounter
        cid: str | None = None,
    ) -> Outcome[Sheet]:
        """A pool roll of the attribute (a skill adds its dice to its attribute) + ``bonus``; with a
        ``difficulty`` the total must beat it (higher; a tie fails)."""
        key = (stat or "").strip().lower()
        if key not in self.check_stats(sheet):
            raise InvalidInput(
                f"`{stat}` is not an attribute or skill of {sheet.name}. "
                f"Choose one of: {', '.join(self.check_stats(sheet))}."
            )
        target = None
        if difficulty is not None and difficulty.strip():
            try:
                target = int(difficulty.strip())
            except ValueError:
                raise InvalidInput(
                    f"A D6 difficulty is a target number to beat (0 to {MAX_DIFFICULTY}), not `{difficulty}`."
                ) from None
            if not 0 <= target <= MAX_DIFFICULTY:
                raise InvalidInput(f"A D6 difficulty is from 0 to {MAX_DIFFICULTY}, not {target}.")
        rolled = checks.check(sheet.name, sheet, key, dice, house, bonus=bonus)
        if target is None:
            return Outcome(sheet, (rolled,))
        verdict = "success" if rolled.total > target else "failure"
        note = Note(f"{rolled.total} against difficulty {target} (to beat): {verdict}")
        return Outcome(sheet, (rolled, note))

    # -- encounter state -----------------------------------------------------------------------------
    def new_state(self) -> D6State:
        return D6State()

    def state_to_dict(self, state: D6State) -> dict[str, Any]:
        return state.to_dict()

    def state_from_dict(self, raw: Mapping[str, Any]) -> D6State:
        return D6State.from_dict(raw)

    def add_combatant(
        self,
        state: D6State,
        cid: str,
        sheet: Sheet,
        *,
        side: str,
        distance: int,
        is_pc: bool,
        house: HouseRules,
        dice: DiceSource | None = None,  # unused: joining never rolls here
    ) -> Outcome[D6State]:
        """Enter with the sheet's current HP. After ``begin`` it joins the order from the next round."""
        side = " ".join((side or "").split()) or "party"
        if not (cid or "").strip():
            raise InvalidInput("A combatant needs an id.")
        if not 0 <= distance <= gm.MAX_DISTANCE:
            raise InvalidInput(f"Distance is from 0 to {gm.MAX_DISTANCE}, not {distance}.")
        out = gm.add_combatant(state, cid, sheet, side=side, distance=distance, is_pc=is_pc)
        if state.round > 0:
            note = Note(f"{sheet.name} joins the turn order from round {state.round + 1}.")
            return Outcome(out.state, (*out.events, note))
        return out

    def remove_combatant(self, state: D6State, cid: str, house: HouseRules) -> Outcome[D6State]:
        return gm.remove_combatant(state, cid)

    def begin(
        self, state: D6State, dice: DiceSource, house: HouseRules, *, attackers: str | None, surprise: int
    ) -> Outcome[D6State]:
        if state.round > 0:
            raise NotAllowed("The fight has already begun.")
        if not any(gm.takes_turns(c) for c in state.combatants):
            raise NotAllowed("Nobody here can take a turn: add combatants first (`/encounter join`, `add`).")
        if not -MAX_SURPRISE <= surprise <= MAX_SURPRISE:
            raise InvalidInput(f"Surprise is a flat bonus from −{MAX_SURPRISE} to {MAX_SURPRISE}.")
        side = ""
        if attackers and attackers.strip():
            sides = list(dict.fromkeys(c.side for c in state.combatants))
            matches = [s for s in sides if s.lower() == " ".join(attackers.split()).lower()]
            if not matches:
                raise InvalidInput(f"No combatant is on side `{attackers}`. Sides: {', '.join(sides)}.")
            side = matches[0]
        elif surprise:
            raise InvalidInput("Name the `attackers` side that gets the surprise bonus.")
        rolled = roll_initiative(state, dice, house, attackers=side, surprise=surprise)
        state, pool_events = recompute_pool(rolled.state, "fight begins")
        first = next(i for i, cid in enumerate(state.order) if gm.takes_turns(state.get(cid)))
        started = start_turn(dataclasses.replace(state, turn=first))
        return Outcome(started.state, (*rolled.events, *pool_events, *started.events))

    def turn(self, state: D6State) -> TurnStatus:
        if state.round == 0:
            return TurnStatus(key="setup", actors=(), label="Setup")
        key, label = f"{state.round}.{state.turn}", f"Round {state.round}"
        holder = state.current
        if holder is None or state.plan is None or not gm.takes_turns(state.get(holder)):
            return TurnStatus(key=f"{key}.idle", actors=(), label=label)
        return TurnStatus(key=key, actors=(holder,), label=label)

    def end_turn(self, state: D6State, cid: str, dice: DiceSource, house: HouseRules) -> Outcome[D6State]:
        who = state.get(cid)
        if state.round == 0:
            raise NotAllowed("The fight has not begun: the GM rolls initiative first (`/encounter begin`).")
        actors = self.turn(state).actors
        if cid not in actors:
            if not actors:
                raise NotAllowed("No turn is running now; the GM moves on with `/gm next`.")
            raise NotAllowed(f"It is {state.get(actors[0]).name}'s turn, not {who.name}'s.")
        return gm.advance(state, cid, dice, house)

    def gm_next(self, state: D6State, dice: DiceSource, house: HouseRules) -> Outcome[D6State]:
        if state.round == 0 or state.current is None:
            raise NotAllowed("No turn to move on from: begin the fight first (`/encounter begin`).")
        return gm.advance(state, state.current, dice, house, skip_death_save=True)

    # -- GM tools ------------------------------------------------------------------------------------
    def damage_locations(self, state: D6State, cid: str) -> tuple[str, ...]:
        state.get(cid)
        return ()

    def gm_damage(
        self,
        state: D6State,
        cid: str,
        amount: int,
        location: str | None,
        dice: DiceSource,
        house: HouseRules,
    ) -> Outcome[D6State]:
        if location:
            raise InvalidInput("D6 damage has no hit locations; leave `location` out.")
        return gm.gm_damage(state, cid, amount, house)

    def gm_heal(
        self,
        state: D6State,
        cid: str,
        amount: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        location: str | None = None,
    ) -> Outcome[D6State]:
        if location:
            raise InvalidInput("D6 HP are not kept per location: leave out `location`.")
        return gm.gm_heal(state, cid, amount)

    def gm_fields(self) -> tuple[str, ...]:
        return gm.GM_FIELDS

    def gm_set(
        self,
        state: D6State,
        cid: str,
        field: str,
        text: str,
        house: HouseRules,
        dice: DiceSource | None = None,
    ) -> Outcome[D6State]:
        return gm.gm_set(state, cid, field, text, house)

    def conditions(self) -> tuple[str, ...]:
        return gm.GM_CONDITIONS

    def gm_condition(
        self, state: D6State, cid: str, condition: str, remove: bool, house: HouseRules
    ) -> Outcome[D6State]:
        return gm.gm_condition(state, cid, condition, remove=remove)

    def new_instance(self, state: D6State, house: HouseRules) -> Outcome[D6State]:
        return gm.new_instance(state)

    # -- instances: what the party carries from one encounter to the next (``instance.py``) -----------
    def instance_record(
        self, stored: Mapping[str, Any] | None, state: D6State, keys: Mapping[str, str]
    ) -> dict[str, Any]:
        """The channel's instance after ``state`` (``keys``: combatant id → character key), stored form."""
        return instance.record(self._instance(stored), state, keys).to_dict()

    def instance_resume(self, state: D6State, stored: Mapping[str, Any] | None) -> D6State:
        """A new encounter's state continuing the channel's instance (its heal pool and number)."""
        return instance.resume(state, self._instance(stored))

    def instance_enter(
        self, state: D6State, cid: str, stored: Mapping[str, Any] | None, key: str
    ) -> Outcome[D6State]:
        """A PC that just joined takes up HP and Last Gasp state where the instance left that character."""
        return instance.enter(state, cid, self._instance(stored).carried(key))

    def instance_next(self, stored: Mapping[str, Any] | None) -> tuple[dict[str, Any], tuple[str, ...]]:
        """`/gm instance` between encounters: the next instance (stored form) and what to say about it."""
        after = instance.next_instance(self._instance(stored))
        return after.to_dict(), self.instance_lines(after.to_dict())

    def instance_lines(self, stored: Mapping[str, Any] | None) -> tuple[str, ...]:
        """The instance for `/encounter status` between fights: number, heal pool, the party's carried state."""
        inst = self._instance(stored)
        pool = inst.heal_pool
        head = (
            f"instance {inst.number}: heal pool {pool.remaining} of {pool.capacity} left ({pool.uses} used)"
        )
        return (head, *(c.describe() for _, c in inst.party))

    @staticmethod
    def _instance(stored: Mapping[str, Any] | None) -> instance.Instance:
        return instance.Instance.from_dict(stored) if stored else instance.Instance()

    def wounds(self, state: D6State, cid: str) -> tuple[str, ...]:
        return ()

    def set_wound_effect(
        self, state: D6State, cid: str, wound: int, effect: str, house: HouseRules
    ) -> Outcome[D6State]:
        raise NotAllowed("The D6 campaign has no wounds with effects of their own; use `/gm condition`.")

    def spend_luck(
        self, state: D6State, cid: str, house: HouseRules, *, pledge: bool = True
    ) -> Outcome[D6State]:
        raise NotAllowed("The D6 campaign has no Luck to add to initiative.")

    def refresh_sheet(self, state: D6State, cid: str, sheet: Sheet, house: HouseRules) -> Outcome[D6State]:
        """RULES.md §4: the character's current sheet reaches its combatant (the name it fights under and
        everything the fight changed, HP included, stay)."""
        combatant = state.get(cid)
        fresh = dataclasses.replace(sheet, name=combatant.sheet.name)
        if fresh == combatant.sheet:
            return Outcome(state, ())
        updated = dataclasses.replace(combatant, sheet=fresh)
        state = dataclasses.replace(
            state, combatants=tuple(updated if c.id == cid else c for c in state.combatants)
        )
        return Outcome(state, (Note(f"{combatant.name} fights with its edited sheet from now on."),))

    # -- reading -------------------------------------------------------------------------------------
    def tracker(self, state: D6State) -> TrackerView:
        begun = state.round > 0
        placed = tuple(cid for cid in state.order if state.has(cid)) if begun else ()
        rows = tuple(state.get(cid) for cid in placed) + tuple(
            c for c in state.combatants if c.id not in placed
        )
        notes: list[str] = []
        plan = _plan_note(state)
        if plan:
            notes.append(plan)
        turn = self.turn(state)
        if begun and not turn.actors:
            notes.append("No turn is running: the GM moves on with `/gm next`.")
        late = {c.id for c in gm.late_joiners(state)}
        for c in rows:
            if begun and c.next_initiative is not None:
                notes.append(f"{c.name}: initiative {c.next_initiative} from round {state.round + 1}")
            elif c.id in late:
                notes.append(f"{c.name} joins the turn order from round {state.round + 1}")
        if state.attackers:
            notes.append(f"attackers: {state.attackers}")
        pool = state.heal_pool
        return TrackerView(
            system=self.name,
            begun=begun,
            round=state.round if begun else None,
            order=tuple(self._row(state, c) for c in rows),
            current=turn.actors,
            grapples=tuple(GrappleView(g.a, g.b, g.counter, g.pinned_id()) for g in state.grapples),
            heal_pool=HealPoolView(size=pool.capacity, used=pool.uses, instance=state.instance),
            notes=tuple(notes),
        )

    @staticmethod
    def _row(state: D6State, c: Combatant) -> CombatantView:
        """``c``'s tracker row. All but its conditions come from ``c`` alone (frozen): the row made for it
        before is shown again while its conditions, which read the rest of the state, are the same."""
        conditions = _conditions(state, c)
        kept = c._row
        if kept is not None and kept[0] == conditions:
            return kept[1]  # type: ignore[no-any-return]
        lg = c.last_gasp
        row = CombatantView(
            id=c.id,
            name=c.name,
            side=c.side,
            is_pc=c.is_pc,
            initiative=c.initiative,
            hp=c.hp,
            hp_max=c.sheet.hp_max,
            health=_health(c),
            conditions=conditions,
            last_gasp_round=lg.rounds if lg is not None else None,
            stored_healing=lg.stored_healing if lg is not None else None,
            active=c.status == "active",
        )
        object.__setattr__(c, "_row", (conditions, row))  # a cache, not a change (``made_once``)
        return row


SYSTEM: System[D6State, Sheet, HouseRules] = D6System()

__all__ = ["SYSTEM", "D6System"]
