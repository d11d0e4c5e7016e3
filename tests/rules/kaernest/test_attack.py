"""Attacks landing: target arithmetic, postures, criticals, margins around armour, damage, draw order."""

import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput, NotAllowed
from rules.systems.kaernest import defense, encounter, timeline
from rules.systems.kaernest.house import HouseRules

from .helpers import HOUSE, arena, fighter, kinds, run_to_turn

NONE = ScriptedDice([])


def attacker(**fields):
    base = dict(grace=7, muscle=10, skills={"Swords": 5}, weapons=("Sword, Short",))
    return fighter("Andretti", **{**base, **fields})


def defender(**fields):
    base = dict(reflex=9, health=10, weapons=("Dagger/Knife",))
    return fighter("Izuki", **{**base, **fields})


def land(script, house=HOUSE, posture="passive", a=None, d=None, **attack):
    """Andretti (init 20) attacks Izuki (init 1) with a short sword (speed 5): it lands at 15."""
    state = arena(("a", a or attacker(), 20), ("d", d or defender(), 1), posture={"d": posture})
    state, _ = run_to_turn(state, house=house)
    state = timeline.declare_attack(state, "a", "d", NONE, house, **attack).state
    return run_to_turn(state, script, house)


def terms(event):
    return [(m.label, m.value) for m in event.modifiers]


def test_target_is_skill_grace_3_modifiers_minus_passive_defense_with_armour_penalty():
    _state, events = land([6, 6], d=defender(armour="Chainmaille"), damage_type="pierce", bonus=1)
    hit = events[1]
    assert terms(hit) == [
        ("Swords", 5),
        ("Grace", 7),
        ("simple action", 3),
        ("bonus", 1),
        ("Izuki's defense (passive)", -7),  # Reflex 9 − Chainmaille's Reflex penalty 2
    ]
    assert (hit.target, hit.total, hit.margin, hit.hit, hit.critical) == (9, 12, -3, False, False)
    assert kinds(events) == ["ClockAdvanced", "AttackResolved"]  # a miss draws no damage dice


def test_exactly_the_target_is_a_critical_and_adds_a_d12_after_the_attack_dice():
    # target 15 - 9 = 6; roll 6 → critical; damage: Muscle 10/2 = 5 (cap pierce 5) + 5 + crit d12 7
    _state, events = land([3, 3, 7], damage_type="pierce")
    hit, dmg, taken = events[1:]
    assert (hit.target, hit.total, hit.critical, hit.hit) == (6, 6, True, True)
    assert terms(dmg) == [("Muscle 10/2", 5), ("Sword, Short pierce 1h", 5), ("critical d12", 7)]
    assert dmg.total == 17 and taken.total_damage == 17
    assert [d.label for d in dmg.dice] == ["critical"]
    assert [d.value for d in hit.dice + dmg.dice] == [3, 3, 7]


def test_one_under_the_target_is_not_critical():
    _state, events = land([2, 3], damage_type="pierce")
    assert events[1].hit and not events[1].critical and kinds(events)[-2:] == ["DamageRolled", "DamageTaken"]


def test_a_miss_by_12_is_a_critical_failure():
    _state, events = land([12, 12], d=defender(reflex=18))  # target 15 - 18 = -3, roll 24: missed by 27
    assert events[1].critical_failure and not events[1].hit


@pytest.mark.parametrize(
    ("bonus", "vital_die", "margin", "damage", "ignored", "vital"),
    [
        (0, [], 10, 10 - 2, False, False),  # by exactly 10: armour counts
        (1, [], 11, 10, True, False),  # by more than 10: armour ignored
        (10, [], 20, 10, True, False),  # by exactly 20: no vital die
        (11, [(12, 4)], 21, 14, True, True),  # by more than 20: + 1d12
    ],
)
def test_margins_around_the_armour_rules(bonus, vital_die, margin, damage, ignored, vital):
    # No defense (3): target = 15 + bonus − 3; roll 2. Padded Armour: Physical 2. Pierce 5 + Muscle 5.
    d = defender(armour="Padded Armour")
    _state, events = land([1, 1, *vital_die], posture="none", d=d, damage_type="pierce", bonus=bonus)
    hit, dmg = events[1], events[2]
    assert hit.margin == margin and hit.defense_posture == "none" and hit.defense == 3
    assert (dmg.total, dmg.armour_ignored, dmg.vital) == (damage, ignored, vital)
    assert dmg.armour == (0 if ignored else 2)


def test_muscle_bonus_is_capped_at_the_weapons_damage_for_that_use():
    a = attacker(muscle=12, skills={"Daggers": 5}, weapons=("Dagger/Knife",))
    _state, events = land([1, 1], a=a, damage_type="cut")  # Muscle 6, capped at the dagger's cut 1
    assert terms(events[2]) == [("Muscle 12/2 (capped)", 1), ("Dagger/Knife cut 1h", 1)]
    assert events[2].total == 2
    _state, events = land([1, 1], a=a, damage_type="pierce")  # cap 3
    assert terms(events[2])[0] == ("Muscle 12/2 (capped)", 3)
    a = attacker(muscle=5, skills={"Daggers": 5}, weapons=("Dagger/Knife",))
    _state, events = land([1, 1], a=a, damage_type="pierce")  # 5/2 = 2 < 3: no cap
    assert terms(events[2])[0] == ("Muscle 5/2", 2)


def test_enchantment_circumstance_and_energy_armour():
    d = defender(armour="Hardened Leather")  # Physical 5, Energy 5, arcane 1
    _state, events = land([1, 1], d=d, damage_type="pierce", enchantment=2, circumstance=-1, element="energy")
    dmg = events[2]
    assert terms(dmg)[2:] == [("enchantment", 2), ("circumstance", -1)]
    assert (dmg.raw, dmg.armour, dmg.total) == (11, 5, 6)


def test_arcane_attacks_add_arcane_armour_to_defense_and_ignore_its_damage_rating():
    d = defender(armour="Articulated Plate")  # Reflex penalty 3, arcane 2
    _state, events = land([1, 1], d=d, damage_type="pierce", element="arcane")
    hit, dmg = events[1], events[2]
    assert terms(hit)[-1] == ("Izuki's defense (passive)", -(9 - 3 + 2))
    assert (dmg.armour, dmg.total) == (0, 10)


def test_aggressive_defense_is_a_d12_minus_6_rolled_after_the_attack_dice():
    _state, events = land([4, 4, (12, 2)], posture="aggressive", damage_type="pierce")
    hit = events[1]
    assert (hit.defense_posture, hit.defense, hit.target) == ("aggressive", -4, 19)
    assert [(d.label, d.value) for d in hit.dice] == [("attack", 4), ("attack", 4), ("aggressive defense", 2)]
    # …rolled again for the next attack.
    _state, events = land([4, 4, (12, 12)], posture="aggressive", damage_type="pierce")
    assert events[1].defense == 6


def test_an_unconscious_defender_has_no_defense_whatever_its_posture():
    state = arena(("a", attacker(), 20), ("d", defender(health=2), 1), posture={"d": "active"})
    state = encounter.gm_damage(state, "d", 9, HOUSE).state
    assert state.get("d").condition == "unconscious"
    state, _ = run_to_turn(state)
    state = timeline.declare_attack(state, "a", "d", NONE, HOUSE, damage_type="pierce").state
    state, events = run_to_turn(state, [6, 5])
    assert (events[1].defense_posture, events[1].defense, events[1].target) == ("none", 3, 12)


def test_called_shot_costs_the_house_penalty_and_its_wound_records_the_location():
    d = defender(health=4)  # wound above 6
    state, events = land([1, 1], d=d, damage_type="pierce", called_location="sword arm")
    hit = events[1]
    assert terms(hit)[3] == ("called shot (sword arm)", -3)
    assert hit.called_location == "sword arm"
    wound = state.get("d").wounds[0]
    assert (wound.location, wound.penalty, wound.damage) == ("sword arm", 0, 10)
    # The GM writes the specific effect.
    state = encounter.set_wound_effect(state, "d", 1, "drops his sword").state
    assert state.get("d").wounds[0].effect == "drops his sword"
    house = HouseRules(called_shot_penalty=5, called_wound_penalty=True)
    state, events = land([1, 1], house=house, d=d, damage_type="pierce", called_location="leg", bonus=5)
    assert terms(events[1])[4] == ("called shot (leg)", -5)
    assert state.get("d").wounds[0].penalty == 1


def test_wounds_lower_every_later_target():
    state = arena(("a", attacker(health=10), 20), ("d", defender(), 1))
    state = encounter.gm_damage(state, "a", 16, HOUSE).state  # Health 10: 16 > 15 → wound
    state = encounter.gm_damage(state, "a", 16, HOUSE).state
    assert state.get("a").wound_penalty == 2
    state, _ = run_to_turn(state)
    state = timeline.declare_attack(state, "a", "d", NONE, HOUSE).state
    state, events = run_to_turn(state, [6, 6])
    assert terms(events[1])[3] == ("wounds", -2)


def test_declaring_refuses_what_the_table_forbids():
    state, _ = run_to_turn(arena(("a", attacker(), 20), ("d", defender(), 1)))
    with pytest.raises(InvalidInput, match="1h"):
        timeline.declare_attack(state, "a", "d", NONE, HOUSE, grip="2h")
    dagger, _ = run_to_turn(arena(("a", attacker(weapons=("Dagger/Knife",)), 20), ("d", defender(), 1)))
    with pytest.raises(InvalidInput, match="no bludgeon damage"):
        timeline.declare_attack(dagger, "a", "d", NONE, HOUSE, damage_type="bludgeon")
    with pytest.raises(InvalidInput, match="does not carry"):
        timeline.declare_attack(state, "a", "d", NONE, HOUSE, weapon="Mace")
    with pytest.raises(InvalidInput, match="itself"):
        timeline.declare_attack(state, "a", "a", NONE, HOUSE)
    with pytest.raises(InvalidInput, match="element"):
        timeline.declare_attack(state, "a", "d", NONE, HOUSE, element="fire")


def test_default_damage_type_is_the_weapons_best_for_the_grip():
    state, _ = run_to_turn(arena(("a", attacker(weapons=("Sword, Bastard",)), 20), ("d", defender(), 1)))
    assert timeline.declare_attack(state, "a", "d", NONE, HOUSE).events[-1].damage_type == "cut"
    assert timeline.declare_attack(state, "a", "d", NONE, HOUSE, grip="2h").events[-1].speed == 7


def test_a_defensive_posture_cannot_be_taken_while_attacking():
    state, _ = run_to_turn(arena(("a", attacker(), 20), ("d", defender(), 1)))
    state = timeline.declare_attack(state, "a", "d", NONE, HOUSE).state
    with pytest.raises(NotAllowed, match="attacking"):
        defense.set_posture(state, "a", "active")
    assert defense.set_posture(state, "a", "aggressive").state.get("a").posture == "aggressive"
