"""The inputs a real Kaernest table needs (RULES.md §4): wounds on checks, Luck on initiative, initiative
ties, attack options (enchantment, circumstance, element, GM speed beyond a minute), bare hands and custom
weapons, a wound's effect, reserved names, sheet edits reaching the combatant. Through ``SYSTEM`` as the
shell calls it, with exact scripted dice."""

import pytest

from rules.dice import ScriptedDice
from rules.encounter import Action
from rules.errors import InvalidInput, NotAllowed, ValidationError
from rules.systems.kaernest.adapter import SYSTEM as K

from .helpers import fighter, kinds

HOUSE = K.default_house()


def izuki(**fields):
    fields.setdefault("weapons", ("Sword, Short",))
    fields.setdefault("instinct", 5)
    return fighter("Izuki", grace=6, skills={"Swords": 5}, **fields)


def andretti(**fields):
    fields.setdefault("weapons", ("Club, War",))
    fields.setdefault("instinct", 4)
    return fighter("Andretti", grace=7, reflex=6, health=8, skills={"Clubs/Maces": 7}, **fields)


def joined(entries, house=HOUSE, luck=()):
    """Join in order; the ids in ``luck`` pledge their Luck as they join (what `/encounter join luck` does)."""
    state = K.new_state()
    for cid, sheet in entries:
        state = K.add_combatant(state, cid, sheet, side=cid, distance=0, is_pc=True, house=house).state
        if cid in luck:
            state = K.spend_luck(state, cid, house).state
    return state


def begin(state, script, house=HOUSE):
    with ScriptedDice(script) as dice:
        return K.begin(state, dice, house, attackers=None, surprise=0)


def duel(**izuki_fields):
    """Izuki 12 + 5 = 17 declares first; Andretti 8 + 4 = 12."""
    return begin(joined([("izuki", izuki(**izuki_fields)), ("andretti", andretti())]), [12, 8]).state


def act(state, script=(), **fields):
    with ScriptedDice(script) as dice:
        return K.act(state, Action(**fields), dice, HOUSE)


def first(events, kind):
    return next(e for e in events if e.kind == kind)


# --- wounds on /check in an encounter -------------------------------------------------------------------------
def test_a_wound_lowers_a_check_target_by_1_in_the_encounter():
    state = duel()
    state = K.gm_damage(state, "izuki", 8, None, ScriptedDice([]), HOUSE).state  # > 1.5 × Health 5: a wound
    sheet = state.get("izuki").sheet
    with ScriptedDice([3, 3]) as dice:
        outside = K.check(sheet, "Grace", None, 0, dice, HOUSE).events[0]
    with ScriptedDice([3, 3]) as dice:
        inside = K.check(sheet, "Grace", None, 0, dice, HOUSE, state=state, cid="izuki").events[0]
    assert (outside.target, inside.target) == (6, 5)
    assert ("wounds", -1) in [(m.label, m.value) for m in inside.modifiers]


# --- Luck on initiative ---------------------------------------------------------------------------------------
def test_luck_pledged_at_join_is_added_once_and_used_up():
    state = joined([("izuki", izuki(luck=3)), ("andretti", andretti())], luck=("izuki",))
    assert state.get("izuki").spend_luck
    out = begin(state, [9, 8])
    rolled = first(out.events, "InitiativeRolled")
    assert [(m.label, m.value) for m in rolled.modifiers] == [("Instinct", 5), ("Luck", 3)]
    assert rolled.initiative == 17
    assert first(out.events, "LuckSpent").luck == 3
    izuki_now = out.state.get("izuki")
    assert (izuki_now.sheet.luck, izuki_now.spend_luck) == (0, False)


def test_luck_before_begin_and_its_refusals():
    state = joined([("izuki", izuki(luck=2)), ("andretti", andretti())])
    out = K.spend_luck(state, "izuki", HOUSE)
    assert kinds(out.events) == ["LuckPledged"]
    with pytest.raises(NotAllowed, match="already spends"):
        K.spend_luck(out.state, "izuki", HOUSE)
    with pytest.raises(NotAllowed, match="no Luck"):
        K.spend_luck(state, "andretti", HOUSE)
    strict = K.set_house_rule(HOUSE, "luck_on_initiative", "off")
    with pytest.raises(NotAllowed, match="luck_on_initiative"):
        K.spend_luck(state, "izuki", strict)
    with pytest.raises(NotAllowed, match="luck_on_initiative"):
        joined([("izuki", izuki(luck=2))], house=strict, luck=("izuki",))
    after = begin(out.state, [1, 1]).state
    with pytest.raises(NotAllowed, match="already has initiative"):
        K.spend_luck(after, "izuki", HOUSE)


# --- initiative ties ------------------------------------------------------------------------------------------
def test_equal_initiative_goes_to_higher_instinct_and_the_announcement_says_so():
    state = joined([("a", fighter("A", instinct=4)), ("b", fighter("B", instinct=5))])
    out = begin(state, [6, 5])  # both 10
    tie = first(out.events, "InitiativeTied")
    assert (tie.initiative, tie.combatants, tie.instincts, tie.dice) == (10, ("b", "a"), (5, 4), ())
    assert K.turn(out.state).actors == ("b",)


def test_equal_initiative_and_instinct_roll_off_once_after_the_initiative_dice():
    state = joined([("a", fighter("A")), ("b", fighter("B")), ("c", fighter("C"))])
    out = begin(state, [5, 5, 1, 3, 3, 2, 9])  # a, b 10; c 6; roll-offs a 3, b 3 (tied again), a 2, b 9
    tie = first(out.events, "InitiativeTied")
    assert [d.label for d in tie.dice] == ["initiative roll-off A", "initiative roll-off B"] * 2
    assert (tie.combatants, tie.rolloffs) == (("b", "a"), ((3, 9), (3, 2)))
    assert K.turn(out.state).actors == ("b",)
    # Kept for the fight: the order never rolls again.
    assert out.state.get("a").rolloff == (3, 2)


def test_a_gm_set_initiative_that_ties_rolls_off_with_the_dice_given():
    # Different Instinct: no dice needed, the tie is still announced.
    out = K.gm_set(duel(), "andretti", "initiative", "17", HOUSE)
    assert first(out.events, "InitiativeTied").combatants == ("izuki", "andretti")
    # Same Instinct: a roll-off, refused without dice (nothing changes), rolled with them.
    state = begin(joined([("izuki", izuki()), ("andretti", andretti(instinct=5))]), [12, 7]).state
    with pytest.raises(NotAllowed, match="roll-off"):
        K.gm_set(state, "andretti", "initiative", "17", HOUSE)
    out = K.gm_set(state, "andretti", "initiative", "17", HOUSE, dice=ScriptedDice([4, 6]))
    tie = first(out.events, "InitiativeTied")
    assert (tie.combatants, tie.rolloffs) == (("andretti", "izuki"), ((6,), (4,)))


# --- attack options -------------------------------------------------------------------------------------------
def test_enchantment_and_circumstance_add_to_damage():
    # Izuki's short sword (speed 5) lands at 12, before Andretti declares there: target 5 + 6 + 3 − 6 = 8.
    out = act(
        duel(),
        [2, 2],
        kind="attack",
        actor="izuki",
        target="andretti",
        damage_type="pierce",
        enchantment=2,
        circumstance=-1,
    )
    damage = first(out.events, "DamageRolled")
    assert [(m.label, m.value) for m in damage.modifiers] == [
        ("Muscle 5/2", 2),
        ("Sword, Short pierce 1h", 5),
        ("enchantment", 2),
        ("circumstance", -1),
    ]
    assert damage.total == 8


def test_energy_and_arcane_attacks_meet_other_armour_ratings():
    state = begin(joined([("izuki", izuki()), ("andretti", andretti(armour="Padded Armour"))]), [12, 8]).state
    out = act(
        state, [2, 2], kind="attack", actor="izuki", target="andretti", damage_type="pierce", element="energy"
    )
    assert out.events[0].element == "energy"
    damage = first(out.events, "DamageRolled")
    assert (damage.armour_name, damage.armour) == ("Padded Armour", 3)  # Energy 3, not Physical 2
    state = begin(
        joined([("izuki", izuki()), ("andretti", andretti(armour="Hardened Leather"))]), [12, 8]
    ).state
    out = act(
        state, [2, 2], kind="attack", actor="izuki", target="andretti", damage_type="pierce", element="arcane"
    )
    resolved = first(out.events, "AttackResolved")
    assert resolved.defense == 6  # Reflex 6 − penalty 1 + arcane 1
    assert first(out.events, "DamageRolled").armour == 0  # arcane armour adds to defense instead
    with pytest.raises(InvalidInput, match="element"):
        act(state, kind="attack", actor="izuki", target="andretti", element="fire")


def test_a_gm_set_speed_may_run_past_a_minute():
    state = duel()
    out = act(state, kind="attack", actor="izuki", target="andretti", speed=75)
    declared = out.events[0]
    assert (declared.speed, declared.lands_minute, declared.lands_segment) == (75, 3, 2)
    assert [(m.label, m.value) for m in declared.speed_modifiers] == [("GM-set speed", 75)]
    out = act(state, kind="move", actor="izuki", cost=90)
    assert (out.events[0].lands_minute, out.events[0].lands_segment) == (4, 17)


# --- bare hands and custom weapons -----------------------------------------------------------------------------
def test_fists_strike_with_muscle_over_2_uncapped_at_the_house_speed():
    # Unarmed speed 4 from 17 lands at 13, before Andretti's 12: target 0 + 6 + 3 − 6 = 3; 1 + 1 hits.
    out = act(duel(muscle=9), [1, 1], kind="attack", actor="izuki", target="andretti", weapon="fists")
    declared = out.events[0]
    assert (declared.weapon, declared.speed, declared.lands_segment) == ("Unarmed", 4, 13)
    damage = first(out.events, "DamageRolled")
    assert [(m.label, m.value) for m in damage.modifiers] == [("Muscle 9/2", 4), ("Unarmed bludgeon 1h", 0)]
    assert damage.total == 4


def test_a_custom_weapon_on_the_sheet_is_carried_and_round_trips():
    row = {"name": "Oar", "handed": "2", "speed": "7", "bludgeon": "5", "skill": "Clubs/Maces"}
    raw = {**izuki().to_dict(), "custom_weapons": [row], "weapons": ["Oar"]}
    sheet = K.sheet_from_dict(raw)
    assert K.sheet_from_dict(K.sheet_to_dict(sheet)) == sheet
    assert K.sheet_weapons(sheet) == ("Oar",)
    state = begin(joined([("izuki", sheet), ("andretti", andretti())]), [12, 8]).state
    out = act(state, kind="attack", actor="izuki", target="andretti")
    assert (out.events[0].weapon, out.events[0].grip, out.events[0].speed) == ("Oar", 2, 7)
    with pytest.raises(ValidationError, match="custom_weapons"):
        K.sheet_from_dict({**raw, "custom_weapons": [{**row, "speed": "fast"}]})


# --- the GM writes a wound's effect -----------------------------------------------------------------------------
def test_the_gm_sets_a_wounds_effect():
    state = duel()
    state = K.gm_damage(state, "andretti", 13, "left arm", ScriptedDice([]), HOUSE).state
    out = K.set_wound_effect(state, "andretti", 1, "drops the club", HOUSE)
    assert first(out.events, "WoundEffectSet").effect == "drops the club"
    assert K.wounds(out.state, "andretti") == ("1: 13 damage to left arm — drops the club",)
    with pytest.raises(InvalidInput, match="1 wound"):
        K.set_wound_effect(state, "andretti", 2, "x", HOUSE)


# --- reserved names ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hp", "HP", "hp_max", "damage"])
def test_reserved_names_are_not_skills(name):
    with pytest.raises(InvalidInput, match="cannot be a skill"):
        K.set_sheet_field(izuki(), name, "20")
    with pytest.raises(ValidationError, match="reserved"):
        K.sheet_from_dict({**izuki().to_dict(), "skills": {name: 3}})


# --- sheet edits reach the combatant --------------------------------------------------------------------------
def test_a_sheet_refresh_takes_equipment_and_skills_and_keeps_luck_and_damage():
    state = duel(luck=2)
    state = K.gm_damage(state, "izuki", 3, None, ScriptedDice([]), HOUSE).state
    edited = K.set_sheet_field(K.set_weapon(state.get("izuki").sheet, "Dagger/Knife"), "Swords", "7")
    edited = K.set_sheet_field(edited, "Luck", "5")
    out = K.refresh_sheet(state, "izuki", edited, HOUSE)
    assert set(first(out.events, "SheetRefreshed").changes) == {"skill Swords 5 → 7", "weapon + Dagger/Knife"}
    izuki_now = out.state.get("izuki")
    assert (izuki_now.damage, izuki_now.sheet.luck, izuki_now.sheet.skill("Swords")) == (3, 2, 7)
    assert K.refresh_sheet(out.state, "izuki", edited, HOUSE).events == ()


def test_a_custom_weapon_can_be_defined_with_character_set():
    sheet = K.set_sheet_field(
        izuki(), "custom_weapon Oar", "handed 2, speed 7, bludgeon 5, skill Clubs/Maces"
    )
    assert sheet.weapons == ("Sword, Short", "Oar")
    oar = sheet.weapon("oar")
    assert (oar.grips, oar.speed(2), oar.damage("bludgeon", 2), oar.skill) == ((2,), 7, 5, "Clubs/Maces")
    assert K.sheet_from_dict(K.sheet_to_dict(sheet)) == sheet
    gone = K.set_sheet_field(sheet, "custom_weapon Oar", "none")
    assert gone.weapons == ("Sword, Short",) and gone.custom_weapons == ()
    with pytest.raises(ValidationError, match="speed"):
        K.set_sheet_field(izuki(), "custom_weapon Oar", "handed 2, speed fast, bludgeon 5, skill Clubs")
