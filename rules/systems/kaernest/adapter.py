"""Kaernest behind ``rules.encounter.System``: a thin translation onto the pure core (the section modules).

Readings the protocol leaves to each system (RULES.md §2; COMMANDS.md):

- **Turn.** Whose turn it is: the combatant that owes a declaration at the current segment. Several may owe
  one on the same segment; the core takes them one at a time, higher initiative first, so only the first is
  named (the tracker notes the others). ``key`` is ``"<turn_serial>.<tick>.<actor>"``: the serial grows with
  every turn pass (begin, ``end_turn``, ``gm_next``, a ``gm_set`` on the timeline), so a key never repeats.
- **Clock.** Only ``begin``, ``end_turn`` and ``gm_next`` move the clock: each ends with ``advance``, which
  resolves every landing on the way and stops where someone owes a declaration. Other GM tools
  (damage, heal, set, condition) never resolve anything; when they leave nobody on turn, ``/gm next`` moves on.
- **Initiative.** Rolled at ``begin`` by the core (NPCs per house rule ``npc_initiative``). Combatants that are
  up without initiative (joined after ``begin``, or woken by ``gm_heal``/``gm_set damage``) roll at the next
  ``gm_heal``, ``end_turn`` or ``gm_next``: those are the calls that carry dice.
- **Surprise.** A flat bonus added to the roll of every combatant of the ``attackers`` side (a ``Note`` and
  a ``surprise`` term in each ``InitiativeRolled`` show it), kept within 1 … 30, before ties are settled.
  ``attackers`` has no other meaning here.
- **NPCs.** ``is_pc`` decides the sheet's ``npc`` flag in the encounter (the NPC initiative rule reads it);
  ``distance`` has no Kaernest meaning. A sheet equal to a creature template (apart from its name) enters in
  the template's posture (the Berserker is aggressive).
- **Checks.** ``stat`` is an attribute, a skill, or ``"Attribute + Skill"``; ``difficulty`` is empty or a
  signed whole number added to the target with ``bonus`` (Kaernest has no difficulty ladder). In an
  encounter the shell passes ``state`` and the combatant ``cid``: its wound penalty applies (RULES.md §4).
- **Luck.** ``spend_luck`` (at `/encounter join`, or before its initiative is rolled): the roll adds Luck,
  which is then used up for the fight (``initiative.py``).
- **Initiative ties.** Higher Instinct, then a kept d12 roll-off (RULES.md §4), announced by
  ``InitiativeTied``; a ``gm_set initiative`` that makes a new tie rolls it off with the ``dice`` given.
- **Wound effects.** ``set_wound_effect``: the GM writes what a (called-shot) wound does.
- **Sheet refresh.** ``refresh_sheet`` (the shell, when a combatant's turn comes): skills, attributes,
  weapons and armour from the character's current sheet; damage, wounds, Luck spent, initiative and the
  NPC flag are encounter state and stay.
- **GM damage.** One hit through the core: a wound over 1.5×Health, unconscious over 4×, dying over 5×.
  A ``location`` is recorded on the wound it causes, which makes it a called-shot wound (its effect is
  written by the GM instead of the −1, unless the house rule ``called_wound_penalty`` adds it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rules.dice import DiceSource
from rules.encounter import CombatantView, SheetView, System, TrackerView, Traits, TurnStatus
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Note, Outcome
from rules.house_rules import BookHouseRules
from rules.systems.kaernest import check as checks
from rules.systems.kaernest import clock, creatures, defense, initiative, refresh, tables, timeline
from rules.systems.kaernest import encounter as roster
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest import state as states
from rules.systems.kaernest.adapter_actions import KaernestActions
from rules.systems.kaernest.house import BOOK as HOUSE_BOOK
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import Combatant, KaernestState, order_key

GM_FIELDS: tuple[str, ...] = ("initiative", "segment", "posture", "damage", "luck", "side")
# Postures reached through `/gm condition` (the word shown in the tracker first), then free conditions.
_POSTURE_WORDS = {
    "aggressive": "aggressive",
    "berserk": "aggressive",
    "active": "active",
    "defensive": "active",
    "unaware": "none",
    "none": "none",
}
_POSTURE_SHOWN = {"aggressive": "aggressive", "active": "active", "none": "unaware"}
CONDITIONS: tuple[str, ...] = (
    "aggressive",
    "active",
    "unaware",
    "prone",
    "blinded",
    "deafened",
    "stunned",
    "grappled",
    "hidden",
)
MAX_SURPRISE = 30


def stamp(tick: int) -> str:
    """A time as players write it: minute 2, segment 6 → ``2:06``."""
    return f"{clock.minute_of(tick)}:{clock.segment_of(tick):02d}"


def _whole(name: str, text: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise InvalidInput(f"`{name}` takes a whole number, not `{text}`.") from None


def _parse_time(state: KaernestState, text: str) -> int:
    """``17`` (the next segment 17, this minute if still to come) or ``2:17`` (minute 2, segment 17)."""
    raw = (text or "").strip().replace(".", ":")
    try:
        if ":" in raw:
            minute, segment = (int(p) for p in raw.split(":", 1))
            return clock.tick_of(minute, segment)
        return clock.first_tick(int(raw), state.tick)
    except ValueError:
        raise InvalidInput(
            f"`{text}` is not a segment: write `17` (the next segment 17) or `2:17` (minute 2, segment 17)."
        ) from None


def _health_word(c: Combatant) -> str:
    if not c.up:
        return c.condition
    return "wounded" if c.damage > 0 else "unhurt"


def _pending_text(state: KaernestState, c: Combatant) -> str | None:
    p = c.pending
    if p is None:
        return None
    when = stamp(p.lands_tick)
    if p.kind == "attack":
        target = state.get(p.target).name if p.target and state.has(p.target) else "a departed foe"
        called = f" ({p.called_location})" if p.called_location else ""
        return f"attack on {target}{called}, lands {when}"
    if p.kind == "defend":
        return f"defend, lands {when}"
    return f"{p.description or 'action'}, lands {when}"


def _template_posture(sheet: Sheet) -> str:
    for template in creatures.creatures():
        if dataclasses.replace(template.sheet, name=sheet.name) == sheet:
            return template.posture
    return "passive"


class KaernestSystem(KaernestActions, BookHouseRules[HouseRules]):
    name = "kaernest"
    title = "Kaernest"
    short_title = "Kaernest"
    traits = Traits(
        segment_timeline=True,
        # RULES.md §4: a bonus, a circumstance and a GM-set speed are the GM's. Decided where it is silent:
        # the enchantment and the element are the player's to state, being the item's own (the seed:
        # "Enchantments are specifically long term magical effects imbued into items").
        gm_options=("bonus", "circumstance", "speed", "cost"),
        turn_flow=(
            "Time runs in segments, 30 down to 1 in each minute. On your segment you declare an action: an "
            "attack lands `speed` segments later, when the clock gets there. Your posture (`/defend`: passive, "
            "active, aggressive) sets your defense, and an active defense can interrupt an attack; "
            "`/turn end` waits one segment."
        ),
        downed_note="Striking the unconscious is legal in Kaernest.",
    )
    house_book = HOUSE_BOOK

    # -- sheets --------------------------------------------------------------------------------------
    def new_sheet(self, name: str) -> Sheet:
        return sheets.new_sheet(name)

    def sheet_from_dict(self, raw: Mapping[str, Any]) -> Sheet:
        return sheets.from_dict(dict(raw) if isinstance(raw, Mapping) else raw)  # type: ignore[arg-type]

    def sheet_to_dict(self, sheet: Sheet) -> dict[str, Any]:
        return sheet.to_dict()

    def sheet_name(self, sheet: Sheet) -> str:
        return sheet.name

    def rename_sheet(self, sheet: Sheet, name: str) -> Sheet:
        return sheets.set_field(sheet, "name", name)

    def sheet_fields(self) -> tuple[str, ...]:
        return sheets.field_names()

    def set_sheet_field(self, sheet: Sheet, field: str, text: str) -> Sheet:
        return sheets.set_field(sheet, field, text)

    def weapon_names(self) -> tuple[str, ...]:
        return tables.weapon_names()

    def armour_names(self) -> tuple[str, ...]:
        return tables.armour_names()

    def sheet_weapons(self, sheet: Sheet) -> tuple[str, ...]:
        return sheet.weapons

    def set_weapon(self, sheet: Sheet, name: str, *, remove: bool = False) -> Sheet:
        return sheets.remove_weapon(sheet, name) if remove else sheets.add_weapon(sheet, name)

    def set_armour(
        self, sheet: Sheet, name: str, *, location: str | None = None, remove: bool = False
    ) -> Sheet:
        if location:
            raise InvalidInput("Kaernest armour covers the whole body: leave out the location.")
        if remove:
            if not sheet.armour or tables.armour(name).name != sheet.armour:
                raise NotAllowed(f"{sheet.name} does not wear {name}.")
            return sheets.set_field(sheet, "armour", "none")
        return sheets.set_field(sheet, "armour", name)

    def sheet_view(self, sheet: Sheet) -> SheetView:
        attributes = [(a.title(), str(getattr(sheet, a))) for a in sheets.ATTRIBUTES]
        if sheet.initiative_modifier:
            attributes.append(("Initiative modifier", f"{sheet.initiative_modifier:+d}"))
        skills = [(n, str(v)) for n, v in sheet.skills] or [("—", "no skills")]
        if sheet.defense_skill:
            skills.append(("Active defense with", sheet.defense_skill))
        weapons = []
        for name in sheet.weapons:
            w = sheet.weapon(name)
            grips = [
                f"{g}h speed {w.speed(g)}, "
                + ", ".join(f"{kind} {dict(pairs)[g]}" for kind, pairs in w.damages)
                for g in w.grips
            ]
            weapons.append((w.name, " · ".join([w.skill, *grips])))
        armour_row = sheet.armour_row()
        armour = (
            [
                ("Worn", armour_row.name),
                ("Physical", str(armour_row.physical)),
                ("Energy", str(armour_row.energy)),
                ("Arcane", str(armour_row.arcane)),
                ("Reflex penalty", str(armour_row.reflex_penalty)),
            ]
            if armour_row
            else [("Worn", "none")]
        )
        sections = [
            ("Attributes", tuple(attributes)),
            ("Skills", tuple(skills)),
            ("Weapons", tuple(weapons) or (("—", "none"),)),
            ("Armour", tuple(armour)),
        ]
        if sheet.notes:
            sections.append(("Notes", (("", sheet.notes),)))
        return SheetView(f"{sheet.name} (NPC)" if sheet.npc else sheet.name, tuple(sections))

    def creature_names(self) -> tuple[str, ...]:
        return creatures.creature_names()

    def creature_sheet(self, template: str, name: str) -> Sheet:
        return creatures.from_template(template, name)[0]

    # -- checks --------------------------------------------------------------------------------------
    def check_stats(self, sheet: Sheet) -> tuple[str, ...]:
        return tuple(a.title() for a in sheets.ATTRIBUTES) + tuple(n for n, _ in sheet.skills)

    def check(
        self,
        sheet: Sheet,
        stat: str,
        difficulty: str | None,
        bonus: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        state: KaernestState | None = None,
        cid: str | None = None,
    ) -> Outcome[Sheet]:
        extra = 0
        if difficulty is not None and difficulty.strip():
            try:
                extra = int(difficulty.strip())
            except ValueError:
                raise InvalidInput(
                    "Kaernest checks have no difficulty ladder: give a modifier to the target like `-3`, "
                    "or use `bonus`."
                ) from None
        stat_name, _, skill = (stat or "").partition("+")
        if not stat_name.strip():
            raise InvalidInput("Name an attribute, a skill, or `Attribute + Skill`.")
        wounds = state.get(cid).wound_penalty if state is not None and cid else 0
        event = checks.check(
            sheet,
            stat_name.strip(),
            dice,
            house,
            skill=skill.strip() or None,
            bonus=bonus + extra,
            wound_penalty=wounds,
        )
        return Outcome(sheet, (event,))

    # -- encounter state -----------------------------------------------------------------------------
    def new_state(self) -> KaernestState:
        return KaernestState()

    def state_to_dict(self, state: KaernestState) -> dict[str, Any]:
        return state.to_dict()

    def state_from_dict(self, raw: Mapping[str, Any]) -> KaernestState:
        return states.from_dict(dict(raw) if isinstance(raw, Mapping) else raw)  # type: ignore[arg-type]

    def add_combatant(
        self,
        state: KaernestState,
        cid: str,
        sheet: Sheet,
        *,
        side: str,
        distance: int,
        is_pc: bool,
        house: HouseRules,
        dice: DiceSource | None = None,  # unused: joining never rolls here
    ) -> Outcome[KaernestState]:
        posture = _template_posture(sheet)
        entered = dataclasses.replace(sheet, npc=not is_pc)
        return roster.add_combatant(state, cid, entered, side=side, posture=posture)  # type: ignore[arg-type]

    def spend_luck(
        self, state: KaernestState, cid: str, house: HouseRules, *, pledge: bool = True
    ) -> Outcome[KaernestState]:
        """Add (``pledge`` False: no longer add) the combatant's Luck to its initiative roll still to come."""
        return initiative.pledge_luck(state, cid, house, pledge=pledge)

    def remove_combatant(self, state: KaernestState, cid: str, house: HouseRules) -> Outcome[KaernestState]:
        return roster.remove_combatant(state, cid)

    def begin(
        self,
        state: KaernestState,
        dice: DiceSource,
        house: HouseRules,
        *,
        attackers: str | None,
        surprise: int,
    ) -> Outcome[KaernestState]:
        if state.begun:
            raise NotAllowed("This encounter has already begun.")
        if not state.combatants:
            raise NotAllowed("Nobody is in the encounter yet: add combatants first.")
        if isinstance(surprise, bool) or not isinstance(surprise, int) or abs(surprise) > MAX_SURPRISE:
            raise InvalidInput(f"`surprise` is a whole number from -{MAX_SURPRISE} to {MAX_SURPRISE}.")
        side = None
        if surprise and attackers:
            side = next(
                (c.side for c in state.combatants if c.side.lower() == attackers.strip().lower()), None
            )
            if side is None:
                sides = sorted({c.side for c in state.combatants})
                raise InvalidInput(f"Nobody is on the side `{attackers}`. Sides: {', '.join(sides)}.")
        bonus = {c.id: surprise for c in state.combatants if side is not None and c.side == side}
        out = initiative.roll_initiative(state, dice, house, surprise=bonus)
        state, events = out.state, list(out.events)
        if side is not None:
            events.insert(0, Note(f"Surprise: the {side} side adds {surprise:+d} to initiative."))
        state = dataclasses.replace(state, turn_serial=1)
        out = timeline.advance(state, dice, house)
        return Outcome(out.state, (*events, *out.events))

    def turn(self, state: KaernestState) -> TurnStatus:
        if not state.begun:
            return TurnStatus("setup", (), "Not begun")
        actor = timeline.on_turn(state)
        who = actor.id if actor else "-"
        return TurnStatus(
            f"{state.turn_serial}.{state.tick}.{who}",
            (actor.id,) if actor else (),
            f"Minute {state.minute}, segment {state.segment}",
        )

    def _settle(
        self, state: KaernestState, events: list[Event], dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        """Roll for anyone up without initiative, then run the clock to the next declaration."""
        for step in (initiative.roll_initiative, timeline.advance):
            out = step(state, dice, house)
            state = out.state
            events.extend(out.events)
        state = dataclasses.replace(state, turn_serial=state.turn_serial + 1)
        return Outcome(state, tuple(events))

    def _require_begun(self, state: KaernestState) -> None:
        if not state.begun:
            raise NotAllowed("The encounter has not begun yet: the GM starts it with `/encounter begin`.")

    def end_turn(
        self, state: KaernestState, cid: str, dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        self._require_begun(state)
        out = timeline.wait(state, cid, dice, house)  # NotAllowed unless cid owes the declaration now
        return self._settle(out.state, list(out.events), dice, house)

    def gm_next(self, state: KaernestState, dice: DiceSource, house: HouseRules) -> Outcome[KaernestState]:
        self._require_begun(state)
        events: list[Event] = []
        current = timeline.on_turn(state)
        if current is not None:
            out = timeline.wait(state, current.id, dice, house)
            state, events = out.state, list(out.events)
        out = self._settle(state, events, dice, house)
        if timeline.next_due(out.state).kind == "idle":
            return Outcome(out.state, (*out.events, Note("Nobody is on the timeline: nothing to move to.")))
        return out

    # -- GM tools ------------------------------------------------------------------------------------
    def damage_locations(self, state: KaernestState, cid: str) -> tuple[str, ...]:
        state.get(cid)
        return ()

    def gm_damage(
        self,
        state: KaernestState,
        cid: str,
        amount: int,
        location: str | None,
        dice: DiceSource,
        house: HouseRules,
    ) -> Outcome[KaernestState]:
        return roster.gm_damage(state, cid, amount, house, location=location)

    def gm_heal(
        self,
        state: KaernestState,
        cid: str,
        amount: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        location: str | None = None,
    ) -> Outcome[KaernestState]:
        if location:
            raise InvalidInput("Kaernest damage is not kept per location: leave out `location`.")
        out = roster.gm_heal(state, cid, amount)
        if not state.begun:
            return out
        rolled = initiative.roll_initiative(out.state, dice, house)  # back up: initiative again (seed)
        return Outcome(rolled.state, (*out.events, *rolled.events))

    def gm_fields(self) -> tuple[str, ...]:
        return GM_FIELDS

    def gm_set(
        self,
        state: KaernestState,
        cid: str,
        field: str,
        text: str,
        house: HouseRules,
        dice: DiceSource | None = None,  # a new initiative tie's roll-off
    ) -> Outcome[KaernestState]:
        key = (field or "").strip().lower()
        if key == "initiative":
            out = initiative.set_initiative(state, cid, _whole("initiative", text), dice)
        elif key == "segment":
            out = timeline.set_segment(state, cid, _parse_time(state, text))
        elif key == "posture":
            if defense.posture_of(text) == state.get(cid).posture:
                raise NotAllowed(f"{state.get(cid).name} is already {defense.posture_of(text)}.")
            out = defense.set_posture(state, cid, text)
        elif key == "damage":
            out = roster.set_damage(state, cid, _whole("damage", text))
        elif key == "luck":
            out = roster.set_luck(state, cid, _whole("luck", text))
        elif key == "side":
            out = roster.set_side(state, cid, text)
        else:
            raise InvalidInput(
                f"`{field}` is not a Kaernest combatant field. Fields: {', '.join(GM_FIELDS)}."
            )
        if key in ("initiative", "segment") and out.state.begun:
            out = Outcome(dataclasses.replace(out.state, turn_serial=out.state.turn_serial + 1), out.events)
        return out

    def set_wound_effect(
        self, state: KaernestState, cid: str, wound: int, effect: str, house: HouseRules
    ) -> Outcome[KaernestState]:
        """The GM writes the specific effect of wound ``wound`` (counted from 1) of ``cid``."""
        return roster.set_wound_effect(state, cid, wound, effect)

    def wounds(self, state: KaernestState, cid: str) -> tuple[str, ...]:
        """Each wound of ``cid`` in words, numbered from 1 (for the GM's choice of one)."""
        return tuple(
            f"{i}: {w.damage} damage"
            + (f" to {w.location}" if w.location else "")
            + (f" — {w.effect}" if w.effect else "")
            for i, w in enumerate(state.get(cid).wounds, start=1)
        )

    def refresh_sheet(
        self, state: KaernestState, cid: str, sheet: Sheet, house: HouseRules
    ) -> Outcome[KaernestState]:
        """The combatant fights with ``sheet`` (its character's, edited since it joined) from now on."""
        return refresh.refresh_sheet(state, cid, sheet)

    def conditions(self) -> tuple[str, ...]:
        return CONDITIONS

    def gm_condition(
        self, state: KaernestState, cid: str, condition: str, remove: bool, house: HouseRules
    ) -> Outcome[KaernestState]:
        word = (condition or "").strip().lower()
        posture = _POSTURE_WORDS.get(word)
        if posture is None:
            return roster.set_condition(state, cid, condition, remove=remove)
        c = state.get(cid)
        if remove:
            if c.posture != posture:
                raise NotAllowed(f"{c.name} is not {word}.")
            return defense.set_posture(state, cid, "passive")
        if c.posture == posture:
            raise NotAllowed(f"{c.name} is already {word}.")
        return defense.set_posture(state, cid, posture)

    def new_instance(self, state: KaernestState, house: HouseRules) -> Outcome[KaernestState]:
        raise NotAllowed("Only the D6 campaign has heal-pool instances.")

    # -- reading -------------------------------------------------------------------------------------
    def _row(self, state: KaernestState, c: Combatant) -> CombatantView:
        shown = [_POSTURE_SHOWN[c.posture]] if c.up and c.posture != "passive" else []
        return CombatantView(
            id=c.id,
            name=c.name,
            side=c.side,
            is_pc=not c.npc,
            initiative=c.initiative,
            damage=c.damage,
            health=_health_word(c),
            conditions=(*shown, *c.conditions),
            wounds=len(c.wounds),
            next_segment=stamp(c.ready_tick) if c.on_timeline else None,  # type: ignore[arg-type]
            pending=_pending_text(state, c),
            active=c.up,
        )

    def _notes(self, state: KaernestState) -> tuple[str, ...]:
        notes = []
        if state.begun:
            due = timeline.next_due(state)
            if due.kind == "idle":
                notes.append("Nobody is on the timeline.")
            elif timeline.on_turn(state) is None:
                what = "actions land" if due.kind == "resolve" else "declarations are due"
                notes.append(f"Nothing is due now; next, {what} at {stamp(due.tick)} (`/gm next`).")  # type: ignore[arg-type]
            elif len(due.combatants) > 1:
                later = ", ".join(state.get(i).name for i in due.combatants[1:])
                notes.append(f"Also declaring this segment, in order: {later}.")
            for c in state.combatants:
                if c.up and c.initiative is None:
                    notes.append(f"{c.name} has no initiative yet: it is rolled at the next turn change.")
        for c in state.combatants:
            for w in c.wounds:
                if w.location:
                    notes.append(f"{c.name}: wound to {w.location}" + (f" — {w.effect}" if w.effect else ""))
        return tuple(notes)

    def tracker(self, state: KaernestState) -> TrackerView:
        ordered = (
            sorted(state.combatants, key=order_key)
            if state.begun
            else sorted(state.combatants, key=lambda c: c.entry)
        )
        return TrackerView(
            system=self.name,
            begun=state.begun,
            minute=state.minute if state.begun else None,
            segment=state.segment if state.begun else None,
            order=tuple(self._row(state, c) for c in ordered),
            current=self.turn(state).actors,
            notes=self._notes(state),
        )


SYSTEM: System[KaernestState, Sheet, HouseRules] = KaernestSystem()
