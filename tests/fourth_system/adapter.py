"""The duel behind ``rules.encounter.System``: each method translates its arguments to ``duel`` and builds
the views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.dice import DiceSource
from rules.encounter import (
    Action,
    CombatantView,
    SheetView,
    System,
    TrackerView,
    Traits,
    TurnStatus,
)
from rules.errors import InvalidInput, NotAllowed
from rules.events import Outcome
from rules.house_rules import BookHouseRules
from tests.fourth_system import duel
from tests.fourth_system.duel import BOOK, DuelState, HouseRules, Sheet


class DuelSystem(BookHouseRules[HouseRules]):
    name = "duel"
    title = "the Duel"
    short_title = "Duel"
    traits = Traits()
    house_book = BOOK

    # -- sheets --------------------------------------------------------------------------------------
    def new_sheet(self, name: str) -> Sheet:
        return duel.sheet_from_dict({"name": name})

    def sheet_from_dict(self, raw: Mapping[str, Any]) -> Sheet:
        return duel.sheet_from_dict(raw)

    def sheet_to_dict(self, sheet: Sheet) -> dict[str, Any]:
        return sheet.to_dict()

    def sheet_name(self, sheet: Sheet) -> str:
        return sheet.name

    def rename_sheet(self, sheet: Sheet, name: str) -> Sheet:
        return duel.set_field(sheet, "name", name)

    def sheet_fields(self) -> tuple[str, ...]:
        return duel.FIELDS

    def set_sheet_field(self, sheet: Sheet, field: str, text: str) -> Sheet:
        return duel.set_field(sheet, field, text)

    def weapon_names(self) -> tuple[str, ...]:
        return ()

    def armour_names(self) -> tuple[str, ...]:
        return ()

    def sheet_weapons(self, sheet: Sheet) -> tuple[str, ...]:
        return ()

    def set_weapon(self, sheet: Sheet, name: str, *, remove: bool = False) -> Sheet:
        raise NotAllowed("Duellists fight with their skill alone; there are no weapons to carry.")

    def set_armour(
        self, sheet: Sheet, name: str, *, location: str | None = None, remove: bool = False
    ) -> Sheet:
        raise NotAllowed("There is no armour in a duel.")

    def sheet_view(self, sheet: Sheet) -> SheetView:
        return SheetView(sheet.name, (("Stats", (("Skill", str(sheet.skill)), ("HP", str(sheet.hp)))),))

    def creature_names(self) -> tuple[str, ...]:
        return tuple(duel.TEMPLATES)

    def creature_sheet(self, template: str, name: str) -> Sheet:
        found = {k.lower(): v for k, v in duel.TEMPLATES.items()}.get((template or "").strip().lower())
        if found is None:
            raise InvalidInput(f"No template `{template}`. Templates: {', '.join(duel.TEMPLATES)}.")
        return duel.set_field(found, "name", name)

    # -- checks --------------------------------------------------------------------------------------
    def check_stats(self, sheet: Sheet) -> tuple[str, ...]:
        return ("skill",)

    def check(
        self,
        sheet: Sheet,
        stat: str,
        difficulty: str | None,
        bonus: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        state: DuelState | None = None,
        cid: str | None = None,
    ) -> Outcome[Sheet]:
        if (stat or "").strip().lower() != "skill":
            raise InvalidInput("A duel sheet has only `skill` to check.")
        return duel.check(sheet, bonus, dice)

    # -- encounter state -----------------------------------------------------------------------------
    def new_state(self) -> DuelState:
        return DuelState()

    def state_to_dict(self, state: DuelState) -> dict[str, Any]:
        return state.to_dict()

    def state_from_dict(self, raw: Mapping[str, Any]) -> DuelState:
        return DuelState.from_dict(raw)

    def add_combatant(
        self,
        state: DuelState,
        cid: str,
        sheet: Sheet,
        *,
        side: str,
        distance: int,
        is_pc: bool,
        house: HouseRules,
        dice: DiceSource | None = None,
    ) -> Outcome[DuelState]:
        return duel.add(state, cid, sheet, side, is_pc)

    def remove_combatant(self, state: DuelState, cid: str, house: HouseRules) -> Outcome[DuelState]:
        return duel.remove(state, cid)

    def begin(
        self, state: DuelState, dice: DiceSource, house: HouseRules, *, attackers: str | None, surprise: int
    ) -> Outcome[DuelState]:
        return duel.begin(state)

    def turn(self, state: DuelState) -> TurnStatus:
        current = state.current
        if current is None:
            return TurnStatus(key="setup", actors=(), label="Setup")
        return TurnStatus(
            key=f"{state.round}.{state.turn}", actors=(current.id,), label=f"Round {state.round}"
        )

    def end_turn(self, state: DuelState, cid: str, dice: DiceSource, house: HouseRules) -> Outcome[DuelState]:
        return duel.end_turn(state, cid)

    def gm_next(self, state: DuelState, dice: DiceSource, house: HouseRules) -> Outcome[DuelState]:
        return duel.next_turn(state)

    # -- actions -------------------------------------------------------------------------------------
    def act(
        self, state: DuelState, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[DuelState]:
        if action.kind != "attack":
            raise NotAllowed("In a duel there is only `/attack`.")
        if not action.target:
            raise InvalidInput("Name the combatant to attack (`target`).")
        return duel.attack(state, action.actor, action.target, dice, house)

    def choices(self, state: DuelState, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        return ()

    def choice_label(
        self, state: DuelState, actor: str | None, option: str, value: str, action: Action
    ) -> str:
        return value

    def allowed_actions(self, state: DuelState, actor: str) -> tuple[str, ...]:
        current = state.current
        if current is None or current.id != actor or state.attacked:
            return ()
        return ("attack",)

    # -- GM tools ------------------------------------------------------------------------------------
    def damage_locations(self, state: DuelState, cid: str) -> tuple[str, ...]:
        return ()

    def gm_damage(
        self,
        state: DuelState,
        cid: str,
        amount: int,
        location: str | None,
        dice: DiceSource,
        house: HouseRules,
    ) -> Outcome[DuelState]:
        return duel.change_hp(state, cid, -amount)

    def gm_heal(
        self,
        state: DuelState,
        cid: str,
        amount: int,
        dice: DiceSource,
        house: HouseRules,
        *,
        location: str | None = None,
    ) -> Outcome[DuelState]:
        if location:
            raise InvalidInput("A duel has no locations: leave out `location`.")
        return duel.change_hp(state, cid, amount)

    def gm_fields(self) -> tuple[str, ...]:
        return duel.GM_FIELDS

    def gm_set(
        self,
        state: DuelState,
        cid: str,
        field: str,
        text: str,
        house: HouseRules,
        dice: DiceSource | None = None,
    ) -> Outcome[DuelState]:
        return duel.gm_set(state, cid, field, text)

    def conditions(self) -> tuple[str, ...]:
        return duel.CONDITIONS

    def gm_condition(
        self, state: DuelState, cid: str, condition: str, remove: bool, house: HouseRules
    ) -> Outcome[DuelState]:
        return duel.set_condition(state, cid, condition, remove)

    def new_instance(self, state: DuelState, house: HouseRules) -> Outcome[DuelState]:
        raise NotAllowed("A duel has no heal-pool instances.")

    def wounds(self, state: DuelState, cid: str) -> tuple[str, ...]:
        return ()

    def set_wound_effect(
        self, state: DuelState, cid: str, wound: int, effect: str, house: HouseRules
    ) -> Outcome[DuelState]:
        raise NotAllowed("A duel has no wounds with effects of their own; use `/gm condition`.")

    def spend_luck(
        self, state: DuelState, cid: str, house: HouseRules, *, pledge: bool = True
    ) -> Outcome[DuelState]:
        raise NotAllowed("A duel has no Luck to add to initiative.")

    def refresh_sheet(
        self, state: DuelState, cid: str, sheet: Sheet, house: HouseRules
    ) -> Outcome[DuelState]:
        return Outcome(state, ())  # a duel sheet is its skill alone, copied at the start of the fight

    # -- reading -------------------------------------------------------------------------------------
    def tracker(self, state: DuelState) -> TrackerView:
        rows = tuple(state.get(cid) for cid in state.order) if state.begun else state.combatants
        current = state.current
        return TrackerView(
            system=self.name,
            begun=state.begun,
            round=state.round if state.begun else None,
            order=tuple(
                CombatantView(
                    id=c.id,
                    name=c.name,
                    side=c.side,
                    is_pc=c.is_pc,
                    initiative=c.skill,
                    hp=c.hp,
                    hp_max=c.hp_max,
                    health="down" if c.out else ("unhurt" if c.hp == c.hp_max else "wounded"),
                    conditions=c.conditions,
                    active=not c.out,
                )
                for c in rows
            ),
            current=(current.id,) if current is not None else (),
        )


SYSTEM: System[DuelState, Sheet, HouseRules] = DuelSystem()

__all__ = ["SYSTEM", "DuelSystem"]
